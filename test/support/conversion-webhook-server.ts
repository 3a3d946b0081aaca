/**
 * Test support: a real HTTPS CRD conversion webhook on 127.0.0.1 with its own CA (the
 * `caBundle` to register) and a serving certificate for the given host names (a service's
 * `<name>.<namespace>.svc`). By default it answers each ConversionReview in the review's
 * own apiVersion with every object passed through `convert`; `answer` replaces that
 * (a bad review, a failure, a raw body, a hang) for the requests that follow. Records
 * every review it receives.
 */
import { createServer, type Server } from "node:https";
import type { ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createCA, createServingCert } from "../../services/apiserver/server/certs.ts";

export type Obj = Record<string, unknown>;

export interface ConversionReviewRequest {
  apiVersion: string;
  kind: string;
  request: { uid: string; desiredAPIVersion: string; objects: Obj[] };
}

export type ConversionAnswer = { body: unknown } | { raw: string; status?: number } | { hang: true };

export interface ConversionWebhookServer {
  url: string;
  port: number;
  /** base64 PEM of the server's CA, for `clientConfig.caBundle`. */
  caBundle: string;
  reviews: Array<{ path: string; query: string; review: ConversionReviewRequest }>;
  /** The answer to the next requests (undefined: back to converting with `convert`). */
  answer(fn?: (review: ConversionReviewRequest) => ConversionAnswer): void;
  /** The answer the server gives by default: every object converted, result Success. */
  converted(review: ConversionReviewRequest): { body: unknown };
  close(): Promise<void>;
}

export async function startConversionWebhookServer(convert: (obj: Obj, desiredAPIVersion: string) => Obj, hosts: string[] = []): Promise<ConversionWebhookServer> {
  const ca = await createCA({ commonName: "conversion-webhook-test-ca" });
  const serving = await createServingCert(ca, { hosts });
  const reviews: ConversionWebhookServer["reviews"] = [];
  const hanging = new Set<ServerResponse>();
  const converted = (review: ConversionReviewRequest): { body: unknown } => ({
    body: {
      apiVersion: review.apiVersion,
      kind: "ConversionReview",
      response: { uid: review.request.uid, convertedObjects: review.request.objects.map((o) => convert(structuredClone(o), review.request.desiredAPIVersion)), result: { status: "Success" } },
    },
  });
  let custom: ((review: ConversionReviewRequest) => ConversionAnswer) | undefined;
  const server: Server = createServer({ key: serving.keyPem, cert: serving.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "https://x");
      let review: ConversionReviewRequest;
      try {
        review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ConversionReviewRequest;
      } catch {
        res.writeHead(400).end("bad json");
        return;
      }
      reviews.push({ path: url.pathname, query: url.search, review });
      const answer = (custom ?? converted)(review);
      if ("hang" in answer) {
        hanging.add(res);
        return;
      }
      if ("raw" in answer) {
        res.writeHead(answer.status ?? 200, { "content-type": "application/json" }).end(answer.raw);
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    caBundle: Buffer.from(ca.certPem).toString("base64"),
    reviews,
    answer(fn) {
      custom = fn;
    },
    converted,
    async close() {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
