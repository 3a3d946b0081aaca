/**
 * The connection of one `plat` run: the client configuration chosen by the global flags
 * (`--kubeconfig` or the profile's config variable / home file, `--context`,
 * `--cluster`, `--user`, `-n`, `--server`, `--token`, `--certificate-authority`,
 * `--client-certificate`, `--client-key`, `--insecure-skip-tls-verify`), the exec
 * credential plugin when the user has one, and the HTTPS client. The resource resolver
 * (discovery) is built on first use.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { execProviderFor } from "../../shared/client/exec-credential.ts";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { CONTENT_TYPES, wireContentType, type WireContentType } from "../../shared/client/wire-codec.ts";
import { inClusterAvailable, inClusterConfig } from "../../shared/client/in-cluster.ts";
import { configFilesFromEnv, KubeconfigError, loadMergedKubeconfig, resolveMerged, type ClientConfig, type MergedKubeconfig } from "../../shared/client/kubeconfig.ts";
import type { PlatformProfile } from "../../shared/platform/index.ts";
import { bool, str, type FlagDef, type ParsedArgs } from "./args.ts";
import { ResourceResolver } from "./resources.ts";

export const GLOBAL_FLAGS: FlagDef[] = [
  { name: "kubeconfig", kind: "string", help: "Path to the client configuration file to use for CLI requests." },
  { name: "context", kind: "string", help: "The name of the client configuration context to use" },
  { name: "cluster", kind: "string", help: "The name of the client configuration cluster to use" },
  { name: "user", kind: "string", help: "The name of the client configuration user to use" },
  { name: "namespace", short: "n", kind: "string", help: "If present, the namespace scope for this CLI request" },
  { name: "server", short: "s", kind: "string", help: "The address and port of the API server" },
  { name: "token", kind: "string", help: "Bearer token for authentication to the API server" },
  { name: "certificate-authority", kind: "string", help: "Path to a cert file for the certificate authority" },
  { name: "client-certificate", kind: "string", help: "Path to a client certificate file for TLS" },
  { name: "client-key", kind: "string", help: "Path to a client key file for TLS" },
  { name: "insecure-skip-tls-verify", kind: "bool", default: false, help: "If true, the server's certificate will not be checked for validity. This will make your HTTPS connections insecure" },
  { name: "request-timeout", kind: "string", default: "0", help: "The length of time to wait before giving up on a single server request (also bounds a credential plugin). Non-zero values should contain a corresponding time unit (e.g. 1s, 2m, 3h). A value of zero means don't timeout requests." },
  { name: "profile", kind: "string", default: "plat", help: "Naming profile of the server's API (plat or kubernetes)" },
  { name: "content-type", kind: "string", default: "json", help: "How objects travel to and from the server: json, protobuf (built-in kinds; others as JSON) or cbor" },
  { name: "help", short: "h", kind: "bool", default: false, help: "help for this command" },
];

/** Where the configuration came from: explicit files, or the environment/home default. */
export function configSources(args: ParsedArgs, profile: PlatformProfile, env: NodeJS.ProcessEnv): { files: string[]; explicit: boolean } {
  const explicit = str(args, "kubeconfig");
  if (explicit) return { files: [explicit], explicit: true };
  const { files } = configFilesFromEnv({ name: profile.clientConfigEnv, homePath: profile.clientConfigHomePath }, env);
  return { files, explicit: false };
}

export function loadMerged(args: ParsedArgs, profile: PlatformProfile, env: NodeJS.ProcessEnv): MergedKubeconfig {
  const { files, explicit } = configSources(args, profile, env);
  return loadMergedKubeconfig(files, { explicit });
}

function readFlagFile(path: string, flag: string): string {
  try {
    return readFileSync(resolve(path), "utf8");
  } catch (err) {
    throw new KubeconfigError(`cannot read --${flag} ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

/** Milliseconds of a Go-style duration (`30s`, `1m`, `0`); a bare number is seconds. */
export function durationMs(text: string, flag: string): number {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let m: RegExpExecArray | null;
  let pos = 0;
  while ((m = re.exec(t)) !== null) {
    total += Number(m[1]) * unit[m[2]];
    pos = re.lastIndex;
  }
  if (pos !== t.length || t === "") throw new KubeconfigError(`invalid value "${text}" for --${flag}: expected a duration such as 30s or 2m`);
  return total;
}

/** The `--content-type` value, checked. */
export function contentTypeFlag(args: ParsedArgs): WireContentType {
  const value = str(args, "content-type") ?? "json";
  const type = wireContentType(value);
  if (!type) throw new KubeconfigError(`invalid value "${value}" for --content-type: expected one of ${CONTENT_TYPES.join(", ")}`);
  return type;
}

/** The resolved client configuration for the global flags. */
export function clientConfigFor(args: ParsedArgs, profile: PlatformProfile, env: NodeJS.ProcessEnv): ClientConfig {
  const server = str(args, "server");
  let config: ClientConfig;
  if (server && !str(args, "context")) {
    // --server alone needs no file; with a file, the file's credentials still apply.
    let base: ClientConfig | undefined;
    try {
      base = resolveMerged(loadMerged(args, profile, env), { cluster: undefined, user: str(args, "user") });
    } catch {
      base = undefined;
    }
    config = { ...(base ?? { insecureSkipTlsVerify: false }), server: server.replace(/\/+$/, "") };
  } else {
    const merged = loadMerged(args, profile, env);
    // Inside a pod, without any configuration file, the service account is the identity (as in-cluster clients do).
    if (merged.sources.length === 0 && !server && inClusterAvailable(profile, env)) return withFlags(inClusterConfig(profile, { env }), args);
    if (merged.sources.length === 0 && !server) {
      throw new KubeconfigError(`no client configuration found: set ${profile.clientConfigEnv}, create ~/${profile.clientConfigHomePath}, or pass --kubeconfig or --server`);
    }
    config = resolveMerged(merged, { context: str(args, "context"), cluster: str(args, "cluster"), user: str(args, "user") });
    if (server) config.server = server.replace(/\/+$/, "");
  }
  return withFlags(config, args);
}

/** The credential and TLS flags applied over a resolved configuration. */
function withFlags(config: ClientConfig, args: ParsedArgs): ClientConfig {
  const ca = str(args, "certificate-authority");
  if (ca) config.ca = readFlagFile(ca, "certificate-authority");
  const cert = str(args, "client-certificate");
  const key = str(args, "client-key");
  if (cert) config.cert = readFlagFile(cert, "client-certificate");
  if (key) config.key = readFlagFile(key, "client-key");
  const token = str(args, "token");
  if (token) {
    // A token on the command line is the identity: the configuration's other credentials are not sent.
    config.token = token;
    config.tokenFile = undefined;
    config.exec = undefined;
    if (!cert) config.cert = undefined;
    if (!key) config.key = undefined;
  }
  if (args.changed.has("insecure-skip-tls-verify")) config.insecureSkipTlsVerify = bool(args, "insecure-skip-tls-verify");
  return config;
}

export class Session {
  private resolverPromise: Promise<ResourceResolver> | undefined;

  constructor(
    readonly profile: PlatformProfile,
    readonly config: ClientConfig,
    readonly client: HttpsObjectClient,
    /** `-n`, else the context's namespace, else `default`. */
    readonly namespace: string,
    /** True when `-n` was given. */
    readonly namespaceExplicit: boolean,
  ) {}

  static open(args: ParsedArgs, profile: PlatformProfile, env: NodeJS.ProcessEnv, onWarning?: (text: string) => void): Session {
    const config = clientConfigFor(args, profile, env);
    const timeout = durationMs(str(args, "request-timeout") ?? "0", "request-timeout");
    const credentials = execProviderFor(config, profile, timeout > 0 ? { timeoutMs: timeout } : {});
    const client = new HttpsObjectClient(config, { credentials, onWarning, contentType: contentTypeFlag(args), profile });
    const ns = str(args, "namespace");
    return new Session(profile, config, client, ns || config.namespace || "default", !!ns);
  }

  resolver(): Promise<ResourceResolver> {
    this.resolverPromise ??= ResourceResolver.discover(this.client);
    return this.resolverPromise;
  }

  close(): void {
    this.client.close();
  }
}
