/**
 * Connection timeouts of the HTTPS server, as the platform's secure serving sets
 * them: request headers within 32 s (the TLS handshake has the same bound, see
 * tls-options.ts), idle keep-alive connections closed after 90 s. Expired
 * connections are looked for every 2 s (node's default, 30 s, would stretch the
 * header bound to about a minute). Request bodies are bounded by the request
 * deadline (filters/with-timeout.ts); node's whole-request timeout (5 min) stays as
 * an outer bound.
 */
import type { ServerOptions } from "node:https";

export const HEADERS_TIMEOUT_MS = 32_000;
export const KEEP_ALIVE_TIMEOUT_MS = 90_000;
export const CONNECTIONS_CHECKING_INTERVAL_MS = 2_000;

export const SERVER_TIMEOUT_OPTIONS: Pick<ServerOptions, "headersTimeout" | "keepAliveTimeout" | "connectionsCheckingInterval"> = {
  headersTimeout: HEADERS_TIMEOUT_MS,
  keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
  connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
};
