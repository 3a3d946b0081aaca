/**
 * pods/{name}/proxy/{path} and services/{name}/proxy/{path}: the request forwarded to the
 * pod's address or one ready endpoint of the service (registry/proxy-location.ts: the
 * `[scheme:]name[:port]` name, `http:` or `https:`), with its method, body, query and
 * headers (proxy-forwarding.ts: never hop-by-hop headers or the caller's credentials);
 * the backend's answer is streamed back with its status and headers. First the
 * PodProxyOptions/ServiceProxyOptions (`path`) go through CONNECT admission. An `https:`
 * backend's certificate is not verified, as on the platform. A backend that cannot be
 * reached is a 503 Status naming the error.
 */
import type { IncomingMessage } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { serviceUnavailable } from "../../../../shared/api/status.ts";
import type { Catalog } from "../../registry/catalog.ts";
import { parseProxyName, podProxyTarget, serviceProxyTarget, type ProxyTarget } from "../../registry/proxy-location.ts";
import type { JsonObject } from "../../storage/object.ts";
import type { RequestScope } from "../scope.ts";
import { admitConnect } from "../upgrade-connect.ts";
import { forwardedRequest, forwardedResponse, type ForwardedRequest } from "./proxy-forwarding.ts";

/** The part of the path after `/{plural}/{name}/proxy` ("" when none). */
function proxySubpath(url: URL, plural: string): string {
  return new RegExp(`/${plural}/[^/]+/proxy(/.*)?$`).exec(url.pathname)?.[1] ?? "";
}

/** The part of the path after `/{plural}/{name}/proxy`, with the query ("/" when empty). */
export function proxiedRest(url: URL, plural: string): string {
  return `${proxySubpath(url, plural) || "/"}${url.search}`;
}

const PROXY_OPTIONS_KIND: Record<string, string> = { pods: "PodProxyOptions", services: "ServiceProxyOptions", nodes: "NodeProxyOptions" };

/** The options CONNECT admission sees for `{plural}/proxy`: `path` is the subpath, else the `path` query parameter. */
export function proxyConnectOptions(url: URL, plural: string): JsonObject {
  const path = proxySubpath(url, plural) || url.searchParams.get("path") || "";
  return { kind: PROXY_OPTIONS_KIND[plural] ?? "", apiVersion: "v1", ...(path ? { path } : {}) };
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

function forward(t: ProxyTarget, path: string, { method, headers, body, signal }: ForwardedRequest): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const options = { host: t.host, port: t.port, path, method, headers, signal, ...(t.scheme === "https" ? { rejectUnauthorized: false } : {}) };
    const req = (t.scheme === "https" ? httpsRequest : httpRequest)(options, resolve);
    req.on("error", (err) => reject(serviceUnavailable(`error trying to reach service: ${err.message}`)));
    req.end(body && body.byteLength > 0 ? body : undefined);
  });
}

export async function handleResourceProxy(s: RequestScope, catalog: Catalog): Promise<Response> {
  await admitConnect(s, catalog, "proxy", proxyConnectOptions(new URL(s.request.url), s.resource.plural));
  const to = await target(s, catalog);
  const request = await forwardedRequest(s);
  const res = await forward(to, proxiedRest(new URL(s.request.url), s.resource.plural), request);
  return forwardedResponse(request.method, res);
}
