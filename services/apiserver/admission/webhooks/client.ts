/**
 * The HTTPS client of admission webhooks: one keep-alive agent per CA bundle
 * (system roots when the configuration has none), the certificate always
 * verified (for a service, against `<service>.<namespace>.svc`), a deadline of the
 * webhook's timeoutSeconds, and a bounded response body. Failures are
 * `WebhookCallError`s; the dispatchers apply the failure policy to them.
 */
import { Agent, request } from "node:https";
import type { ClientConfig } from "./hook.ts";

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

export class WebhookClient {
  private readonly agents = new Map<string, Agent>();
  /** Parsed webhook URLs (with their timeout query) by configured URL; never modified once cached. */
  private readonly urls = new Map<string, URL>();

  constructor(private readonly resolveService: ServiceResolver) {}

  private agent(caPem: string | undefined): Agent {
    const key = caPem ?? "";
    let a = this.agents.get(key);
    if (!a) {
      a = new Agent({ keepAlive: true, maxSockets: 64, ca: caPem, rejectUnauthorized: true });
      this.agents.set(key, a);
    }
    return a;
  }

  /** The URL the request goes to (for messages), with the `timeout` query the platform adds. */
  async target(cc: ClientConfig, timeoutSeconds: number): Promise<{ url: URL; servername?: string; hostHeader?: string }> {
    const timeout = `timeout=${timeoutSeconds}s`;
    if (cc.url) {
      const key = `${cc.url} ${timeout}`;
      let url = this.urls.get(key);
      if (!url) {
        url = new URL(cc.url);
        url.search = timeout;
        if (this.urls.size >= MAX_CACHED_URLS) this.urls.clear();
        this.urls.set(key, url);
      }
      return { url };
    }
    const svc = cc.service;
    if (!svc) throw new WebhookCallError("no url or service in clientConfig");
    const ep = await this.resolveService(svc.namespace, svc.name, svc.port);
    const url = new URL(`https://${ep.host.includes(":") ? `[${ep.host}]` : ep.host}:${ep.port}`);
    url.pathname = svc.path ?? "/";
    url.search = timeout;
    return { url, servername: ep.servername, hostHeader: svc.port === 443 ? ep.servername : `${ep.servername}:${svc.port}` };
  }

  /** POSTs the JSON body (a value, or its text as EncodedJson); resolves with the parsed JSON of a 200 answer. */
  async post(cc: ClientConfig, timeoutSeconds: number, body: unknown): Promise<unknown> {
    const { url, servername, hostHeader } = await this.target(cc, timeoutSeconds);
    // Text, not a Buffer copy of it: the request's first write then carries the headers and the body together.
    const payload = body instanceof EncodedJson ? body.text : JSON.stringify(body);
    const shown = `failed to call webhook: Post "${cc.url ? url.toString() : `https://${hostHeader ?? url.host}${url.pathname}${url.search}`}"`;
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (err: WebhookCallError) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(err);
      };
      const req = request(
        url,
        {
          method: "POST",
          agent: this.agent(cc.caPem),
          servername,
          headers: { "content-type": "application/json", accept: "application/json", "content-length": Buffer.byteLength(payload), ...(hostHeader ? { host: hostHeader } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (c: Buffer) => {
            size += c.length;
            if (size > MAX_RESPONSE_BYTES) {
              req.destroy();
              fail(new WebhookCallError(`${shown}: response body larger than ${MAX_RESPONSE_BYTES} bytes`));
              return;
            }
            chunks.push(c);
          });
          res.on("error", (err) => fail(new WebhookCallError(`${shown}: ${err.message}`)));
          res.on("end", () => {
            if (settled) return;
            const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString("utf8");
            const status = res.statusCode ?? 0;
            if (status < 200 || status >= 300) {
              fail(new WebhookCallError(`${shown}: the server responded with the status code ${status}${text ? `: ${text.slice(0, 256)}` : ""}`, status));
              return;
            }
            try {
              const parsed: unknown = JSON.parse(text);
              settled = true;
              clearTimeout(timer);
              resolve(parsed);
            } catch {
              fail(new WebhookCallError(`${shown}: the response is not JSON: ${JSON.stringify(text.slice(0, 128))}`, status));
            }
          });
        },
      );
      const timer = setTimeout(() => {
        fail(new WebhookCallError(`${shown}: context deadline exceeded`));
        req.destroy();
      }, timeoutSeconds * 1000);
      req.on("error", (err) => fail(new WebhookCallError(`${shown}: ${err.message}`)));
      req.setNoDelay(true);
      req.end(payload);
    });
  }

  close(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }
}
