/**
 * HTTPS to aggregated API servers: one keep-alive agent per trust setting (the
 * APIService's `caBundle`, system roots without one, or no verification with
 * `insecureSkipTLSVerify`), presenting the proxy client certificate
 * (--proxy-client-cert-file/--proxy-client-key-file) when configured; the backend's
 * certificate is verified for `<service>.<namespace>.svc`.
 *
 * `forward` sends a request with the front-proxy identity headers (`identityHeaders`)
 * in place of the client's credentials and streams the answer back (a watch passes
 * through as it comes). Connection failures reject with the socket's error.
 */
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { Agent, request } from "node:https";
import { Readable } from "node:stream";
import type { UserInfo } from "../endpoints/scope.ts";
import type { ApiServiceInfo } from "./api-service.ts";
import type { Endpoint } from "./endpoint.ts";

/** Names of the front-proxy headers (the first of each --requestheader-* list, or the platform's defaults). */
export interface FrontProxyHeaders {
  user: string;
  uid: string;
  group: string;
  extraPrefix: string;
}

export const DEFAULT_FRONT_PROXY_HEADERS: FrontProxyHeaders = { user: "X-Remote-User", uid: "X-Remote-Uid", group: "X-Remote-Group", extraPrefix: "X-Remote-Extra-" };

export interface ProxyClientCertificate {
  certPem: string;
  keyPem: string;
}

/** Header lines that belong to one connection and are never forwarded. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade", "host"]);

/** A header name carrying an extra key: characters a header name cannot hold are percent-encoded. */
function extraHeaderKey(key: string): string {
  return key.replace(/[^A-Za-z0-9!#$&'*+\-.^_`|~]/g, (c) => [...Buffer.from(c, "utf8")].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join(""));
}

/** The identity of `user` as front-proxy headers (one line per group and per extra value). */
export function identityHeaders(user: UserInfo, names: FrontProxyHeaders): Array<[string, string]> {
  const out: Array<[string, string]> = [[names.user, user.username]];
  if (user.uid) out.push([names.uid, user.uid]);
  for (const g of user.groups) out.push([names.group, g]);
  for (const [k, values] of Object.entries(user.extra ?? {})) for (const v of values) out.push([`${names.extraPrefix}${extraHeaderKey(k)}`, v]);
  return out;
}

/** True for a header a client may not pass to the backend: credentials, impersonation and any front-proxy header. */
function stripped(lower: string, names: FrontProxyHeaders): boolean {
  if (HOP_BY_HOP.has(lower) || lower === "authorization" || lower.startsWith("impersonate-")) return true;
  return lower === names.user.toLowerCase() || lower === names.uid.toLowerCase() || lower === names.group.toLowerCase() || lower.startsWith(names.extraPrefix.toLowerCase());
}

export class BackendClient {
  private readonly agents = new Map<string, Agent>();

  constructor(
    private readonly clientCert: ProxyClientCertificate | undefined,
    readonly headerNames: FrontProxyHeaders = DEFAULT_FRONT_PROXY_HEADERS,
  ) {}

  private agent(svc: ApiServiceInfo): Agent {
    const key = svc.insecureSkipTLSVerify ? "insecure" : `ca:${svc.caPem ?? ""}`;
    let a = this.agents.get(key);
    if (!a) {
      a = new Agent({ keepAlive: true, maxSockets: 256, ca: svc.insecureSkipTLSVerify ? undefined : svc.caPem, rejectUnauthorized: !svc.insecureSkipTLSVerify, cert: this.clientCert?.certPem, key: this.clientCert?.keyPem });
      this.agents.set(key, a);
    }
    return a;
  }

  /** Sends `method path` to the endpoint as `user`; resolves with the backend's answer (headers received, body streaming). */
  send(svc: ApiServiceInfo, ep: Endpoint, method: string, pathAndQuery: string, user: UserInfo, headers: Iterable<[string, string]>, body?: Readable, timeoutMs?: number): Promise<IncomingMessage> {
    const names = this.headerNames;
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of headers) {
      const lower = k.toLowerCase();
      if (!stripped(lower, names)) out[lower] = v;
    }
    for (const [k, v] of identityHeaders(user, names)) {
      const prev = out[k];
      out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
    out.host = ep.port === 443 ? ep.servername : `${ep.servername}:${ep.port}`;
    return new Promise((resolve, reject) => {
      const req = request({ host: ep.host, port: ep.port, servername: ep.servername, method, path: pathAndQuery, headers: out, agent: this.agent(svc) }, resolve);
      req.on("error", reject);
      if (timeoutMs) req.setTimeout(timeoutMs, () => req.destroy(new Error("context deadline exceeded")));
      if (body) body.on("error", (err) => req.destroy(err)).pipe(req);
      else req.end();
    });
  }

  close(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }
}

/** The backend's answer as a web Response (hop-by-hop headers dropped, body streamed). */
export function toResponse(res: IncomingMessage): Response {
  const headers = new Headers();
  const raw: IncomingHttpHeaders = res.headers;
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined || HOP_BY_HOP.has(k)) continue;
    for (const value of Array.isArray(v) ? v : [v]) headers.append(k, value);
  }
  const status = res.statusCode ?? 502;
  const bodyless = status === 204 || status === 304;
  if (bodyless) res.resume();
  return new Response(bodyless ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, headers });
}
