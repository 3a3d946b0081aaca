/**
 * nodes/{name}/proxy/{path}: after CONNECT admission of the NodeProxyOptions (`path`), the request forwarded to the node's agent over HTTPS with
 * the replica's agent client certificate (any method; the body and headers go along as
 * proxy-forwarding.ts says, the caller's credentials do not), and the agent's answer
 * streamed back with its status and headers. A node without a reachable agent address is a Status
 * error (404 for an unknown node, 500 for no preferred address or a failed dial).
 */
import type { Catalog } from "../../registry/catalog.ts";
import type { RequestScope } from "../scope.ts";
import { locateAgent, openAgentStream, type KubeletClientConfig } from "./kubelet-client.ts";
import { forwardedRequest, forwardedResponse } from "./proxy-forwarding.ts";
import { proxyConnectOptions } from "./resource-proxy.ts";
import { admitConnect } from "../upgrade-connect.ts";

/** The part of the URL after `/nodes/{name}/proxy`, with its query ("/" when empty). */
export function proxiedPath(url: URL, node: string): string {
  const marker = `/nodes/${encodeURIComponent(node)}/proxy`;
  const at = url.pathname.indexOf(marker);
  const rest = at < 0 ? "" : url.pathname.slice(at + marker.length);
  return `${rest.startsWith("/") ? rest : `/${rest}`}${url.search}`;
}

export async function handleNodeProxy(s: RequestScope, catalog: Catalog, kubelet: KubeletClientConfig | undefined): Promise<Response> {
  const node = s.name as string;
  await admitConnect(s, catalog, "proxy", proxyConnectOptions(new URL(s.request.url), "nodes"));
  const { cfg, at } = await locateAgent(catalog, node, kubelet);
  const request = await forwardedRequest(s);
  const res = await openAgentStream(cfg, at, proxiedPath(new URL(s.request.url), node), request.signal, request);
  return forwardedResponse(request.method, res);
}
