/**
 * The client transport's retries over real HTTPS against a scripted server on
 * 127.0.0.1: 429 and 5xx answers with Retry-After are sent again after that many
 * seconds (any verb), up to maxRetries; answers without it are returned as they are;
 * a GET whose connection breaks is sent again, a POST is not.
 */
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCA, createServingCert } from "../../services/apiserver/server/certs.ts";
import { HttpsTransport, retryAfterSeconds, type RetryNotice } from "../../shared/client/transport.ts";

/** What the server answers to the n-th request (0-based) of the current script. */
type Step = { status: number; retryAfter?: string } | "break";

let server: Server;
let caPem: string;
let url: string;
let script: Step[] = [];
let hits: Array<{ method: string; at: number; body: string }> = [];

beforeAll(async () => {
  const ca = await createCA({ commonName: "retry-test-ca" });
  const serving = await createServingCert(ca, {});
  caPem = ca.certPem;
  server = createServer({ key: serving.keyPem, cert: serving.certPem }, (req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      const step = script[hits.length] ?? { status: 200 };
      hits.push({ method: req.method ?? "", at: Date.now(), body });
      if (step === "break") {
        req.socket.destroy();
        return;
      }
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (step.retryAfter !== undefined) headers["retry-after"] = step.retryAfter;
      const payload = step.status === 200 ? { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "x" } } : { kind: "Status", apiVersion: "v1", status: "Failure", code: step.status, reason: step.status === 429 ? "TooManyRequests" : "InternalError", message: "try again later" };
      res.writeHead(step.status, headers).end(JSON.stringify(payload));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

function run(steps: Step[], maxRetries?: number): { transport: HttpsTransport; notices: RetryNotice[] } {
  script = steps;
  hits = [];
  const notices: RetryNotice[] = [];
  return { transport: new HttpsTransport({ server: url, ca: caPem, insecureSkipTlsVerify: false }, { maxRetries, onRetry: (n) => notices.push(n) }), notices };
}

describe("Retry-After", () => {
  it.each([
    ["429 with seconds", 429, "1", 1],
    ["503 with zero", 503, "0", 0],
    ["500 with spaces", 500, " 2 ", 2],
    ["429 without the header", 429, undefined, undefined],
    ["404 with the header", 404, "1", undefined],
    ["an HTTP date is not seconds", 503, "Wed, 21 Oct 2026 07:28:00 GMT", undefined],
    ["a negative number", 429, "-1", undefined],
  ] as const)("%s", (_name, status, header, seconds) => {
    expect(retryAfterSeconds(status, header)).toBe(seconds);
  });
});

describe("retries over HTTPS", () => {
  it("sends a GET again after 429 Retry-After answers and returns the final answer", async () => {
    const { transport, notices } = run([{ status: 429, retryAfter: "0" }, { status: 429, retryAfter: "0" }]);
    try {
      const res = await transport.send("GET", "/api/v1/namespaces/default/configmaps/x");
      expect(res.status).toBe(200);
      expect(hits.map((h) => h.method)).toEqual(["GET", "GET", "GET"]);
      expect(notices.map((n) => [n.attempt, n.status, n.waitMs])).toEqual([
        [1, 429, 0],
        [2, 429, 0],
      ]);
    } finally {
      transport.close();
    }
  });

  it("waits the seconds Retry-After gives (5xx too), and sends a POST again with its body", async () => {
    const { transport } = run([{ status: 503, retryAfter: "1" }]);
    try {
      const body = JSON.stringify({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "x" } });
      const res = await transport.send("POST", "/api/v1/namespaces/default/configmaps", { contentType: "application/json", data: body });
      expect(res.status).toBe(200);
      expect(hits.length).toBe(2);
      expect(hits[1].at - hits[0].at).toBeGreaterThanOrEqual(950);
      expect(hits.map((h) => h.body)).toEqual([body, body]);
    } finally {
      transport.close();
    }
  });

  it("returns a 5xx without Retry-After at once, and gives up after maxRetries", async () => {
    const once = run([{ status: 500 }]);
    try {
      expect((await once.transport.send("GET", "/x")).status).toBe(500);
      expect(hits.length).toBe(1);
    } finally {
      once.transport.close();
    }
    const capped = run(Array.from({ length: 10 }, () => ({ status: 429, retryAfter: "0" })), 2);
    try {
      await expect(capped.transport.json("GET", "/x")).rejects.toMatchObject({ code: 429, reason: "TooManyRequests" });
      expect(hits.length).toBe(3);
      expect(capped.notices.length).toBe(2);
    } finally {
      capped.transport.close();
    }
  });

  it("sends a GET again when its connection breaks; a POST is not sent twice", async () => {
    const get = run(["break", "break"]);
    try {
      expect((await get.transport.send("GET", "/x")).status).toBe(200);
      expect(hits.length).toBe(3);
      expect(get.notices.map((n) => [n.status, n.waitMs])).toEqual([[0, 1000]]);
    } finally {
      get.transport.close();
    }
    const post = run(["break"]);
    try {
      await expect(post.transport.send("POST", "/x", { contentType: "application/json", data: "{}" })).rejects.toMatchObject({ code: 0 });
      expect(hits.length).toBe(1);
    } finally {
      post.transport.close();
    }
  });
});
