/**
 * Client configuration files (the kubeconfig format): clusters, users, contexts and
 * current-context. Resolves one context into what a connection needs: server URL, CA,
 * client certificate and key, or a bearer token (inline or a token file, re-read when it
 * changes), and `insecure-skip-tls-verify`. `*-data` fields are base64; file paths are
 * relative to the configuration file's directory. Errors are one clear line each.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse } from "yaml";

/** A resolved connection; PEM strings, never paths. */
export interface ClientConfig {
  server: string;
  ca?: string;
  cert?: string;
  key?: string;
  token?: string;
  /** Absolute path of a token file; read per request (cached by modification time). */
  tokenFile?: string;
  insecureSkipTlsVerify: boolean;
}

interface ClusterEntry {
  server?: unknown;
  "certificate-authority"?: unknown;
  "certificate-authority-data"?: unknown;
  "insecure-skip-tls-verify"?: unknown;
}
interface UserEntry {
  "client-certificate"?: unknown;
  "client-certificate-data"?: unknown;
  "client-key"?: unknown;
  "client-key-data"?: unknown;
  token?: unknown;
  tokenFile?: unknown;
}
interface ContextEntry {
  cluster?: unknown;
  user?: unknown;
}

export class KubeconfigError extends Error {
  override name = "KubeconfigError";
}

function str(v: unknown, what: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw new KubeconfigError(`${what} must be a string`);
  return v;
}

function find<T>(list: unknown, field: string, name: string, source: string): T {
  if (list !== undefined && !Array.isArray(list)) throw new KubeconfigError(`${source}: "${field}s" must be a list`);
  const entry = (list as Array<Record<string, unknown> | null> | undefined)?.find((e) => !!e && typeof e === "object" && e.name === name);
  if (!entry) throw new KubeconfigError(`${source}: no ${field} named "${name}"`);
  const body = entry[field];
  if (body === undefined || body === null) return {} as T;
  if (typeof body !== "object") throw new KubeconfigError(`${source}: ${field} "${name}" must be a map`);
  return body as T;
}

function dataOrFile(data: unknown, file: unknown, base: string, what: string, source: string): string | undefined {
  const d = str(data, `${source}: ${what}-data`);
  if (d !== undefined) return Buffer.from(d, "base64").toString("utf8");
  const f = str(file, `${source}: ${what}`);
  if (f === undefined) return undefined;
  try {
    return readFileSync(resolve(base, f), "utf8");
  } catch (err) {
    throw new KubeconfigError(`${source}: cannot read ${what} ${resolve(base, f)}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

/** Resolves a configuration document; `source` names it in errors, `base` anchors relative paths. */
export function resolveKubeconfig(text: string, opts: { source: string; base: string; context?: string }): ClientConfig {
  const { source, base } = opts;
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new KubeconfigError(`${source}: not a valid configuration file: ${(err as Error).message.split("\n")[0]}`);
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) throw new KubeconfigError(`${source}: not a valid configuration file (expected a map)`);
  const d = doc as Record<string, unknown>;
  const ctxName = opts.context ?? str(d["current-context"], `${source}: current-context`);
  if (!ctxName) throw new KubeconfigError(`${source}: no current-context set`);
  const ctx = find<ContextEntry>(d.contexts, "context", ctxName, source);
  const clusterName = str(ctx.cluster, `${source}: context cluster`);
  if (!clusterName) throw new KubeconfigError(`${source}: context "${ctxName}" names no cluster`);
  const cluster = find<ClusterEntry>(d.clusters, "cluster", clusterName, source);
  const userName = str(ctx.user, `${source}: context user`);
  const user = userName ? find<UserEntry>(d.users, "user", userName, source) : {};
  const server = str(cluster.server, `${source}: cluster server`);
  if (!server) throw new KubeconfigError(`${source}: cluster "${clusterName}" has no server`);
  try {
    if (new URL(server).protocol !== "https:") throw new KubeconfigError(`${source}: server ${server} is not an https:// URL`);
  } catch (err) {
    if (err instanceof KubeconfigError) throw err;
    throw new KubeconfigError(`${source}: server "${server}" is not a URL`);
  }
  const tokenFile = str(user.tokenFile, `${source}: tokenFile`);
  return {
    server: server.replace(/\/+$/, ""),
    ca: dataOrFile(cluster["certificate-authority-data"], cluster["certificate-authority"], base, "certificate-authority", source),
    cert: dataOrFile(user["client-certificate-data"], user["client-certificate"], base, "client-certificate", source),
    key: dataOrFile(user["client-key-data"], user["client-key"], base, "client-key", source),
    token: str(user.token, `${source}: token`),
    tokenFile: tokenFile ? resolve(base, tokenFile) : undefined,
    insecureSkipTlsVerify: cluster["insecure-skip-tls-verify"] === true,
  };
}

/** Reads and resolves a configuration file (its current context, or `context`). */
export function loadKubeconfig(path: string, context?: string): ClientConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new KubeconfigError(`cannot read client configuration ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  return resolveKubeconfig(text, { source: path, base: dirname(resolve(path)), context });
}
