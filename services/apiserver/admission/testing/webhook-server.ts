/**
 * Test support: a real HTTPS admission webhook server on 127.0.0.1 with its own
 * CA (the `caBundle` to register), whose answer is programmable per request:
 * an AdmissionReview response, a raw HTTP answer, or no answer at all. Records
 * every review it receives.
 */
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { createCA, createServingCert } from "../../server/certs.ts";

export type Review = {
  apiVersion: string;
  kind: string;
  request: {
    uid: string;
    kind: { group: string; version: string; kind: string };
    resource: { group: string; version: string; resource: string };
    subResource?: string;
    name?: string;
    namespace?: string;
    operation: string;
    userInfo: { username: string; groups?: string[] };
    object: Record<string, unknown> | null;
    oldObject: Record<string, unknown> | null;
    dryRun: boolean;
    options: Record<string, unknown> | null;
  };
};

/** What the server answers: a `response` body (uid filled in), raw bytes with a status, or nothing. */
export type Answer =
  | { response: Record<string, unknown>; apiVersion?: string }
  | { raw: string; status?: number }
  | { hang: true };

export interface WebhookServer {
  url: string;
  port: number;
  /** base64 PEM of the server's CA, for `clientConfig.caBundle`. */
  caBundle: string;
  reviews: Array<{ path: string; review: Review }>;
  /** TLS connections accepted so far. */
  connections(): number;
  /** Sets the answer by request path. */
  on(path: string, answer: (review: Review) => Answer): void;
  close(): Promise<void>;
}

/** Encodes JSONPatch operations as a webhook returns them. */
export function jsonPatch(ops: unknown[]): { patchType: string; patch: string } {
  return { patchType: "JSONPatch", patch: Buffer.from(JSON.stringify(ops)).toString("base64") };
}

export async function startWebhookServer(hosts: string[] = []): Promise<WebhookServer> {
  const ca = await createCA({ commonName: "webhook-test-ca" });
  const serving = await createServingCert(ca, { hosts });
  const handlers = new Map<string, (review: Review) => Answer>();
  const reviews: WebhookServer["reviews"] = [];
  const hanging = new Set<import("node:http").ServerResponse>();
  const server: Server = createServer({ key: serving.keyPem, cert: serving.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "https://x").pathname;
      let review: Review;
      try {
        review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Review;
      } catch {
        res.writeHead(400).end("bad json");
        return;
      }
      reviews.push({ path, review });
      const answer: Answer = (handlers.get(path) ?? ((): Answer => ({ response: { allowed: true } })))(review);
      if ("hang" in answer) {
        hanging.add(res);
        return;
      }
      if ("raw" in answer) {
        res.writeHead(answer.status ?? 200, { "content-type": "application/json" }).end(answer.raw);
        return;
      }
      const body = { apiVersion: answer.apiVersion ?? review.apiVersion, kind: "AdmissionReview", response: { uid: review.request.uid, ...answer.response } };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
  });
  let connections = 0;
  server.on("secureConnection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    caBundle: Buffer.from(ca.certPem).toString("base64"),
    reviews,
    connections: () => connections,
    on(path, answer) {
      handlers.set(path, answer);
    },
    async close() {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
