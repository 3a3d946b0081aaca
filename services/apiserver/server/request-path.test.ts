/**
 * The request path through a real replica over HTTPS: Audit-ID on every answer,
 * unknown methods, the in-flight limit with bodies that never arrive, the
 * request deadline, system:masters, and what the log says about a request.
 */
import { readFile } from "node:fs/promises";
import type { IncomingHttpHeaders } from "node:http";
import { request as httpsRequest, type RequestOptions } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../../../test/support/apiserver.ts";
import { HttpsClient } from "../../../test/support/https-client.ts";
import { createClientCert, loadCA, pkiPaths, type KeyPairPem } from "./certs.ts";

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

interface LogLine {
  level: string;
  msg: string;
  fields: Record<string, unknown>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";

/** A POST that declares a body of `declared` bytes, sends `sent` of them and then nothing. */
function stalledPost(url: string, ca: string, id: KeyPairPem, path: string, declared = 100_000, sent = ""): { answer: Promise<Answer>; abort(): void } {
  const opts: RequestOptions = { method: "POST", ca, cert: id.certPem, key: id.keyPem, agent: false, headers: { "content-type": "application/json", "content-length": String(declared) } };
  const req = httpsRequest(new URL(path, url), opts);
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        req.destroy();
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
  });
  answer.catch(() => {});
  if (sent) req.write(sent);
  else req.flushHeaders();
  return { answer, abort: () => req.destroy() };
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const configMap = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: "v" } });

describe("request path over HTTPS", () => {
  let api: TestApiserver;
  let mallory: KeyPairPem;
  let alice: KeyPairPem;
  let asAlice: HttpsClient;
  let asMallory: HttpsClient;
  const lines: LogLine[] = [];

  beforeAll(async () => {
    api = await startTestApiserver({
      requestTimeoutMs: 3000,
      maxMutatingRequestsInFlight: 8,
      maxRequestsInFlight: 8,
      // the in-flight limit is what this file tests (APF has its own tests)
      enablePriorityAndFairness: false,
      log: (level, msg, fields) => lines.push({ level, msg, fields: fields ?? {} }),
    });
    const paths = pkiPaths(api.dir);
    const ca = await loadCA(await readFile(paths.caCert, "utf8"), await readFile(paths.caKey, "utf8"));
    mallory = await createClientCert(ca, { user: "mallory", groups: ["tenants"] });
    alice = await createClientCert(ca, { user: "alice", groups: ["tenants"] });
    asAlice = new HttpsClient(api.replica.url, { ca: api.ca, cert: alice.certPem, key: alice.keyPem });
    asMallory = new HttpsClient(api.replica.url, { ca: api.ca, cert: mallory.certPem, key: mallory.keyPem });
  });

  afterAll(async () => {
    asAlice?.close();
    asMallory?.close();
    await api?.close();
  });

  it("answers with an Audit-ID: a new UUID, or the client's own", async () => {
    const fresh = await api.admin.request("GET", "/api/v1/namespaces");
    expect(fresh.status).toBe(200);
    expect(String(fresh.headers["audit-id"])).toMatch(UUID);
    const other = await api.admin.request("GET", "/api/v1/namespaces");
    expect(other.headers["audit-id"]).not.toBe(fresh.headers["audit-id"]);
    const own = await api.admin.request("GET", "/api/v1/namespaces/nope", { headers: { "Audit-ID": "trace-4711" } });
    expect(own.status).toBe(404);
    expect(own.headers["audit-id"]).toBe("trace-4711");
    const bad = await api.admin.request("GET", "/api/v1/namespaces/x/nothings/y/z/w");
    expect(String(bad.headers["audit-id"])).toMatch(UUID);
    const watch = await api.admin.request("GET", "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1", { headers: { "audit-id": "watch-1" } });
    expect(watch.status).toBe(200);
    expect(watch.headers["audit-id"]).toBe("watch-1");
  });

  it("answers HEAD as the GET's head without its body", async () => {
    const get = await api.admin.request("GET", "/api/v1/namespaces/default");
    const head = await api.admin.request("HEAD", "/api/v1/namespaces/default");
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers["content-type"]).toBe(get.headers["content-type"]);
    expect(String(head.headers["audit-id"])).toMatch(UUID);
    const missing = await api.admin.request("HEAD", "/api/v1/namespaces/nope");
    expect(missing.status).toBe(404);
    expect(missing.body.length).toBe(0);
  });

  it.each(["TRACE", "OPTIONS", "PROPFIND"])("answers %s with 405 MethodNotAllowed", async (method) => {
    const r = await api.admin.request(method, "/api/v1/namespaces/default/configmaps");
    expect(r.status).toBe(405);
    expect(r.json()).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "the server does not allow this method on the requested resource",
      reason: "MethodNotAllowed",
      details: { causes: [{ reason: "UnexpectedServerResponse", message: "405: Method Not Allowed" }] },
      code: 405,
    });
  });

  it("holds a full pool with stalled bodies, refuses every other user but system:masters, and frees the seats at the deadline", async () => {
    const url = api.replica.url;
    // The platform's max-in-flight filter has no per-user share: one user may take the whole pool.
    const stalled = Array.from({ length: 10 }, () => stalledPost(url, api.ca, mallory, CONFIGMAPS));
    // 8 wait for their bodies on the 8 mutating seats, 2 are refused at once.
    const settled: Answer[] = [];
    for (const s of stalled) void s.answer.then((a) => settled.push(a));
    await until("two refusals", () => (settled.length >= 2 ? true : undefined));
    expect(settled.slice(0, 2).map((a) => a.status)).toEqual([429, 429]);
    const refusal = settled[0];
    expect(refusal.headers["retry-after"]).toBe("1");
    expect(refusal.body).toMatchObject({ kind: "Status", status: "Failure", code: 429, reason: "TooManyRequests", message: "Too many requests, please try again later.", details: { retryAfterSeconds: 1 } });

    // Meanwhile: another user's write is refused (the pool is full), the admin's is served without a seat.
    expect((await asAlice.request("POST", CONFIGMAPS, { body: configMap("from-alice") })).status).toBe(429);
    const byAdmin = await api.admin.request("POST", CONFIGMAPS, { body: configMap("from-admin") });
    expect(byAdmin.status).toBe(201);
    expect((await asMallory.request("POST", CONFIGMAPS, { body: configMap("too-early") })).status).toBe(429);
    expect(settled.length).toBe(2);

    // At the deadline the stalled requests end with the platform's 504 and their seats come back.
    const all = await Promise.all(stalled.map((s) => s.answer));
    const timedOut = all.filter((a) => a.status === 504);
    expect(timedOut).toHaveLength(8);
    for (const a of timedOut) {
      expect(a.body).toMatchObject({ kind: "Status", status: "Failure", code: 504, reason: "Timeout", message: "Timeout: request did not complete within requested timeout - context deadline exceeded" });
      expect(a.headers.connection).toBe("close");
    }
    const after = await asMallory.request("POST", CONFIGMAPS, { body: configMap("from-mallory") });
    expect(after.status).toBe(201);

    // Both refusals and deadlines count as terminations in self-defense.
    const metrics = (await api.admin.request("GET", "/metrics")).text;
    const terminations = (code: number) =>
      metrics
        .split("\n")
        .filter((l) => l.startsWith("apiserver_request_terminations_total{") && l.includes(`code="${code}"`) && l.includes('resource="configmaps"') && l.includes('verb="POST"'))
        .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
    expect(terminations(429)).toBe(4);
    expect(terminations(504)).toBe(8);

    // Every log line of a timed-out request carries its Audit-ID.
    const id = String(timedOut[0].headers["audit-id"]);
    const mine = lines.filter((l) => l.fields.auditID === id);
    expect(mine.map((l) => l.msg)).toContain("request");
    expect(mine.find((l) => l.msg === "request")?.fields).toMatchObject({ code: 504, method: "POST", path: CONFIGMAPS, user: "mallory" });
    expect(lines.filter((l) => l.msg === "request").every((l) => typeof l.fields.auditID === "string")).toBe(true);
  });

  it("honours a shorter timeout parameter and refuses a malformed one", async () => {
    const quick = stalledPost(api.replica.url, api.ca, alice, `${CONFIGMAPS}?timeout=500ms`);
    const a = await quick.answer;
    expect(a.status).toBe(504);
    const bad = await asAlice.request("GET", `${CONFIGMAPS}?timeout=soon`);
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ reason: "BadRequest", message: "invalid timeout specified in the request URL" });
  });

  it("logs a request the client abandoned at debug level, without a stack and without its body", async () => {
    const secret = '{"data":{"password":"hunter2-secret"';
    const gone = stalledPost(api.replica.url, api.ca, alice, CONFIGMAPS, 100_000, secret);
    await new Promise((r) => setTimeout(r, 300));
    gone.abort();
    const line = await until("the abort line", () => lines.find((l) => l.msg === "request aborted by the client"));
    expect(line.level).toBe("debug");
    expect(line.fields.stack).toBeUndefined();
    expect(line.fields.auditID).toEqual(expect.any(String));
    expect(JSON.stringify(lines)).not.toContain("hunter2");
    expect(lines.filter((l) => l.level === "error")).toEqual([]);
  });
});
