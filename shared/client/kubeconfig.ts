/**
 * Client configuration files (the kubeconfig format): clusters, users, contexts,
 * current-context and per-context namespaces, merged over several files as the
 * platform's clients merge them, and resolved into what one connection needs.
 *
 * Contracts:
 * - Merge: files are read in order; the first file that defines a cluster, user or
 *   context name wins for that name, and `current-context` comes from the first file
 *   that sets it. Relative paths (`certificate-authority`, `client-certificate`,
 *   `client-key`, `tokenFile`, an exec `command` holding a slash) are relative to the
 *   directory of the file that defined the entry.
 * - The file list comes from the profile's config environment variable (path-list
 *   separated; files that do not exist are skipped) or, without it, the default file in
 *   the home directory. An explicitly named file must exist.
 * - Resolution: server (https only), CA, client certificate and key (`*-data` base64 or
 *   files), token and tokenFile (the file wins when both are set: it is re-read when it
 *   changes), `insecure-skip-tls-verify`, `tls-server-name`, `proxy-url`, an `exec`
 *   credential plugin (exec-credential.ts) and cluster extensions.
 * - Every error is a `KubeconfigError` with one line naming the file and the field.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { parse } from "yaml";
import { flowNestingDepth, MAX_FLOW_NESTING } from "./yaml-nesting.ts";

/** The `exec` section of a user, with the directory its relative command is resolved from. */
export interface ExecConfig {
  command: string;
  apiVersion: string;
  args: string[];
  env: Array<{ name: string; value: string }>;
  installHint?: string;
  provideClusterInfo: boolean;
  interactiveMode?: string;
  /** Directory of the configuration file that defined this user. */
  base: string;
}

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
  tlsServerName?: string;
  /** `http://` (CONNECT) proxy for every connection. */
  proxyUrl?: string;
  /** Namespace of the context (undefined: the caller's default). */
  namespace?: string;
  exec?: ExecConfig;
  /** Cluster `extensions` by name (the exec plugin's cluster config is one of them). */
  clusterExtensions?: Record<string, unknown>;
  /** Name of the context this was resolved from. */
  contextName?: string;
}

export class KubeconfigError extends Error {
  override name = "KubeconfigError";
}

type Entry = Record<string, unknown>;

/** One named entry with the file it came from. */
export interface SourcedEntry {
  body: Entry;
  source: string;
  base: string;
}

/** Merged files, before a context is chosen. */
export interface MergedKubeconfig {
  currentContext?: string;
  /** The file that set current-context (where use-context writes). */
  currentContextSource?: string;
  clusters: Map<string, SourcedEntry>;
  users: Map<string, SourcedEntry>;
  contexts: Map<string, SourcedEntry>;
  /** Files read, in order. */
  sources: string[];
}

/** Choices that override the configuration (the command-line flags of a client). */
export interface ResolveOverrides {
  context?: string;
  cluster?: string;
  user?: string;
  namespace?: string;
}

function str(v: unknown, what: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw new KubeconfigError(`${what} must be a string`);
  return v;
}

function emptyMerged(): MergedKubeconfig {
  return { clusters: new Map(), users: new Map(), contexts: new Map(), sources: [] };
}

/** Parses one file's text and adds what it defines that earlier files did not. */
export function mergeKubeconfigText(into: MergedKubeconfig, text: string, source: string, base: string): MergedKubeconfig {
  let doc: unknown;
  if (flowNestingDepth(text) > MAX_FLOW_NESTING) {
    throw new KubeconfigError(`${source}: not a valid configuration file: nesting deeper than ${MAX_FLOW_NESTING} levels`);
  }
  try {
    doc = parse(text, { logLevel: "error" });
  } catch (err) {
    throw new KubeconfigError(`${source}: not a valid configuration file: ${(err as Error).message.split("\n")[0]}`);
  }
  into.sources.push(source);
  if (doc === null || doc === undefined) return into;
  if (typeof doc !== "object" || Array.isArray(doc)) throw new KubeconfigError(`${source}: not a valid configuration file (expected a map)`);
  const d = doc as Entry;
  const current = str(d["current-context"], `${source}: current-context`);
  if (current && into.currentContext === undefined) {
    into.currentContext = current;
    into.currentContextSource = source;
  }
  const sections: Array<[string, Map<string, SourcedEntry>]> = [
    ["cluster", into.clusters],
    ["user", into.users],
    ["context", into.contexts],
  ];
  for (const [field, map] of sections) {
    const list = d[`${field}s`];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) throw new KubeconfigError(`${source}: "${field}s" must be a list`);
    for (const item of list as unknown[]) {
      if (!item || typeof item !== "object" || Array.isArray(item)) throw new KubeconfigError(`${source}: every entry of "${field}s" must be a map`);
      const name = str((item as Entry).name, `${source}: ${field} name`);
      if (!name) throw new KubeconfigError(`${source}: an entry of "${field}s" has no name`);
      const body = (item as Entry)[field] ?? {};
      if (typeof body !== "object" || Array.isArray(body)) throw new KubeconfigError(`${source}: ${field} "${name}" must be a map`);
      if (!map.has(name)) map.set(name, { body: body as Entry, source, base });
    }
  }
  return into;
}

/** The files named by the profile's config variable, or the default file in the home directory. */
export function configFilesFromEnv(env: { name: string; homePath: string }, vars: NodeJS.ProcessEnv = process.env): { files: string[]; fromEnv: boolean } {
  const value = vars[env.name];
  if (value) {
    const files = [...new Set(value.split(delimiter).filter((p) => p !== ""))];
    return { files, fromEnv: true };
  }
  return { files: [join(vars.HOME ?? homedir(), env.homePath)], fromEnv: false };
}

/**
 * Reads and merges files. `explicit` files must exist; the others are skipped when
 * missing (as entries of the environment list are).
 */
export function loadMergedKubeconfig(files: readonly string[], opts: { explicit: boolean }): MergedKubeconfig {
  const merged = emptyMerged();
  for (const file of files) {
    if (!opts.explicit && !existsSync(file)) continue;
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (err) {
      throw new KubeconfigError(`cannot read client configuration ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    mergeKubeconfigText(merged, text, file, dirname(resolve(file)));
  }
  return merged;
}

function dataOrFile(data: unknown, file: unknown, e: SourcedEntry, what: string): string | undefined {
  const d = str(data, `${e.source}: ${what}-data`);
  if (d !== undefined) return Buffer.from(d, "base64").toString("utf8");
  const f = str(file, `${e.source}: ${what}`);
  if (f === undefined) return undefined;
  const path = resolve(e.base, f);
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new KubeconfigError(`${e.source}: cannot read ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

function execSection(raw: unknown, e: SourcedEntry, userName: string): ExecConfig | undefined {
  if (raw === undefined || raw === null) return undefined;
  const where = `${e.source}: user "${userName}" exec`;
  if (typeof raw !== "object" || Array.isArray(raw)) throw new KubeconfigError(`${where} must be a map`);
  const x = raw as Entry;
  const command = str(x.command, `${where} command`);
  if (!command) throw new KubeconfigError(`${where}: command is required`);
  const apiVersion = str(x.apiVersion, `${where} apiVersion`);
  if (!apiVersion) throw new KubeconfigError(`${where}: apiVersion is required`);
  const args = x.args ?? [];
  if (!Array.isArray(args) || args.some((a) => typeof a !== "string")) throw new KubeconfigError(`${where} args must be a list of strings`);
  const env = x.env ?? [];
  if (!Array.isArray(env)) throw new KubeconfigError(`${where} env must be a list`);
  const vars = (env as unknown[]).map((v) => {
    const item = (v ?? {}) as Entry;
    const name = str(item.name, `${where} env name`);
    if (!name) throw new KubeconfigError(`${where} env: every entry needs a name`);
    return { name, value: str(item.value, `${where} env value`) ?? "" };
  });
  if (x.provideClusterInfo !== undefined && typeof x.provideClusterInfo !== "boolean") throw new KubeconfigError(`${where} provideClusterInfo must be a boolean`);
  return {
    command,
    apiVersion,
    args: args as string[],
    env: vars,
    installHint: str(x.installHint, `${where} installHint`),
    provideClusterInfo: x.provideClusterInfo === true,
    interactiveMode: str(x.interactiveMode, `${where} interactiveMode`),
    base: e.base,
  };
}

function extensionsOf(raw: unknown, e: SourcedEntry): Record<string, unknown> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw new KubeconfigError(`${e.source}: cluster extensions must be a list`);
  const out: Record<string, unknown> = {};
  for (const item of raw as unknown[]) {
    const x = (item ?? {}) as Entry;
    const name = str(x.name, `${e.source}: extension name`);
    if (name) out[name] = x.extension;
  }
  return out;
}

function checkServer(server: string | undefined, clusterName: string, e: SourcedEntry): string {
  if (!server) throw new KubeconfigError(`${e.source}: cluster "${clusterName}" has no server`);
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new KubeconfigError(`${e.source}: server "${server}" is not a URL`);
  }
  if (url.protocol !== "https:") throw new KubeconfigError(`${e.source}: server ${server} is not an https:// URL`);
  return server.replace(/\/+$/, "");
}

/** Resolves the merged files for one context (the current one unless overridden). */
export function resolveMerged(m: MergedKubeconfig, o: ResolveOverrides = {}): ClientConfig {
  const where = m.sources.length > 0 ? m.sources.join(delimiter) : "client configuration";
  const ctxName = o.context ?? m.currentContext;
  let ctx: SourcedEntry | undefined;
  if (ctxName) {
    ctx = m.contexts.get(ctxName);
    if (!ctx) throw new KubeconfigError(`${where}: no context named "${ctxName}"`);
  } else if (!o.cluster) {
    if (m.sources.length === 0) throw new KubeconfigError("no client configuration has been provided (no file found)");
    throw new KubeconfigError(`${where}: no current-context set`);
  }
  const clusterName = o.cluster ?? str(ctx?.body.cluster, `${ctx?.source}: context cluster`);
  if (!clusterName) throw new KubeconfigError(`${ctx?.source ?? where}: context "${ctxName}" names no cluster`);
  const cluster = m.clusters.get(clusterName);
  if (!cluster) throw new KubeconfigError(`${ctx?.source ?? where}: no cluster named "${clusterName}"`);
  const userName = o.user ?? str(ctx?.body.user, `${ctx?.source}: context user`);
  let user: SourcedEntry | undefined;
  if (userName) {
    user = m.users.get(userName);
    if (!user) throw new KubeconfigError(`${ctx?.source ?? where}: no user named "${userName}"`);
  }
  const c = cluster.body;
  const u = user?.body ?? {};
  const proxyUrl = str(c["proxy-url"], `${cluster.source}: proxy-url`);
  if (proxyUrl !== undefined) {
    let proto: string;
    try {
      proto = new URL(proxyUrl).protocol;
    } catch {
      throw new KubeconfigError(`${cluster.source}: proxy-url "${proxyUrl}" is not a URL`);
    }
    if (proto !== "http:") throw new KubeconfigError(`${cluster.source}: proxy-url ${proxyUrl}: only http:// proxies are supported`);
  }
  const skip = c["insecure-skip-tls-verify"];
  if (skip !== undefined && typeof skip !== "boolean") throw new KubeconfigError(`${cluster.source}: insecure-skip-tls-verify must be a boolean`);
  const tokenFile = user ? str(u.tokenFile, `${user.source}: tokenFile`) : undefined;
  const namespace = str(ctx?.body.namespace, `${ctx?.source}: context namespace`);
  return {
    server: checkServer(str(c.server, `${cluster.source}: cluster server`), clusterName, cluster),
    ca: dataOrFile(c["certificate-authority-data"], c["certificate-authority"], cluster, "certificate-authority"),
    cert: user ? dataOrFile(u["client-certificate-data"], u["client-certificate"], user, "client-certificate") : undefined,
    key: user ? dataOrFile(u["client-key-data"], u["client-key"], user, "client-key") : undefined,
    token: user ? str(u.token, `${user.source}: token`) : undefined,
    tokenFile: tokenFile && user ? resolve(user.base, tokenFile) : undefined,
    insecureSkipTlsVerify: skip === true,
    tlsServerName: str(c["tls-server-name"], `${cluster.source}: tls-server-name`),
    proxyUrl,
    namespace: o.namespace ?? (namespace || undefined),
    exec: user ? execSection(u.exec, user, userName ?? "") : undefined,
    clusterExtensions: extensionsOf(c.extensions, cluster),
    contextName: ctxName,
  };
}

/** Resolves one configuration document; `source` names it in errors, `base` anchors relative paths. */
export function resolveKubeconfig(text: string, opts: { source: string; base: string; context?: string }): ClientConfig {
  const merged = mergeKubeconfigText(emptyMerged(), text, opts.source, opts.base);
  return resolveMerged(merged, { context: opts.context });
}

/** Reads and resolves one configuration file (its current context, or `context`). */
export function loadKubeconfig(path: string, context?: string): ClientConfig {
  return resolveMerged(loadMergedKubeconfig([path], { explicit: true }), { context });
}
