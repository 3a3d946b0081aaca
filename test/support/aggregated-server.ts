/**
 * Test support: a small aggregated API server over real HTTPS on 127.0.0.1, metrics
 * style. It has its own CA (the APIService's `caBundle`) and a serving certificate for
 * the given host names (`<service>.<namespace>.svc`); it asks for a client certificate
 * and, when `clientCa` is given, refuses connections without one it signed. It serves:
 *  - GET /apis/<group>/<version>: the APIResourceList (one namespaced resource `podmetrics`),
 *    for any group version (other APIServices may point at the same server);
 *  - GET .../namespaces/<ns>/podmetrics[/<name>]: a list or an object whose `identity`
 *    echoes the front-proxy headers it received (X-Remote-User, X-Remote-Group, X-Remote-Extra-*)
 *    and the client certificate's CN;
 *  - `?watch=true`: two ADDED events 150 ms apart, then the stream ends;
 *  - with `openapi` documents: GET /openapi/v2 (with an ETag; `If-None-Match` gets 304),
 *    /openapi/v3 (an index with the aggregated group version and the document's hash)
 *    and /openapi/v3/apis/<group>/<version>.
 * Every request is recorded (path, headers, client certificate CN).
 */
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { createCA, createServingCert } from "../../services/apiserver/server/certs.ts";

export const AGGREGATED_GROUP = "metrics.example.com";
export const AGGREGATED_VERSION = "v1beta1";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  clientCN?: string;
}

export interface AggregatedServer {
  port: number;
  /** base64 PEM of the server's CA, for `spec.caBundle`. */
  caBundle: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

function identityOf(req: IncomingMessage, clientCN: string | undefined): Record<string, unknown> {
  const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  const extra: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) if (k.startsWith("x-remote-extra-")) extra[k.slice("x-remote-extra-".length)] = list(v);
  // Node joins repeated headers with ", " except for a few; every line of X-Remote-Group is a group.
  const groups = req.headersDistinct["x-remote-group"] ?? [];
  return { user: req.headers["x-remote-user"] ?? "", groups, extra, clientCN: clientCN ?? "", authorization: req.headers.authorization ?? "" };
}

function podMetrics(name: string, namespace: string, identity: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: `${AGGREGATED_GROUP}/${AGGREGATED_VERSION}`, kind: "PodMetrics", metadata: { name, namespace, creationTimestamp: "2026-01-01T00:00:00Z" }, window: "30s", identity };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** The OpenAPI documents an aggregated test server publishes. */
export interface AggregatedOpenApiDocs {
  v2?: Record<string, unknown>;
  v3?: Record<string, unknown>;
}

function serveOpenApi(req: IncomingMessage, res: ServerResponse, path: string, docs: AggregatedOpenApiDocs): boolean {
  const gvPath = `apis/${AGGREGATED_GROUP}/${AGGREGATED_VERSION}`;
  const hash = (doc: unknown) => createHash("sha256").update(JSON.stringify(doc)).digest("hex").slice(0, 32).toUpperCase();
  if (path === "/openapi/v2" && docs.v2) {
    const etag = `"${hash(docs.v2)}"`;
    if (req.headers["if-none-match"] === etag) res.writeHead(304, { etag }).end();
    else res.writeHead(200, { "content-type": "application/json", etag }).end(JSON.stringify(docs.v2));
    return true;
  }
  if (path === "/openapi/v3" && docs.v3) {
    json(res, 200, { paths: { [gvPath]: { serverRelativeURL: `/openapi/v3/${gvPath}?hash=${hash(docs.v3)}` } } });
    return true;
  }
  if (path === `/openapi/v3/${gvPath}` && docs.v3) {
    json(res, 200, docs.v3);
    return true;
  }
  return false;
}

export async function startAggregatedServer(hosts: string[], clientCa?: string, openapi: AggregatedOpenApiDocs = {}): Promise<AggregatedServer> {
  const ca = await createCA({ commonName: "aggregated-test-ca" });
  const serving = await createServingCert(ca, { hosts });
  const requests: RecordedRequest[] = [];
  const gv = `/apis/${AGGREGATED_GROUP}/${AGGREGATED_VERSION}`;
  const server: Server = createServer({ key: serving.keyPem, cert: serving.certPem, requestCert: true, rejectUnauthorized: !!clientCa, ca: clientCa }, (req, res) => {
    const url = new URL(req.url ?? "/", "https://x");
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    const clientCN = peer && typeof peer.subject?.CN === "string" ? peer.subject.CN : undefined;
    requests.push({ method: req.method ?? "", path: `${url.pathname}${url.search}`, headers: req.headers, clientCN });
    if (serveOpenApi(req, res, url.pathname, openapi)) return;
    const identity = identityOf(req, clientCN);
    const discovery = /^\/apis\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (discovery) {
      json(res, 200, {
        kind: "APIResourceList",
        apiVersion: "v1",
        groupVersion: `${discovery[1]}/${discovery[2]}`,
        resources: [{ name: "podmetrics", singularName: "podmetrics", namespaced: true, kind: "PodMetrics", verbs: ["get", "list", "watch"] }],
      });
      return;
    }
    const m = new RegExp(`^${gv.replaceAll(".", "\\.")}/namespaces/([^/]+)/podmetrics(?:/([^/]+))?$`).exec(url.pathname);
    if (!m) {
      json(res, 404, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404, message: "the server could not find the requested resource" });
      return;
    }
    const [, namespace, name] = m;
    if (name) {
      json(res, 200, podMetrics(name, namespace, identity));
      return;
    }
    if (url.searchParams.get("watch") === "true" || url.searchParams.get("watch") === "1") {
      res.writeHead(200, { "content-type": "application/json" });
      res.write(`${JSON.stringify({ type: "ADDED", object: podMetrics("w1", namespace, identity) })}\n`);
      setTimeout(() => res.end(`${JSON.stringify({ type: "ADDED", object: podMetrics("w2", namespace, identity) })}\n`), 150);
      return;
    }
    json(res, 200, { apiVersion: `${AGGREGATED_GROUP}/${AGGREGATED_VERSION}`, kind: "PodMetricsList", metadata: {}, items: [podMetrics("p1", namespace, identity), podMetrics("p2", namespace, identity)] });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    caBundle: Buffer.from(ca.certPem).toString("base64"),
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
