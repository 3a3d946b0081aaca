/**
 * HTTPS transport over node:https: one keep-alive agent per client (connections are
 * reused across requests), the CA from the configuration (or no verification with
 * insecure-skip-tls-verify), a client certificate or a bearer token (a token file is
 * re-read when its modification time changes). Non-2xx answers become `StatusError`s
 * carrying the server's Status (or one synthesized from the code); transport failures
 * become a `StatusError` with code 0 and reason `InternalError`.
 */
import { statSync, readFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { Agent, request as httpsRequest } from "node:https";
import { createSecureContext } from "node:tls";
import { StatusError, type Status, type StatusReason } from "../api/status.ts";
import type { ClientConfig } from "./kubeconfig.ts";

export interface RawResponse {
  status: number;
  body: Buffer;
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

export class HttpsTransport {
  readonly base: URL;
  private readonly agent: Agent;
  private tokenCache: { mtimeMs: number; token: string } | undefined;

  constructor(private readonly config: ClientConfig) {
    this.base = new URL(config.server);
    // One secure context for every connection: the CA, certificate and key are parsed once.
    this.agent = new Agent({
      keepAlive: true,
      maxSockets: Infinity,
      secureContext: createSecureContext({ ca: config.ca, cert: config.cert, key: config.key }),
      rejectUnauthorized: !config.insecureSkipTlsVerify,
    });
  }

  private token(): string | undefined {
    if (this.config.token) return this.config.token;
    const file = this.config.tokenFile;
    if (!file) return undefined;
    const mtimeMs = statSync(file).mtimeMs;
    if (!this.tokenCache || this.tokenCache.mtimeMs !== mtimeMs) this.tokenCache = { mtimeMs, token: readFileSync(file, "utf8").trim() };
    return this.tokenCache.token;
  }

  /** Starts a request; the response is handed over unread (watch streams read it incrementally). */
  open(method: string, pathAndQuery: string, body?: { contentType: string; data: string }, accept = "application/json"): { response: Promise<IncomingMessage>; abort: () => void } {
    const headers: Record<string, string> = { accept };
    let token: string | undefined;
    try {
      token = this.token();
    } catch (err) {
      return { response: Promise.reject(transportError(err)), abort: () => {} };
    }
    if (token) headers.authorization = `Bearer ${token}`;
    if (body) {
      headers["content-type"] = body.contentType;
      headers["content-length"] = String(Buffer.byteLength(body.data));
    }
    const url = new URL(pathAndQuery, this.base);
    const req = httpsRequest(url, { method, headers, agent: this.agent });
    const response = new Promise<IncomingMessage>((resolve, reject) => {
      req.once("response", resolve);
      req.once("error", (err) => reject(transportError(err)));
    });
    if (body) req.write(body.data);
    req.end();
    return { response, abort: () => req.destroy() };
  }

  /** A whole request; one retry (not for POST) of a request that failed on a reused keep-alive connection. */
  async send(method: string, pathAndQuery: string, body?: { contentType: string; data: string }): Promise<RawResponse> {
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await this.open(method, pathAndQuery, body).response;
        const chunks: Buffer[] = [];
        for await (const c of res) chunks.push(c as Buffer);
        return { status: res.statusCode ?? 0, body: Buffer.concat(chunks) };
      } catch (err) {
        const reset = err instanceof StatusError && err.code === 0 && /ECONNRESET|socket hang up/.test(err.message);
        if (attempt === 0 && reset && method !== "POST") continue;
        throw err instanceof StatusError ? err : transportError(err);
      }
    }
  }

  /** A JSON request; a non-2xx answer throws its Status. */
  async json(method: string, pathAndQuery: string, body?: { contentType: string; data: string }): Promise<unknown> {
    const res = await this.send(method, pathAndQuery, body);
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
