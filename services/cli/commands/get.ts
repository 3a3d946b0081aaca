/**
 * `plat get`: objects of one or more resource types, by name, label or field selector,
 * in one namespace or all (-A); printed from the server's Table (`as=Table`) or as
 * yaml/json/name/jsonpath; `-w` keeps printing changes (rows without headers) until
 * the process is stopped. Names that do not exist print a NotFound line each and make
 * the exit code 1; the others still print.
 */
import type { IncomingMessage } from "node:http";
import { StatusError } from "../../../shared/api/status.ts";
import { errorFromResponse } from "../../../shared/client/transport.ts";
import { resourcePath, type ApiObject } from "../../../shared/client/object-client.ts";
import { bool, str, type FlagDef } from "../args.ts";
import { ReportedFailure, UsageError, type CliContext, type Command } from "../command.ts";
import { errorLine } from "../errors.ts";
import { alignColumns, formatObjects, parseOutput, tableRows, toJson, toYaml, withoutManagedFields, type OutputFormat, type Table } from "../printers.ts";
import { renderJsonPath } from "../jsonpath.ts";
import { kindLabel, type ResourceInfo } from "../resources.ts";
import type { Session } from "../session.ts";

const FLAGS: FlagDef[] = [
  { name: "output", short: "o", kind: "string", help: "Output format. One of: (json, yaml, name, wide, jsonpath=...)." },
  { name: "selector", short: "l", kind: "string", help: "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'." },
  { name: "field-selector", kind: "string", help: "Selector (field query) to filter on, supports '=', '==', and '!='." },
  { name: "all-namespaces", short: "A", kind: "bool", default: false, help: "If present, list the requested object(s) across all namespaces." },
  { name: "watch", short: "w", kind: "bool", default: false, help: "After listing/getting the requested object, watch for changes." },
  { name: "watch-only", kind: "bool", default: false, help: "Watch for changes to the requested object(s), without listing/getting first." },
  { name: "show-managed-fields", kind: "bool", default: false, help: "If true, keep the managedFields when printing objects in JSON or YAML format." },
  { name: "ignore-not-found", kind: "bool", default: false, help: "If set to true, suppresses NotFound error for specific objects that do not exist." },
];

interface Request {
  res: ResourceInfo;
  names: string[];
}

function tableAccept(s: Session): string {
  return `application/json;as=Table;v=v1;g=${s.profile.metaGroup},application/json`;
}

function query(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  const t = q.toString();
  return t ? `?${t}` : "";
}

/** Parses `TYPE NAME...`, `TYPE1,TYPE2` and `TYPE/NAME ...` arguments. */
export async function requestsOf(s: Session, positionals: string[]): Promise<{ requests: Request[]; prefixNames: boolean }> {
  const resolver = await s.resolver();
  if (positionals.length === 0) throw new UsageError(`You must specify the type of resource to get. Use "plat api-resources" for a complete list of supported resources.`);
  if (positionals.some((p) => p.includes("/"))) {
    const requests: Request[] = [];
    for (const p of positionals) {
      const [type, name] = p.split("/", 2);
      if (!name) throw new UsageError(`arguments in resource/name form must have a single resource and name`);
      const res = resolver.resolve(type);
      const last = requests[requests.length - 1];
      if (last && last.res === res) last.names.push(name);
      else requests.push({ res, names: [name] });
    }
    return { requests, prefixNames: true };
  }
  const [types, ...names] = positionals;
  const list = types.split(",").filter((t) => t);
  if (list.length > 1 && names.length > 0) throw new UsageError("you must specify only one resource type when naming objects");
  return { requests: list.map((t) => ({ res: resolver.resolve(t), names })), prefixNames: list.length > 1 };
}

function namespaceOf(ctx: CliContext, s: Session, res: ResourceInfo): string | undefined {
  if (!res.namespaced || bool(ctx.args, "all-namespaces")) return undefined;
  return s.namespace;
}

function withKind(o: ApiObject, res: ResourceInfo): Record<string, unknown> {
  return { apiVersion: res.group ? `${res.group}/${res.version}` : res.version, kind: res.kind, ...o };
}

async function fetchObjects(ctx: CliContext, s: Session, req: Request): Promise<{ objects: Array<Record<string, unknown>>; resourceVersion?: string; failed: boolean }> {
  const ns = namespaceOf(ctx, s, req.res);
  if (req.names.length === 0) {
    const list = await s.client.list(req.res, { namespace: ns, labelSelector: str(ctx.args, "selector"), fieldSelector: str(ctx.args, "field-selector") });
    return { objects: list.items.map((o) => withKind(o, req.res)), resourceVersion: list.metadata.resourceVersion, failed: false };
  }
  const objects: Array<Record<string, unknown>> = [];
  let failed = false;
  for (const name of req.names) {
    try {
      objects.push(withKind(await s.client.get(req.res, name, { namespace: ns }), req.res));
    } catch (err) {
      if (err instanceof StatusError && err.code === 404 && bool(ctx.args, "ignore-not-found")) continue;
      if (!(err instanceof StatusError) || err.code !== 404) throw err;
      ctx.io.err(`${errorLine(err)}\n`);
      failed = true;
    }
  }
  return { objects, failed };
}

async function fetchTable(ctx: CliContext, s: Session, req: Request): Promise<{ tables: Table[]; failed: boolean }> {
  const ns = namespaceOf(ctx, s, req.res);
  if (req.names.length === 0) {
    const q = query({ labelSelector: str(ctx.args, "selector"), fieldSelector: str(ctx.args, "field-selector"), includeObject: "Metadata" });
    return { tables: [(await s.client.transport.json("GET", resourcePath(req.res, ns) + q, undefined, tableAccept(s))) as Table], failed: false };
  }
  const tables: Table[] = [];
  let failed = false;
  for (const name of req.names) {
    try {
      tables.push((await s.client.transport.json("GET", resourcePath(req.res, ns, name) + query({ includeObject: "Metadata" }), undefined, tableAccept(s))) as Table);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404 && bool(ctx.args, "ignore-not-found")) continue;
      if (!(err instanceof StatusError) || err.code !== 404) throw err;
      ctx.io.err(`${errorLine(err)}\n`);
      failed = true;
    }
  }
  return { tables, failed };
}

/** One merged table of a request's tables (single names answer one table each). */
function mergeTables(tables: Table[]): Table {
  if (tables.length === 1) return tables[0];
  return { columnDefinitions: tables[0]?.columnDefinitions, rows: tables.flatMap((t) => t.rows ?? []) };
}

async function* watchFrames(res: IncomingMessage): AsyncGenerator<{ type: string; object: Record<string, unknown> }> {
  let buffer = "";
  for await (const chunk of res) {
    buffer += (chunk as Buffer).toString("utf8");
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line) yield JSON.parse(line) as { type: string; object: Record<string, unknown> };
    }
  }
}

async function watch(ctx: CliContext, s: Session, req: Request, format: OutputFormat, resourceVersion: string | undefined, headerPrinted: boolean, knownColumns: Table["columnDefinitions"]): Promise<void> {
  const ns = namespaceOf(ctx, s, req.res);
  const fieldSelector = [str(ctx.args, "field-selector"), req.names.length === 1 ? `metadata.name=${req.names[0]}` : undefined].filter(Boolean).join(",");
  const q = query({ watch: "1", resourceVersion, labelSelector: str(ctx.args, "selector"), fieldSelector: fieldSelector || undefined, includeObject: format.kind === "table" ? "Metadata" : undefined });
  const accept = format.kind === "table" ? tableAccept(s) : "application/json";
  const { response, abort } = s.client.transport.open("GET", resourcePath(req.res, ns) + q, undefined, accept);
  const stop = () => abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  let printedHeader = headerPrinted;
  // Only the first Table of a watch carries column definitions: later ones reuse them.
  let columns = knownColumns;
  try {
    const res = await response;
    if (res.statusCode !== 200) {
      const chunks: Buffer[] = [];
      for await (const c of res) chunks.push(c as Buffer);
      throw errorFromResponse(res.statusCode ?? 0, Buffer.concat(chunks));
    }
    for await (const ev of watchFrames(res)) {
      if (ev.type === "BOOKMARK") continue;
      if (ev.type === "ERROR") throw new StatusError(ev.object as unknown as StatusError["status"]);
      if (format.kind === "table") {
        const t = ev.object as Table;
        if (t.columnDefinitions && t.columnDefinitions.length > 0) columns = t.columnDefinitions;
        const rows = tableRows({ ...t, columnDefinitions: columns }, { wide: format.wide, withNamespace: ns === undefined && req.res.namespaced, headers: !printedHeader });
        printedHeader = true;
        ctx.io.out(alignColumns(rows));
      } else {
        const full = withKind(ev.object as ApiObject, req.res);
        const o = bool(ctx.args, "show-managed-fields") ? full : withoutManagedFields(full);
        if (format.kind === "yaml") ctx.io.out(`---\n${toYaml(o)}`);
        else if (format.kind === "json") ctx.io.out(toJson(o));
        else if (format.kind === "name") ctx.io.out(`${kindLabel(req.res)}/${String((o.metadata as { name?: string }).name)}\n`);
        else ctx.io.out(renderJsonPath(format.template, o));
      }
    }
  } catch (err) {
    if ((err as { code?: number }).code === 0 && /aborted|socket hang up|ECONNRESET/.test(String((err as Error).message))) return;
    throw err;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}

async function run(ctx: CliContext): Promise<number> {
  const format = parseOutput(str(ctx.args, "output"));
  const s = await ctx.session();
  const { requests, prefixNames } = await requestsOf(s, ctx.args.positionals);
  const allNs = bool(ctx.args, "all-namespaces");
  if (allNs && requests.some((r) => r.names.length > 0)) throw new UsageError("a resource cannot be retrieved by name across all namespaces");
  const watching = bool(ctx.args, "watch") || bool(ctx.args, "watch-only");
  if (watching && requests.length !== 1) throw new UsageError("you may only specify a single resource type");
  let failed = false;
  let printedTables = 0;
  const collected: Array<Record<string, unknown>> = [];
  let rv: string | undefined;
  let headerPrinted = false;
  let columns: Table["columnDefinitions"];
  if (!bool(ctx.args, "watch-only")) {
    for (const req of requests) {
      if (format.kind === "table") {
        const r = await fetchTable(ctx, s, req);
        failed ||= r.failed;
        const table = mergeTables(r.tables);
        rv = r.tables[0]?.metadata?.resourceVersion;
        columns = table.columnDefinitions;
        if ((table.rows ?? []).length === 0) continue;
        const rows = tableRows(table, { wide: format.wide, withNamespace: namespaceOf(ctx, s, req.res) === undefined && req.res.namespaced, namePrefix: prefixNames ? kindLabel(req.res) : undefined });
        if (printedTables++ > 0) ctx.io.out("\n");
        ctx.io.out(alignColumns(rows));
        headerPrinted = true;
      } else {
        const r = await fetchObjects(ctx, s, req);
        failed ||= r.failed;
        rv = r.resourceVersion;
        collected.push(...r.objects);
      }
    }
    const single = requests.length === 1 && requests[0].names.length === 1 && !prefixNames;
    if (format.kind !== "table") {
      if (collected.length > 0 || (!single && !failed)) {
        ctx.io.out(formatObjects(format, collected, single && collected.length === 1, (o) => {
          const res = requests.find((r) => r.res.kind === o.kind) ?? requests[0];
          return `${kindLabel(res.res)}/${String((o.metadata as { name?: string }).name)}`;
        }, bool(ctx.args, "show-managed-fields")));
      }
    } else if (printedTables === 0 && !failed && requests.every((r) => r.names.length === 0) && !watching) {
      const ns = requests.some((r) => r.res.namespaced) && !allNs ? s.namespace : undefined;
      ctx.io.err(ns ? `No resources found in ${ns} namespace.\n` : "No resources found\n");
    }
  }
  if (watching) await watch(ctx, s, requests[0], format, bool(ctx.args, "watch-only") ? undefined : rv, headerPrinted, columns);
  if (failed) throw new ReportedFailure(1);
  return 0;
}

export const getCommand: Command = {
  name: "get",
  summary: "Display one or many resources",
  usage: "plat get [(-o|--output=)json|yaml|name|wide|jsonpath=...] (TYPE[.VERSION][.GROUP] [NAME | -l label] | TYPE[.VERSION][.GROUP]/NAME ...) [flags]",
  description: "Prints a table of the most important information about the specified resources, as the server's Table output describes them.\n\nExamples:\n  plat get configmaps -n team\n  plat get deployments.apps web -o yaml\n  plat get pods -A -l app=web -w",
  flags: FLAGS,
  run,
};
