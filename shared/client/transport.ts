/**
 * HTTPS transport over node:https: one keep-alive agent per client (connections are
 * reused across requests), the CA from the configuration (or no verification with
 * insecure-skip-tls-verify), a client certificate or a bearer token (a token file is
 * re-read when its modification time changes), an optional `http://` proxy (CONNECT).
 * Non-2xx answers become `StatusError`s carrying the server's Status (or one
 * synthesized from the code); transport failures become a `StatusError` with code 0 and
 * reason `InternalError`.
 *
 * Auth hook: a `CredentialProvider` (the exec plugin) supplies a token or a client
 * certificate per request when the configuration has no token of its own. A 401 tells
 * the provider to forget that credential, and a whole request (`send`/`json`) is sent
 * once more with a fresh one. A client certificate different from the one the current
 * connections use replaces the agent, so the next request makes a new TLS handshake.
 *
 * Retries (as the platform's Go client): an answer 429, or 5xx, carrying `Retry-After:
 * <seconds>` is sent again after that many seconds, up to `maxRetries` times (default 10),
 * whatever the verb: the server asked for it. A GET whose connection broke (reset, EOF)
 * is sent again after 1 s the same way; other verbs are not, as they may have been applied.
 */
import { statSync, readFileSync } from "node:fs";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { Agent, request as httpsRequest, type AgentOptions } from "node:https";
import type { Duplex } from "node:stream";
import { connect as tlsConnect, createSecureContext, type ConnectionOptions } from "node:tls";
import { StatusError, type Status, type StatusReason } from "../api/status.ts";
import type { ClientConfig } from "./kubeconfig.ts";
import { withOwn } from "../schema/values.ts";

export interface RawResponse {
  status: number;
  body: Buffer;
  /** The answer's Content-Type header. */
  contentType?: string;
}

const REASONS: Record<number, StatusReason> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "Conflict",
  410: "Expired",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

function isStatus(v: unknown): v is Status {
  return !!v && typeof v === "object" && (v as { kind?: unknown }).kind === "Status" && typeof (v as { code?: unknown }).code === "number";
}

/** The error of a failed answer: the server's Status when it sent one. */
export function errorFromResponse(code: number, body: Buffer): StatusError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    parsed = undefined;
  }
  if (isStatus(parsed)) return new StatusError(parsed);
  const text = body.toString("utf8").trim().slice(0, 200);
  return new StatusError({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", code, reason: REASONS[code] ?? "", message: text || `the server answered ${code}` });
}

export function transportError(err: unknown): StatusError {
  const msg = err instanceof Error ? err.message : String(err);
  return new StatusError({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", code: 0, reason: "InternalError", message: `request failed: ${msg}` });
}

/** A credential provider could not supply a credential (a plugin failed): one clear line. */
export class CredentialError extends Error {
  override name = "CredentialError";
}

/** A credential for one request. */
export interface Credential {
  token?: string;
  cert?: string;
  key?: string;
}

/** Supplies credentials that may change over time (exec plugins). */
export interface CredentialProvider {
  credential(): Promise<Credential>;
  /** A 401 answered a request sent with `used`: the next `credential()` must not return it again. */
  unauthorized(used: Credential): void;
}

export interface TransportOptions {
  credentials?: CredentialProvider;
  /** Called with the text of each `Warning` header (`299 - "text"`) of every answer. */
  onWarning?: (text: string) => void;
  /** Most retries of one request after Retry-After answers or broken GETs (the platform's default: 10). */
  maxRetries?: number;
  /** Told of each retry before its wait. */
  onRetry?: (retry: RetryNotice) => void;
  /** Told of each whole answer (`send`): its code and Content-Type. */
  onResponse?: (answer: { method: string; path: string; status: number; contentType?: string; requestContentType?: string }) => void;
}

export const DEFAULT_MAX_RETRIES = 10;

/** One retry: which attempt comes next, after how long, and why. */
export interface RetryNotice {
  attempt: number;
  waitMs: number;
  method: string;
  path: string;
  /** The answer's code, or 0 for a broken connection. */
  status: number;
}

/** The seconds of a `Retry-After` header when the answer may be retried after it (429 or 5xx), else undefined. */
export function retryAfterSeconds(status: number, header: string | string[] | undefined): number | undefined {
  if (status !== 429 && status < 500) return undefined;
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

const BROKEN_CONNECTION = /ECONNRESET|socket hang up|EPIPE|unexpected EOF|\bEOF\b/;

/** The texts of `Warning` header values (`<code> <agent> "<text>"`, comma separated). */
export function warningTexts(header: string | string[] | undefined): string[] {
  const values = header === undefined ? [] : Array.isArray(header) ? header : [header];
  const out: string[] = [];
  for (const v of values) {
    const re = /\d{3}\s+\S+\s+"((?:[^"\\]|\\.)*)"/g;
    let m: RegExpExecArray | null;
    while ((m = re.exec(v)) !== null) out.push(m[1].replace(/\\(.)/g, "$1"));
  }
  return out;
}

type ConnectCallback = (err: Error | null, socket?: Duplex) => void;

/** An https agent whose connections are tunnelled through an http proxy with CONNECT. */
class ProxyAgent extends Agent {
  constructor(
    private readonly proxy: URL,
    opts: AgentOptions,
  ) {
    super(opts);
  }

  override createConnection(options: ConnectionOptions & { host?: string; port?: number }, done: ConnectCallback): undefined {
    const target = `${options.host ?? "localhost"}:${options.port ?? 443}`;
    const headers: Record<string, string> = { host: target };
    if (this.proxy.username) headers["proxy-authorization"] = `Basic ${Buffer.from(`${decodeURIComponent(this.proxy.username)}:${decodeURIComponent(this.proxy.password)}`).toString("base64")}`;
    const req = httpRequest({ host: this.proxy.hostname, port: this.proxy.port || 80, method: "CONNECT", path: target, headers });
    req.once("connect", (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        done(new Error(`proxy ${this.proxy.host} refused CONNECT ${target}: ${res.statusCode}`));
        return;
      }
      done(null, tlsConnect({ ...options, socket }));
    });
    req.once("error", (err) => done(new Error(`proxy ${this.proxy.host}: ${err.message}`)));
    req.end();
    return undefined;
  }
}

/**
 * A path and query that URL resolution against the base would leave as they are:
 * absolute, only characters it never escapes or rewrites, no dot segment.
 */
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@/?%]*$/;

export function plainPath(pathAndQuery: string): boolean {
  return PLAIN_PATH.test(pathAndQuery) && !pathAndQuery.includes("/.");
}

/**
 * The whole body of an answer, read with listeners (an async iterator costs a stream
 * helper and several promises per request). Fails as iterating would: with the stream's
 * error, or "Premature close" when it closes before its end.
 */
function readBody(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let ended = false;
    res.on("data", (c: Buffer) => chunks.push(c));
    res.once("end", () => {
      ended = true;
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    res.once("error", reject);
    res.once("close", () => {
      if (!ended) reject(new Error("Premature close"));
    });
  });
}

export class HttpsTransport {
  readonly base: URL;
  /** The server's address as request options, taken from `base` once (no URL parse per request). */
  private readonly target: { protocol: string; hostname: string; port?: number };
  private agent: Agent;
  private agentCert: string | undefined;
  private tokenCache: { mtimeMs: number; token: string } | undefined;
  private readonly credentials: CredentialProvider | undefined;
  private readonly onWarning: ((text: string) => void) | undefined;
  private readonly maxRetries: number;
  private readonly onRetry: ((retry: RetryNotice) => void) | undefined;
  private readonly onResponse: TransportOptions["onResponse"];

  constructor(
    private readonly config: ClientConfig,
    opts: TransportOptions = {},
  ) {
    this.base = new URL(config.server);
    const host = this.base.hostname;
    this.target = { protocol: this.base.protocol, hostname: host.startsWith("[") ? host.slice(1, -1) : host, port: this.base.port ? Number(this.base.port) : undefined };
    // A token or certificate of the configuration's own takes precedence over a plugin, as in the platform's clients.
    this.credentials = config.token || config.tokenFile || config.cert ? undefined : opts.credentials;
    this.onWarning = opts.onWarning;
    this.maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.onRetry = opts.onRetry;
    this.onResponse = opts.onResponse;
    this.agent = this.makeAgent(config.cert, config.key);
    this.agentCert = config.cert;
  }

  /** One secure context for every connection of an agent: the CA, certificate and key are parsed once. */
  private makeAgent(cert: string | undefined, key: string | undefined): Agent {
    const opts: AgentOptions = {
      keepAlive: true,
      maxSockets: Infinity,
      secureContext: createSecureContext({ ca: this.config.ca, cert, key }),
      rejectUnauthorized: !this.config.insecureSkipTlsVerify,
      servername: this.config.tlsServerName,
    };
    return this.config.proxyUrl ? new ProxyAgent(new URL(this.config.proxyUrl), opts) : new Agent(opts);
  }

  private staticToken(): string | undefined {
    const file = this.config.tokenFile;
    if (file) {
      const mtimeMs = statSync(file).mtimeMs;
      if (!this.tokenCache || this.tokenCache.mtimeMs !== mtimeMs) this.tokenCache = { mtimeMs, token: readFileSync(file, "utf8").trim() };
      return this.tokenCache.token;
    }
    return this.config.token;
  }

  /** The credential of the next request; a changed client certificate gets a fresh agent. */
  private async credential(): Promise<Credential> {
    if (!this.credentials) return { token: this.staticToken() };
    const c = await this.credentials.credential();
    if (c.cert && c.cert !== this.agentCert) {
      const old = this.agent;
      this.agent = this.makeAgent(c.cert, c.key);
      this.agentCert = c.cert;
      old.destroy();
    }
    return c;
  }

  /** Starts a request; the response is handed over unread (watch streams read it incrementally). */
  open(method: string, pathAndQuery: string, body?: { contentType: string; data: string | Buffer }, accept = "application/json"): { response: Promise<IncomingMessage>; abort: () => void } {
    let aborted = false;
    let req: ReturnType<typeof httpsRequest> | undefined;
    const response = this.start(method, pathAndQuery, body, accept, (r) => {
      req = r;
      if (aborted) r.destroy();
    }).then(({ res }) => res);
    return {
      response,
      abort: () => {
        aborted = true;
        req?.destroy();
      },
    };
  }

  private async start(
    method: string,
    pathAndQuery: string,
    body: { contentType: string; data: string | Buffer } | undefined,
    accept: string,
    onRequest: (r: ReturnType<typeof httpsRequest>) => void,
  ): Promise<{ res: IncomingMessage; used: Credential }> {
    const headers: Record<string, string> = { accept };
    // A credential provider's failure (a plugin that cannot run) is reported as it is: one clear line.
    const used = await this.credential();
    if (used.token) headers.authorization = `Bearer ${used.token}`;
    if (body) {
      headers["content-type"] = body.contentType;
      headers["content-length"] = String(Buffer.byteLength(body.data));
    }
    // A plain absolute path is sent as it is, to the base's host; anything else is resolved against the base URL (and escaped) first.
    const req = plainPath(pathAndQuery)
      ? httpsRequest(withOwn(this.target, { path: pathAndQuery, method, headers, agent: this.agent }))
      : httpsRequest(new URL(pathAndQuery, this.base), { method, headers, agent: this.agent });
    const res = new Promise<IncomingMessage>((resolve, reject) => {
      req.once("response", resolve);
      req.once("error", (err) => reject(transportError(err)));
    });
    onRequest(req);
    if (body) req.write(body.data);
    req.end();
    const answer = await res;
    if (this.onWarning) for (const w of warningTexts(answer.headers.warning)) this.onWarning(w);
    if (answer.statusCode === 401 && this.credentials) this.credentials.unauthorized(used);
    return { res: answer, used };
  }

  /** Waits before attempt `attempt` when retries are left; false when they are not. */
  private async retryAfter(attempt: number, seconds: number, method: string, path: string, status: number): Promise<boolean> {
    if (attempt > this.maxRetries) return false;
    const waitMs = seconds * 1000;
    this.onRetry?.({ attempt, waitMs, method, path, status });
    if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
    return true;
  }

  /**
   * A whole request. One immediate retry (not for POST) of a request that failed on a
   * reused keep-alive connection; one retry of a 401 when a credential provider can give
   * a new credential; retries after Retry-After answers and broken GETs (see above).
   */
  async send(method: string, pathAndQuery: string, body?: { contentType: string; data: string | Buffer }, accept = "application/json"): Promise<RawResponse> {
    let resetRetried = false;
    let unauthorizedRetried = false;
    let retries = 0;
    for (;;) {
      try {
        const { res } = await this.start(method, pathAndQuery, body, accept, () => {});
        const received = await readBody(res);
        const status = res.statusCode ?? 0;
        if (status === 401 && this.credentials && !unauthorizedRetried) {
          unauthorizedRetried = true;
          continue;
        }
        const wait = retryAfterSeconds(status, res.headers["retry-after"]);
        if (wait !== undefined && (await this.retryAfter(++retries, wait, method, pathAndQuery, status))) continue;
        const contentType = res.headers["content-type"];
        this.onResponse?.({ method, path: pathAndQuery, status, contentType, requestContentType: body?.contentType });
        return { status, body: received, contentType };
      } catch (err) {
        const broken = err instanceof StatusError && err.code === 0 && BROKEN_CONNECTION.test(err.message);
        if (!resetRetried && broken && method !== "POST") {
          resetRetried = true;
          continue;
        }
        if (broken && method === "GET" && (await this.retryAfter(++retries, 1, method, pathAndQuery, 0))) continue;
        throw err instanceof StatusError || err instanceof CredentialError ? err : transportError(err);
      }
    }
  }

  /** A JSON request; a non-2xx answer throws its Status. */
  async json(method: string, pathAndQuery: string, body?: { contentType: string; data: string | Buffer }, accept = "application/json"): Promise<unknown> {
    const res = await this.send(method, pathAndQuery, body, accept);
    if (res.status < 200 || res.status >= 300) throw errorFromResponse(res.status, res.body);
    try {
      return JSON.parse(res.body.toString("utf8"));
    } catch {
      throw transportError(new Error(`${method} ${pathAndQuery}: the answer is not JSON`));
    }
  }

  close(): void {
    this.agent.destroy();
  }
}
