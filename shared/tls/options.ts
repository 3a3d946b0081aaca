/**
 * `--tls-min-version` and `--tls-cipher-suites` with the platform's names (Go's
 * `VersionTLS12` and IANA suite names) mapped to node's TLS options, for every
 * service that serves TLS. Without `--tls-cipher-suites` the server offers the
 * platform's default set: ECDHE with AES-GCM, ChaCha20-Poly1305 and AES-CBC-SHA (no
 * RSA key exchange, no CBC-SHA256/384, CCM, CCM8 or ARIA). TLS 1.3 suites are not
 * configurable (as on the platform) and are always offered. Unknown names are
 * start-up errors (`tlsServerOptions` throws an Error naming the value). Pure: no I/O.
 */
import type { SecureContextOptions, TlsOptions } from "node:tls";
import type { FlagSpec, FlagValues } from "../cli/flags.ts";

export const TLS_VERSIONS: Readonly<Record<string, NonNullable<SecureContextOptions["minVersion"]>>> = {
  VersionTLS10: "TLSv1",
  VersionTLS11: "TLSv1.1",
  VersionTLS12: "TLSv1.2",
  VersionTLS13: "TLSv1.3",
};

/** IANA names the platform accepts (secure and insecure), with their OpenSSL names; TLS 1.3 suites map to themselves. */
export const CIPHER_SUITES: Readonly<Record<string, string>> = {
  TLS_RSA_WITH_AES_128_CBC_SHA: "AES128-SHA",
  TLS_RSA_WITH_AES_256_CBC_SHA: "AES256-SHA",
  TLS_RSA_WITH_AES_128_GCM_SHA256: "AES128-GCM-SHA256",
  TLS_RSA_WITH_AES_256_GCM_SHA384: "AES256-GCM-SHA384",
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: "ECDHE-ECDSA-AES128-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: "ECDHE-ECDSA-AES256-SHA",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: "ECDHE-RSA-AES128-SHA",
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: "ECDHE-RSA-AES256-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: "ECDHE-ECDSA-AES128-GCM-SHA256",
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: "ECDHE-RSA-AES128-GCM-SHA256",
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: "ECDHE-ECDSA-AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: "ECDHE-RSA-AES256-GCM-SHA384",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: "ECDHE-RSA-CHACHA20-POLY1305",
  // insecure, accepted by name as the platform does
  TLS_RSA_WITH_RC4_128_SHA: "RC4-SHA",
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: "DES-CBC3-SHA",
  TLS_RSA_WITH_AES_128_CBC_SHA256: "AES128-SHA256",
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: "ECDHE-ECDSA-RC4-SHA",
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: "ECDHE-RSA-RC4-SHA",
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: "ECDHE-RSA-DES-CBC3-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: "ECDHE-ECDSA-AES128-SHA256",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: "ECDHE-RSA-AES128-SHA256",
  // TLS 1.3: always on, accepted and ignored
  TLS_AES_128_GCM_SHA256: "",
  TLS_AES_256_GCM_SHA384: "",
  TLS_CHACHA20_POLY1305_SHA256: "",
};

/** The platform's default TLS 1.2 suites (its Go runtime's defaults). */
export const DEFAULT_CIPHER_SUITES: readonly string[] = [
  "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
  "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
  "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
  "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
  "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
  "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
  "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
  "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
  "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
  "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
];

const TLS13_SUITES = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";

/** Same as the platform's serving handshake timeout and header read timeout. */
export const HANDSHAKE_TIMEOUT_MS = 32_000;

export interface TlsFlags {
  /** `--tls-min-version` (default VersionTLS12). */
  minVersion?: string;
  /** `--tls-cipher-suites` (default: the platform's secure set). */
  cipherSuites?: readonly string[];
}

/** Node TLS options for the flags; throws an Error naming the bad value. */
export function tlsServerOptions(flags: TlsFlags = {}): Pick<TlsOptions, "minVersion" | "ciphers" | "handshakeTimeout"> {
  const versionName = flags.minVersion && flags.minVersion !== "" ? flags.minVersion : "VersionTLS12";
  const minVersion = TLS_VERSIONS[versionName];
  if (!minVersion) throw new Error(`unknown tls version "${versionName}"`);
  const asked = flags.cipherSuites && flags.cipherSuites.length > 0 ? flags.cipherSuites : undefined;
  if (asked && versionName === "VersionTLS13") throw new Error("cipher suites may not be specified when --tls-min-version is 'VersionTLS13'");
  const names: string[] = [];
  for (const suite of asked ?? DEFAULT_CIPHER_SUITES) {
    const openssl = CIPHER_SUITES[suite];
    if (openssl === undefined) throw new Error(`Cipher suite ${suite} not supported or doesn't exist`);
    if (openssl !== "" && !names.includes(openssl)) names.push(openssl);
  }
  return { minVersion, ciphers: [TLS13_SUITES, ...names].join(":"), handshakeTimeout: HANDSHAKE_TIMEOUT_MS };
}

/** The two flags as a service's flag table contributes them (the platform's names, defaults and help). */
export const TLS_FLAG_SPECS: Readonly<Record<"tls-min-version" | "tls-cipher-suites", FlagSpec>> = {
  "tls-min-version": { kind: "string", default: "VersionTLS12", help: `Minimum TLS version supported. Possible values: ${Object.keys(TLS_VERSIONS).join(", ")}` },
  "tls-cipher-suites": {
    kind: "list",
    help: "Comma-separated list of cipher suites for the server (IANA names, e.g. TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256). If omitted, the platform's default secure suites are used.",
  },
};

/** The flags' values from parsed command-line values (see TLS_FLAG_SPECS). */
export function tlsFlagsFrom(values: FlagValues): TlsFlags {
  const min = values["tls-min-version"];
  const suites = values["tls-cipher-suites"];
  return { minVersion: typeof min === "string" ? min : undefined, cipherSuites: Array.isArray(suites) ? suites : undefined };
}
