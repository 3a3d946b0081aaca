/**
 * The header rules of the proxy subresources (pods/proxy, services/proxy, nodes/proxy),
 * as the platform's proxy applies them, in one place:
 * - towards the backend, the caller's headers go along except
 *   - hop-by-hop headers (RFC 7230 §6.1: Connection and every header it names,
 *     Keep-Alive, Proxy-Connection, Proxy-Authenticate, Proxy-Authorization, TE,
 *     Trailer, Transfer-Encoding, Upgrade),
 *   - the caller's credentials (Authorization, which the platform drops once the
 *     request is authenticated) and impersonation headers (Impersonate-User,
 *     -Group, -Uid, -Extra-*, dropped once impersonation is applied),
 *   - Host (the backend's own) and Content-Length (set from the body that is sent);
 * - back to the caller, the backend's headers go along except hop-by-hop ones (and
 *   Content-Length, which the response framing sets).
 * Also the request and answer around those rules: the method, the body (read within
 * the request's size limit; none for GET and HEAD) and an abort signal that follows
 * the caller's, and the backend's answer streamed back with its status (no body for HEAD).
 */
import type { IncomingMessage } from "node:http";
import { readBody } from "../body.ts";
import type { RequestScope } from "../scope.ts";
import { agentBody } from "./kubelet-client.ts";

/** Hop-by-hop headers of RFC 7230 §6.1 and their common companions (lower case). */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade"]);

/** Request headers the caller keeps to itself (lower case; Impersonate-* by prefix). */
const CALLER_ONLY = new Set(["authorization", "host", "content-length"]);
const IMPERSONATION_PREFIX = "impersonate-";

/** The headers named by Connection (they are hop-by-hop for this hop only). */
function connectionTokens(connection: string | null | undefined): Set<string> {
  return new Set(
    (connection ?? "")
      .split(",")
      .map((t) => t.trim().toLowerCase())
      .filter((t) => t !== ""),
  );
}

function hopByHop(name: string, named: ReadonlySet<string>): boolean {
  return HOP_BY_HOP.has(name) || named.has(name);
}

/** The caller's headers to send to the backend (lower-case names; repeated headers joined as the request carries them). */
export function backendRequestHeaders(headers: Headers): Record<string, string> {
  const named = connectionTokens(headers.get("connection"));
  const out: Record<string, string> = {};
  headers.forEach((value, key) => {
    const name = key.toLowerCase();
    if (hopByHop(name, named) || CALLER_ONLY.has(name) || name.startsWith(IMPERSONATION_PREFIX)) return;
    out[name] = value;
  });
  return out;
}

/** The backend's headers to answer with, from its raw header list (name, value, name, value…; repeats kept). */
export function callerResponseHeaders(rawHeaders: readonly string[]): Headers {
  const named = new Set<string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === "connection") for (const t of connectionTokens(rawHeaders[i + 1])) named.add(t);
  const out = new Headers();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    if (hopByHop(name, named) || name === "content-length") continue;
    out.append(name, rawHeaders[i + 1]);
  }
  return out;
}

/** What goes to the backend for a proxied request. */
export interface ForwardedRequest {
  method: string;
  headers: Record<string, string>;
  body: Uint8Array | undefined;
  /** Aborted when the caller goes away. */
  signal: AbortSignal;
}

export async function forwardedRequest(s: RequestScope): Promise<ForwardedRequest> {
  const method = s.request.method.toUpperCase();
  const body = method === "GET" || method === "HEAD" ? undefined : await readBody(s.request, s.maxBodyBytes);
  const abort = new AbortController();
  s.request.signal.addEventListener("abort", () => abort.abort(), { once: true });
  return { method, headers: backendRequestHeaders(s.request.headers), body, signal: abort.signal };
}

/** The backend's answer as the caller's response. */
export function forwardedResponse(method: string, res: IncomingMessage): Response {
  const status = res.statusCode ?? 502;
  const bodyless = method === "HEAD" || status === 204 || status === 205 || status === 304;
  if (bodyless) res.resume();
  return new Response(bodyless ? null : agentBody(res), { status, headers: callerResponseHeaders(res.rawHeaders) });
}
