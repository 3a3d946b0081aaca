/**
 * Connection timeouts of the HTTPS server, as the platform's secure serving sets
 * them: request headers within 32 s (the TLS handshake has the same bound, see
 * tls-options.ts), idle keep-alive connections closed after 90 s. Request bodies are
 * bounded by the request deadline (filters/with-timeout.ts), not here; node's
 * whole-request timeout stays as an outer bound for long-running uploads.
 */
import type { ServerType } from "@hono/node-server";

export const HEADERS_TIMEOUT_MS = 32_000;
export const KEEP_ALIVE_TIMEOUT_MS = 90_000;

export function applyServerTimeouts(server: ServerType): void {
  const s = server as ServerType & { headersTimeout?: number; keepAliveTimeout?: number; requestTimeout?: number };
  s.headersTimeout = HEADERS_TIMEOUT_MS;
  s.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
}
