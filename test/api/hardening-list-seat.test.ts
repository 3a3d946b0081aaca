/**
 * A streamed list gives back its in-flight seat when its body has been written
 * out or the client went away, not when the handler returns: through HTTPS against
 * a replica with --max-requests-inflight=1, a list whose client stops reading keeps
 * the seat (another user's request gets 429) until the body is consumed, and again
 * until the client aborts.
 */
import { readFile } from "node:fs/promises";
import { request as httpsRequest, type RequestOptions } from "node:https";
import type { ClientRequest, IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClientCert, loadCA, pkiPaths, type KeyPairPem } from "../../services/apiserver/server/certs.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { HttpsClient } from "../support/https-client.ts";

const NS = "seats";
const LIST = `/api/v1/namespaces/${NS}/configmaps`;
/** 24 objects of 512 KiB: 12 MiB, more than loopback socket buffers hold for a reader that stopped. */
const OBJECTS = 24;

let api: TestApiserver;
let alice: KeyPairPem;
let asBob: HttpsClient;

beforeAll(async () => {
  api = await startTestApiserver({ maxRequestsInFlight: 1, enablePriorityAndFairness: false });
  const paths = pkiPaths(api.dir);
  const ca = await loadCA(await readFile(paths.caCert, "utf8"), await readFile(paths.caKey, "utf8"));
  alice = await createClientCert(ca, { user: "alice", groups: ["readers"] });
  const bob = await createClientCert(ca, { user: "bob", groups: ["readers"] });
  asBob = new HttpsClient(api.replica.url, { ca: api.ca, cert: bob.certPem, key: bob.keyPem });
  const rbac = api.profile.group("rbac");
  const created = [
    await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } }),
    await api.admin.post(`/apis/${rbac}/v1/namespaces/${NS}/roles`, { apiVersion: `${rbac}/v1`, kind: "Role", metadata: { name: "read" }, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }] }),
    await api.admin.post(`/apis/${rbac}/v1/namespaces/${NS}/rolebindings`, {
      apiVersion: `${rbac}/v1`,
      kind: "RoleBinding",
      metadata: { name: "read" },
      roleRef: { apiGroup: rbac, kind: "Role", name: "read" },
      subjects: [{ apiGroup: rbac, kind: "Group", name: "readers" }],
    }),
  ];
  for (const r of created) expect(r.status, r.text).toBe(201);
  const value = "x".repeat(512 * 1024);
  for (let i = 0; i < OBJECTS; i += 6) {
    const batch = await Promise.all(Array.from({ length: 6 }, (_, j) => api.admin.post(LIST, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `big-${i + j}` }, data: { v: value } })));
    for (const r of batch) expect(r.status, r.text).toBe(201);
  }
}, 60_000);

afterAll(async () => {
  asBob?.close();
  await api?.close();
});

/** Alice's list, with the response paused as soon as its headers arrive. */
function startPausedList(): Promise<{ req: ClientRequest; res: IncomingMessage }> {
  const options: RequestOptions = { ca: api.ca, cert: alice.certPem, key: alice.keyPem, agent: false };
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(LIST, api.replica.url), options, (res) => {
      res.pause();
      resolve({ req, res });
    });
    req.on("error", reject);
    req.end();
  });
}

/** Bob's status for a GET until it is not `status` (at most `ms`); the last status seen. */
async function bobUntilNot(status: number, ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await asBob.get(`${LIST}/big-0`);
    if (r.status !== status || Date.now() > deadline) return r.status;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("in-flight seats of streamed lists", () => {
  it("a list whose client stops reading keeps its seat until the body is consumed", async () => {
    expect((await asBob.get(`${LIST}/big-0`)).status).toBe(200);
    const { res } = await startPausedList();
    expect(res.statusCode).toBe(200);
    // The handler has returned long ago; the seat is still the list's while its body waits.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refused = await asBob.get(`${LIST}/big-0`);
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toBe("1");
    let bytes = 0;
    const ended = new Promise<void>((resolve, reject) => {
      res.on("data", (c: Buffer) => (bytes += c.length));
      res.on("end", resolve);
      res.on("error", reject);
    });
    res.resume();
    await ended;
    expect(bytes).toBeGreaterThan(OBJECTS * 512 * 1024);
    expect(await bobUntilNot(429, 2000)).toBe(200);
  });

  it("a list whose client goes away gives its seat back", async () => {
    const { req, res } = await startPausedList();
    expect(res.statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await asBob.get(`${LIST}/big-0`)).status).toBe(429);
    req.destroy();
    expect(await bobUntilNot(429, 2000)).toBe(200);
  });
});
