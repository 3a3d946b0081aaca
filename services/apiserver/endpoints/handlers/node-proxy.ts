/**
 * nodes/{name}/proxy/{path}: the request forwarded to the node's agent over HTTPS with
 * the replica's agent client certificate (any method; the body, Accept and Content-Type
 * go along, the caller's credentials do not), and the agent's answer streamed back with
 * its status and content type. A node without a reachable agent address is a Status
 * error (404 for an unknown node, 500 for no preferred address or a failed dial).
 */
import type { Catalog } from "../../registry/catalog.ts";
import { readBody } from "../body.ts";
import type { RequestScope } from "../scope.ts";
import { agentBody, locateAgent, openAgentStream, type KubeletClientConfig } from "./kubelet-client.ts";

const FORWARDED_HEADERS = ["accept", "content-type", "user-agent"];

/** The part of the URL after `/nodes/{name}/proxy`, with its query ("/" when empty). */
export function proxiedPath(url: URL, node: string): string {
  const marker = `/nodes/${encodeURIComponent(node)}/proxy`;
  const at = url.pathname.indexOf(marker);
  const rest = at < 0 ? "" : url.pathname.slice(at + marker.length);
  return `${rest.startsWith("/") ? rest : `/${rest}`}${url.search}`;
}

export async function handleNodeProxy(s: RequestScope, catalog: Catalog, kubelet: KubeletClientConfig | undefined): Promise<Response> {
  const node = s.name as string;
  const { cfg, at } = await locateAgent(catalog, node, kubelet);
  const headers: Record<string, string> = {};
  for (const h of FORWARDED_HEADERS) {
    const v = s.request.headers.get(h);
    if (v) headers[h] = v;
  }
  const method = s.request.method.toUpperCase();
  const body = method === "GET" || method === "HEAD" ? undefined : await readBody(s.request, s.maxBodyBytes);
  const abort = new AbortController();
  s.request.signal.addEventListener("abort", () => abort.abort(), { once: true });
  const res = await openAgentStream(cfg, at, proxiedPath(new URL(s.request.url), node), abort.signal, { method, headers, body });
  const out: Record<string, string> = {};
  for (const h of ["content-type", "x-content-type-options"]) {
    const v = res.headers[h];
    if (typeof v === "string") out[h] = v;
  }
  return new Response(method === "HEAD" ? null : agentBody(res), { status: res.statusCode ?? 502, headers: out });
}
