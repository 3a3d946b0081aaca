/** A small HTTPS client for tests: client certificate, CA pinning, JSON helpers and streamed watches. */
import { request as httpsRequest, Agent } from "node:https";
import type { IncomingHttpHeaders } from "node:http";

export interface ClientIdentity {
  ca: string;
  cert?: string;
  key?: string;
  token?: string;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

export class HttpsClient {
  private readonly agent: Agent;
  /** Watches use their own connections: a long-lived stream never lands on a stale keep-alive socket. */
  private readonly watchAgent: Agent;

  constructor(
    readonly baseUrl: string,
    private readonly id: ClientIdentity,
  ) {
    this.agent = new Agent({ ca: id.ca, cert: id.cert, key: id.key, keepAlive: true, maxSockets: Infinity });
    this.watchAgent = new Agent({ ca: id.ca, cert: id.cert, key: id.key, keepAlive: false, maxSockets: Infinity });
  }

  withIdentity(id: Partial<ClientIdentity>): HttpsClient {
    return new HttpsClient(this.baseUrl, { ...this.id, ...id });
  }

  request(method: string, path: string, opts: { body?: unknown; headers?: Record<string, string>; raw?: Buffer | string } = {}): Promise<HttpResponse> {
    const url = new URL(path, this.baseUrl);
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    let payload: Buffer | undefined;
    if (opts.raw !== undefined) payload = Buffer.isBuffer(opts.raw) ? opts.raw : Buffer.from(opts.raw);
    else if (opts.body !== undefined) {
      payload = Buffer.from(JSON.stringify(opts.body));
      headers["content-type"] ??= "application/json";
    }
    if (this.id.token) headers.authorization = `Bearer ${this.id.token}`;
    return new Promise((resolve, reject) => {
      const req = httpsRequest(url, { method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const body = Buffer.concat(chunks);
          const text = body.toString("utf8");
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text, json: <T>() => JSON.parse(text) as T });
        });
        res.on("error", reject);
      });
      req.on("error", reject);
      if (payload) req.write(payload);
      req.end();
    });
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request("GET", path, { headers });
  }
  post(path: string, body: unknown, headers?: Record<string, string>) {
    return this.request("POST", path, { body, headers });
  }
  put(path: string, body: unknown, headers?: Record<string, string>) {
    return this.request("PUT", path, { body, headers });
  }
  patch(path: string, body: unknown, contentType: string) {
    return this.request("PATCH", path, { raw: typeof body === "string" ? body : JSON.stringify(body), headers: { "content-type": contentType } });
  }
  delete(path: string, body?: unknown) {
    return this.request("DELETE", path, { body });
  }

  /** Opens a watch and yields parsed events until stopped. */
  watch(path: string): WatchStream {
    const url = new URL(path, this.baseUrl);
    const events: Array<{ type: string; object: Record<string, unknown> }> = [];
    const arrivals: number[] = [];
    let waiter: (() => void) | undefined;
    let ended = false;
    let status = 0;
    const headers: Record<string, string> = {};
    if (this.id.token) headers.authorization = `Bearer ${this.id.token}`;
    const req = httpsRequest(url, { method: "GET", agent: this.watchAgent, headers }, (res) => {
      status = res.statusCode ?? 0;
      let buf = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (line) {
            events.push(JSON.parse(line) as { type: string; object: Record<string, unknown> });
            arrivals.push(Date.now());
          }
        }
        waiter?.();
      });
      res.on("end", () => {
        ended = true;
        waiter?.();
      });
    });
    req.on("error", () => {
      ended = true;
      waiter?.();
    });
    req.end();
    return {
      events,
      arrivals,
      get status() {
        return status;
      },
      get ended() {
        return ended;
      },
      async waitFor(n: number, timeoutMs = 10_000) {
        const deadline = Date.now() + timeoutMs;
        while (events.length < n && !ended && Date.now() < deadline) {
          await new Promise<void>((resolve) => {
            waiter = resolve;
            setTimeout(resolve, 100);
          });
        }
        return events.slice(0, n);
      },
      stop() {
        req.destroy();
      },
    };
  }

  close(): void {
    this.agent.destroy();
    this.watchAgent.destroy();
  }
}

export interface WatchStream {
  events: Array<{ type: string; object: Record<string, unknown> }>;
  /** Arrival time (ms) of each event, same order as `events`. */
  arrivals: number[];
  readonly status: number;
  readonly ended: boolean;
  waitFor(n: number, timeoutMs?: number): Promise<Array<{ type: string; object: Record<string, unknown> }>>;
  stop(): void;
}
