/**
 * The HTTPS client of admission webhooks (and conversion webhooks): kept-alive
 * TLS connections pooled per endpoint and CA bundle (system roots when the
 * configuration has none), the certificate always verified (for a service,
 * against `<service>.<namespace>.svc`), the request written in one write with its
 * Content-Length, a deadline of the webhook's timeoutSeconds (one shared timer for
 * all calls), and a bounded response body. Failures are `WebhookCallError`s; the
 * dispatchers apply the failure policy to them.
 */
import type { Http1Response } from "./http1-response.ts";
import type { ClientConfig } from "./hook.ts";
import { DeadlineExceeded, TlsConnections, type TlsEndpoint } from "./tls-connections.ts";

/** The body of a webhook response is capped (the platform caps it too). */
const MAX_RESPONSE_BYTES = 3 * 1024 * 1024;
const MAX_CACHED_URLS = 1024;

export class WebhookCallError extends Error {
  constructor(
    message: string,
    /** HTTP status when the webhook answered. */
    readonly httpStatus?: number,
  ) {
    super(message);
  }
}

/** A request body already encoded as JSON text (sent as it is). */
export class EncodedJson {
  constructor(readonly text: string) {}
}

/** Where a service-backed webhook is reached: an endpoint address and port, and the name its certificate must carry. */
export interface ServiceEndpoint {
  host: string;
  port: number;
  servername: string;
}

export type ServiceResolver = (namespace: string, name: string, port: number) => Promise<ServiceEndpoint>;

/** Where one call goes: the URL (for messages), the endpoint, and the request's head up to its Content-Length. */
interface Target {
  url: URL;
  endpoint: TlsEndpoint;
  /** `POST <path> HTTP/1.1` and the fixed header lines, ending with `Content-Length: `. */
  head: string;
  /** How the URL is shown in messages (`Post "<shown>"`). */
  shown: string;
}

function requestHead(url: URL, host: string): string {
  return `POST ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: `;
}

function hostOf(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

export class WebhookClient {
  private readonly connections = new TlsConnections();
  /** Targets of configured URLs (with their timeout query) by URL and CA bundle; never modified once cached. */
  private readonly urls = new Map<string, Map<string, Target>>();

  constructor(private readonly resolveService: ServiceResolver) {}

  /** Where a call goes, with the `timeout` query the platform adds (synchronous for a URL). */
  target(cc: ClientConfig, timeoutSeconds: number): Target | Promise<Target> {
    const timeout = `timeout=${timeoutSeconds}s`;
    if (cc.url) {
      const key = `${cc.url} ${timeout}`;
      const ca = cc.caPem ?? "";
      let byUrl = this.urls.get(ca);
      if (!byUrl) {
        if (this.urls.size >= MAX_CACHED_URLS) this.urls.clear();
        byUrl = new Map();
        this.urls.set(ca, byUrl);
      }
      let t = byUrl.get(key);
      if (!t) {
        const url = new URL(cc.url);
        url.search = timeout;
        const endpoint: TlsEndpoint = { host: hostOf(url), port: url.port === "" ? 443 : Number(url.port), caPem: cc.caPem };
        t = { url, endpoint, head: requestHead(url, url.host), shown: url.toString() };
        if (byUrl.size >= MAX_CACHED_URLS) byUrl.clear();
        byUrl.set(key, t);
      }
      return t;
    }
    return this.serviceTarget(cc, timeout);
  }

  private async serviceTarget(cc: ClientConfig, timeout: string): Promise<Target> {
    const svc = cc.service;
    if (!svc) throw new WebhookCallError("no url or service in clientConfig");
    const ep = await this.resolveService(svc.namespace, svc.name, svc.port);
    const url = new URL(`https://${ep.host.includes(":") ? `[${ep.host}]` : ep.host}:${ep.port}`);
    url.pathname = svc.path ?? "/";
    url.search = timeout;
    const hostHeader = svc.port === 443 ? ep.servername : `${ep.servername}:${svc.port}`;
    const endpoint: TlsEndpoint = { host: ep.host, port: ep.port, servername: ep.servername, caPem: cc.caPem };
    return { url, endpoint, head: requestHead(url, hostHeader), shown: `https://${hostHeader}${url.pathname}${url.search}` };
  }

  /** POSTs the JSON body (a value, or its text as EncodedJson); resolves with the parsed JSON of a 2xx answer. */
  async post(cc: ClientConfig, timeoutSeconds: number, body: unknown): Promise<unknown> {
    const pending = this.target(cc, timeoutSeconds);
    const target = pending instanceof Promise ? await pending : pending;
    const payload = body instanceof EncodedJson ? body.text : JSON.stringify(body);
    const failed = (detail: string, status?: number) => new WebhookCallError(`failed to call webhook: Post "${target.shown}": ${detail}`, status);
    let res: Http1Response;
    try {
      res = await this.connections.exchange(target.endpoint, `${target.head}${Buffer.byteLength(payload)}\r\n\r\n${payload}`, timeoutSeconds * 1000, MAX_RESPONSE_BYTES);
    } catch (err) {
      if (err instanceof DeadlineExceeded) throw failed("context deadline exceeded");
      throw failed(err instanceof Error ? err.message : String(err));
    }
    const text = res.body.toString("utf8");
    if (res.status < 200 || res.status >= 300) throw failed(`the server responded with the status code ${res.status}${text ? `: ${text.slice(0, 256)}` : ""}`, res.status);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw failed(`the response is not JSON: ${JSON.stringify(text.slice(0, 128))}`, res.status);
    }
  }

  close(): void {
    this.connections.close();
  }
}
