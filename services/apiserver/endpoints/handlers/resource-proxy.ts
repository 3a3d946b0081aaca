/**
 * pods/{name}/proxy/{path} and services/{name}/proxy/{path}: the request forwarded to the
 * pod's address or one ready endpoint of the service (registry/proxy-location.ts: the
 * `[scheme:]name[:port]` name, `http:` or `https:`), with its method, body, query and
 * the Accept, Content-Type and User-Agent headers (never the caller's credentials); the
 * backend's answer is streamed back with its status and content type. An `https:`
 * backend's certificate is not verified, as on the platform. A backend that cannot be
 * reached is a 503 Status naming the error.
 */
import type { IncomingMessage } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { serviceUnavailable } from "../../../../shared/api/status.ts";
import type { Catalog } from "../../registry/catalog.ts";
import { parseProxyName, podProxyTarget, serviceProxyTarget, type ProxyTarget } from "../../registry/proxy-location.ts";
import { readBody } from "../body.ts";
import type { RequestScope } from "../scope.ts";
import { agentBody } from "./kubelet-client.ts";

const FORWARDED_HEADERS = ["accept", "content-type", "user-agent"];

/** The part of the path after `/{plural}/{name}/proxy`, with the query ("/" when empty). */
export function proxiedRest(url: URL, plural: string): string {
  const m = new RegExp(`/${plural}/[^/]+/proxy(/.*)?$`).exec(url.pathname);
  return `${m?.[1] ?? "/"}${url.search}`;
}

async function target(s: RequestScope, catalog: Catalog): Promise<ProxyTarget> {
  const id = s.name as string;
  if (s.resource.plural === "pods") {
    const name = parseProxyName("pod", id);
    return podProxyTarget(await s.registry.get(s.namespace, name.name), name);
  }
  const name = parseProxyName("service", id);
  const service = await s.registry.get(s.namespace, name.name);
  const slices = catalog.lookup(s.profile.group("discovery"), "v1", "endpointslices");
  const items = slices ? (await slices.registry.list({ namespace: s.namespace })).items : [];
  const own = items.filter((slice) => (slice.metadata as { labels?: Record<string, string> } | undefined)?.labels?.[s.profile.labels.serviceName] === name.name);
  return serviceProxyTarget(service, own, name, id);
}

function forward(t: ProxyTarget, method: string, path: string, headers: Record<string, string>, body: Uint8Array | undefined, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const options = { host: t.host, port: t.port, path, method, headers, signal, ...(t.scheme === "https" ? { rejectUnauthorized: false } : {}) };
    const req = (t.scheme === "https" ? httpsRequest : httpRequest)(options, resolve);
    req.on("error", (err) => reject(serviceUnavailable(`error trying to reach service: ${err.message}`)));
    req.end(body && body.byteLength > 0 ? body : undefined);
  });
}

export async function handleResourceProxy(s: RequestScope, catalog: Catalog): Promise<Response> {
  const to = await target(s, catalog);
  const headers: Record<string, string> = {};
  for (const h of FORWARDED_HEADERS) {
    const v = s.request.headers.get(h);
    if (v) headers[h] = v;
  }
  const method = s.request.method.toUpperCase();
  const body = method === "GET" || method === "HEAD" ? undefined : await readBody(s.request, s.maxBodyBytes);
  const abort = new AbortController();
  s.request.signal.addEventListener("abort", () => abort.abort(), { once: true });
  const res = await forward(to, method, proxiedRest(new URL(s.request.url), s.resource.plural), headers, body, abort.signal);
  const out: Record<string, string> = {};
  for (const h of ["content-type", "x-content-type-options", "location"]) {
    const v = res.headers[h];
    if (typeof v === "string") out[h] = v;
  }
  return new Response(method === "HEAD" ? null : agentBody(res), { status: res.statusCode ?? 502, headers: out });
}
