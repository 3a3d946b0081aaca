/**
 * A small HTTPS client for the server's outbound calls (OIDC discovery and
 * keys, the token webhook): a custom CA bundle and client certificate, a
 * timeout and a response size limit. Plain http is refused.
 */
import { request } from "node:https";

export interface HttpsRequest {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** PEM CA bundle; default: the host's roots. */
  ca?: string;
  /** PEM client certificate and key. */
  cert?: string;
  key?: string;
  timeoutMs?: number;
  maxBytes?: number;
}

export interface HttpsResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BYTES = 1 << 20;

export function httpsRequest(r: HttpsRequest): Promise<HttpsResponse> {
  return new Promise((resolve, reject) => {
    let u: URL;
    try {
      u = new URL(r.url);
    } catch {
      reject(new Error("invalid URL"));
      return;
    }
    if (u.protocol !== "https:") {
      reject(new Error(`refusing ${u.protocol.replace(/:$/, "")} URL: https is required`));
      return;
    }
    const max = r.maxBytes ?? DEFAULT_MAX_BYTES;
    const req = request(
      u,
      {
        method: r.method ?? "GET",
        headers: { accept: "application/json", ...(r.headers ?? {}), ...(r.body !== undefined ? { "content-length": String(Buffer.byteLength(r.body)) } : {}) },
        ca: r.ca,
        cert: r.cert,
        key: r.key,
        timeout: r.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size > max) {
            req.destroy(new Error(`response from ${u.host} exceeds ${max} bytes`));
            return;
          }
          chunks.push(c);
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`request to ${u.host} timed out`)));
    req.on("error", reject);
    if (r.body !== undefined) req.write(r.body);
    req.end();
  });
}

/** GET a JSON document; non-2xx or non-JSON answers are errors that name the host and status only. */
export async function getJson(url: string, ca?: string, timeoutMs?: number): Promise<unknown> {
  const res = await httpsRequest({ url, ca, timeoutMs });
  if (res.status < 200 || res.status > 299) throw new Error(`GET ${url}: status ${res.status}`);
  try {
    return JSON.parse(res.body.toString("utf8"));
  } catch {
    throw new Error(`GET ${url}: response is not JSON`);
  }
}
