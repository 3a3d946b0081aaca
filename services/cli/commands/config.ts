/**
 * `plat config view|use-context|current-context|get-contexts`: the merged client
 * configuration. `view` prints it as YAML (or -o json), with credentials replaced by
 * DATA+OMITTED / REDACTED unless --raw, only the current context's entries with
 * --minify, and file contents inlined with --flatten; relative paths show resolved.
 * `use-context` writes current-context into the file that set it (else the first file).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { parseDocument } from "yaml";
import { KubeconfigError, type MergedKubeconfig, type SourcedEntry } from "../../../shared/client/kubeconfig.ts";
import { bool, str } from "../args.ts";
import { UsageError, type CliContext, type Command } from "../command.ts";
import { alignColumns, toJson, toYaml } from "../printers.ts";
import { configSources, loadMerged } from "../session.ts";

const SECRET_DATA = ["certificate-authority-data", "client-certificate-data", "client-key-data"];
const SECRET_TEXT = ["token", "password"];
const PATHS: Record<string, string> = { "certificate-authority": "certificate-authority-data", "client-certificate": "client-certificate-data", "client-key": "client-key-data", tokenFile: "" };

function shown(e: SourcedEntry, opts: { raw: boolean; flatten: boolean }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e.body)) {
    if (k in PATHS && typeof v === "string") {
      const abs = isAbsolute(v) ? v : resolve(e.base, v);
      if (opts.flatten && PATHS[k]) out[PATHS[k]] = opts.raw ? readFileSync(abs).toString("base64") : "DATA+OMITTED";
      else out[k] = abs;
    } else if (SECRET_DATA.includes(k) && !opts.raw) out[k] = "DATA+OMITTED";
    else if (SECRET_TEXT.includes(k) && !opts.raw) out[k] = "REDACTED";
    else if (k === "exec" && v && typeof v === "object") {
      const x = { ...(v as Record<string, unknown>) };
      if (typeof x.command === "string" && /[\\/]/.test(x.command) && !isAbsolute(x.command)) x.command = resolve(e.base, x.command);
      out[k] = x;
    } else out[k] = v;
  }
  return out;
}

export function viewOf(m: MergedKubeconfig, opts: { raw: boolean; flatten: boolean; minify: boolean; context?: string }): Record<string, unknown> {
  let contexts = [...m.contexts.entries()];
  let clusters = [...m.clusters.entries()];
  let users = [...m.users.entries()];
  const current = opts.context ?? m.currentContext;
  if (opts.minify) {
    if (!current) throw new KubeconfigError("current-context must exist in order to minify");
    const ctx = m.contexts.get(current);
    if (!ctx) throw new KubeconfigError(`cannot locate context ${current}`);
    contexts = [[current, ctx]];
    clusters = clusters.filter(([n]) => n === ctx.body.cluster);
    users = users.filter(([n]) => n === ctx.body.user);
  }
  const entries = (list: Array<[string, SourcedEntry]>, field: string) => list.sort(([a], [b]) => a.localeCompare(b)).map(([name, e]) => ({ name, [field]: shown(e, opts) }));
  return {
    apiVersion: "v1",
    clusters: entries(clusters, "cluster"),
    contexts: entries(contexts, "context"),
    "current-context": current ?? "",
    kind: "Config",
    preferences: {},
    users: entries(users, "user"),
  };
}

async function view(ctx: CliContext): Promise<number> {
  const m = loadMerged(ctx.args, ctx.profile, ctx.env);
  const doc = viewOf(m, { raw: bool(ctx.args, "raw"), flatten: bool(ctx.args, "flatten"), minify: bool(ctx.args, "minify"), context: str(ctx.args, "context") });
  const o = str(ctx.args, "output") ?? "yaml";
  if (o === "json") ctx.io.out(toJson(doc));
  else if (o === "yaml") ctx.io.out(toYaml(doc));
  else throw new UsageError(`unable to match a printer suitable for the output format "${o}", allowed formats are: json, yaml`);
  return 0;
}

async function useContext(ctx: CliContext): Promise<number> {
  const [name, ...rest] = ctx.args.positionals;
  if (!name || rest.length > 0) throw new UsageError("Unexpected args: expected exactly one context name");
  const m = loadMerged(ctx.args, ctx.profile, ctx.env);
  if (!m.contexts.has(name)) throw new KubeconfigError(`no context exists with the name: "${name}"`);
  const { files } = configSources(ctx.args, ctx.profile, ctx.env);
  const target = m.currentContextSource ?? files.find((f) => existsSync(f)) ?? files[0];
  const text = existsSync(target) ? readFileSync(target, "utf8") : "apiVersion: v1\nkind: Config\n";
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new KubeconfigError(`${target}: not a valid configuration file: ${doc.errors[0].message.split("\n")[0]}`);
  doc.set("current-context", name);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, doc.toString());
  ctx.io.out(`Switched to context "${name}".\n`);
  return 0;
}

async function currentContext(ctx: CliContext): Promise<number> {
  const m = loadMerged(ctx.args, ctx.profile, ctx.env);
  if (!m.currentContext) throw new KubeconfigError("current-context is not set");
  ctx.io.out(`${m.currentContext}\n`);
  return 0;
}

async function getContexts(ctx: CliContext): Promise<number> {
  const m = loadMerged(ctx.args, ctx.profile, ctx.env);
  const names = ctx.args.positionals.length > 0 ? ctx.args.positionals : [...m.contexts.keys()].sort();
  if (str(ctx.args, "output") === "name") {
    for (const n of names) ctx.io.out(`${n}\n`);
    return 0;
  }
  const rows = [["CURRENT", "NAME", "CLUSTER", "AUTHINFO", "NAMESPACE"]];
  for (const n of names) {
    const c = m.contexts.get(n);
    if (!c) throw new KubeconfigError(`context ${n} not found`);
    rows.push([n === m.currentContext ? "*" : "", n, String(c.body.cluster ?? ""), String(c.body.user ?? ""), String(c.body.namespace ?? "")]);
  }
  ctx.io.out(alignColumns(rows));
  return 0;
}

const OUTPUT = { name: "output", short: "o", kind: "string" as const, help: "Output format. One of: (json, yaml)." };

export const configViewCommand: Command = {
  name: "config view",
  summary: "Display merged client configuration settings or a specified file",
  usage: "plat config view [flags] [options]",
  flags: [
    OUTPUT,
    { name: "raw", kind: "bool", default: false, help: "Display raw byte data and sensitive data" },
    { name: "minify", kind: "bool", default: false, help: "Remove all information not used by current-context from the output" },
    { name: "flatten", kind: "bool", default: false, help: "Flatten the resulting client configuration file into self-contained output (useful for creating portable files)" },
  ],
  run: view,
};

export const useContextCommand: Command = { name: "config use-context", summary: "Set the current-context in the client configuration file", usage: "plat config use-context CONTEXT_NAME [options]", flags: [], run: useContext };
export const currentContextCommand: Command = { name: "config current-context", summary: "Display the current-context", usage: "plat config current-context [options]", flags: [], run: currentContext };
export const getContextsCommand: Command = { name: "config get-contexts", summary: "Describe one or many contexts", usage: "plat config get-contexts [(-o|--output=)name] [options]", flags: [{ ...OUTPUT, help: "Output format. One of: (name)." }], run: getContexts };
