/**
 * The apiserver's TLS flags: the shared parsing of `--tls-min-version` and
 * `--tls-cipher-suites` (shared/tls/options.ts), re-exported for the server's
 * own modules.
 */
export { CIPHER_SUITES, DEFAULT_CIPHER_SUITES, HANDSHAKE_TIMEOUT_MS, TLS_VERSIONS, tlsServerOptions, type TlsFlags } from "../../../shared/tls/options.ts";
