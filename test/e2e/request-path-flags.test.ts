/**
 * The request path's flags through the real apiserver process: in-flight seats and
 * the request deadline from `--max-mutating-requests-inflight` / `--request-timeout`,
 * `--tls-min-version`, and a bad `--tls-cipher-suites` refusing to start.
 */
import { readFile } from "node:fs/promises";
import { request as httpsRequest } from "node:https";
import { connect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getProfile } from "../../shared/platform/index.ts";
import { createClientCert, loadCA, pkiPaths, type KeyPairPem } from "../../services/apiserver/server/certs.ts";
import { startServerProcess, type ServerProcess } from "../support/server-process.ts";

/** Any authenticated user may create a SelfSubjectAccessReview: the write of the attack. */
const REVIEWS = `/apis/${getProfile("kubernetes").group("authorization")}/v1/selfsubjectaccessreviews`;

/** POSTs a body that never arrives; resolves with the status and the Status reason. */
function stalledPost(url: string, ca: string, id: KeyPairPem): Promise<{ status: number; reason: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(REVIEWS, url), {
      method: "POST",
      ca,
      cert: id.certPem,
      key: id.keyPem,
      agent: false,
      headers: { "content-type": "application/json", "content-length": "100000" },
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, reason: (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { reason?: unknown }).reason });
      });
    });
    req.on("error", reject);
    req.flushHeaders();
  });
}

describe("request path flags of the apiserver process", () => {
  let server: ServerProcess;
  let ca: string;
  let mallory: KeyPairPem;

  beforeAll(async () => {
    // Without API Priority and Fairness the in-flight pools are the limit: one seat per request, no per-user share (as the platform's filter).
    server = await startServerProcess(["--enable-priority-and-fairness=false", "--max-mutating-requests-inflight=4", "--request-timeout=2s", "--tls-min-version=VersionTLS13"]);
    const paths = pkiPaths(server.dir);
    ca = await readFile(paths.caCert, "utf8");
    mallory = await createClientCert(await loadCA(ca, await readFile(paths.caKey, "utf8")), { user: "mallory" });
  }, 90_000);

  afterAll(async () => {
    await server?.close();
  });

  it("limits stalled writes to --max-mutating-requests-inflight seats and ends them at --request-timeout", async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => stalledPost(server.url, ca, mallory)));
    const counts = answers.reduce<Record<string, number>>((acc, a) => ({ ...acc, [`${a.status} ${String(a.reason)}`]: (acc[`${a.status} ${String(a.reason)}`] ?? 0) + 1 }), {});
    // a lone user may hold all 4 seats: the other 2 writes are refused at once, the 4 admitted end at the deadline
    expect(counts).toEqual({ "429 TooManyRequests": 2, "504 Timeout": 4 });
  });

  it("serves only TLS 1.3 with --tls-min-version=VersionTLS13", async () => {
    const port = Number(new URL(server.url).port);
    const handshake = (o: { maxVersion?: "TLSv1.2" }) =>
      new Promise<string | null>((resolve, reject) => {
        const s = connect({ host: "127.0.0.1", port, ca, ...o }, () => {
          resolve(s.getProtocol());
          s.destroy();
        });
        s.on("error", reject);
      });
    await expect(handshake({})).resolves.toBe("TLSv1.3");
    await expect(handshake({ maxVersion: "TLSv1.2" })).rejects.toThrow(/alert protocol version/);
  });

  it("does not start with an unknown cipher suite", async () => {
    await expect(startServerProcess(["--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_BOGUS"])).rejects.toThrow(/exited before listening \(code 1[\s\S]*Cipher suite TLS_BOGUS not supported or doesn't exist/);
  }, 90_000);
});
