/**
 * `plat delete`: objects by type and names, `TYPE/NAME`, `-f FILE`, `-l` or `--all`,
 * with `--cascade=background|foreground|orphan` (propagation policy), `--grace-period`,
 * `--dry-run=server` and `--ignore-not-found`. Prints `kind.group "name" deleted`
 * (`from NS namespace` for namespaced objects). With `--wait` (default) an object kept
 * by finalizers is waited for until it is gone (or `--timeout` passes).
 */
import type { Status } from "../../../shared/api/status.ts";
import { StatusError } from "../../../shared/api/status.ts";
import type { ApiObject, DeleteOptions } from "../../../shared/client/object-client.ts";
import { bool, list, str, type FlagDef } from "../args.ts";
import { ReportedFailure, UsageError, type CliContext, type Command } from "../command.ts";
import { errorLine } from "../errors.ts";
import { readManifests } from "../manifests.ts";
import { kindLabel, type ResourceInfo } from "../resources.ts";
import { durationMs, type Session } from "../session.ts";
import { dryRunOf } from "./create.ts";
import { requestsOf } from "./get.ts";
import { targetOf } from "./target.ts";

const FLAGS: FlagDef[] = [
  { name: "filename", short: "f", kind: "array", help: "Filename, directory, or - (standard input) containing the resources to delete." },
  { name: "selector", short: "l", kind: "string", help: "Selector (label query) to filter on." },
  { name: "field-selector", kind: "string", help: "Selector (field query) to filter on." },
  { name: "all", kind: "bool", default: false, help: "Delete all resources, in the namespace of the specified resource types." },
  { name: "all-namespaces", short: "A", kind: "bool", default: false, help: "If present, delete the requested object(s) across all namespaces." },
  { name: "cascade", kind: "string", default: "background", help: 'Must be "background", "orphan", or "foreground". Selects the deletion cascading strategy for the dependents (e.g. Pods created by a ReplicationController). Defaults to background.' },
  { name: "grace-period", kind: "string", default: "-1", help: "Period of time in seconds given to the resource to terminate gracefully. Ignored if negative." },
  { name: "now", kind: "bool", default: false, help: "If true, resources are signaled for immediate shutdown (same as --grace-period=1)." },
  { name: "ignore-not-found", kind: "bool", default: false, help: "Treat \"resource not found\" as a successful delete." },
  { name: "dry-run", kind: "string", default: "none", help: 'Must be "none" or "server".' },
  { name: "wait", kind: "bool", default: true, help: "If true, wait for resources to be gone before returning. This waits for finalizers." },
  { name: "timeout", kind: "string", default: "0s", help: "The length of time to wait before giving up on a delete, zero means wait without limit." },
];

export function propagationOf(cascade: string | undefined): DeleteOptions["propagationPolicy"] {
  switch (cascade ?? "background") {
    case "background":
    case "true":
      return "Background";
    case "foreground":
      return "Foreground";
    case "orphan":
    case "false":
      return "Orphan";
    default:
      throw new UsageError(`invalid cascade value (${cascade}). Must be "background", "foreground", or "orphan".`);
  }
}

interface Victim {
  res: ResourceInfo;
  namespace: string | undefined;
  name: string;
}

async function victims(ctx: CliContext, s: Session): Promise<Victim[]> {
  const files = list(ctx.args, "filename");
  if (files.length > 0) {
    if (ctx.args.positionals.length > 0) throw new UsageError("resources and -f cannot both be given");
    const out: Victim[] = [];
    for (const m of await readManifests(files, ctx.io.stdin)) out.push(await targetOf(s, m.object));
    return out;
  }
  const { requests } = await requestsOf(s, ctx.args.positionals);
  const selector = str(ctx.args, "selector");
  const fieldSelector = str(ctx.args, "field-selector");
  const all = bool(ctx.args, "all");
  const allNs = bool(ctx.args, "all-namespaces");
  const out: Victim[] = [];
  for (const r of requests) {
    const ns = r.res.namespaced && !allNs ? s.namespace : undefined;
    if (r.names.length > 0) {
      if (selector || all) throw new UsageError("name cannot be provided when a selector is specified");
      for (const name of r.names) out.push({ res: r.res, namespace: ns, name });
      continue;
    }
    if (!selector && !fieldSelector && !all) throw new UsageError(`resource(s) were provided, but no name was specified`);
    const items = await s.client.list(r.res, { namespace: ns, labelSelector: selector, fieldSelector });
    for (const o of items.items) out.push({ res: r.res, namespace: r.res.namespaced ? o.metadata.namespace : undefined, name: o.metadata.name ?? "" });
  }
  return out;
}

async function waitGone(s: Session, v: Victim, uid: string | undefined, timeoutMs: number): Promise<void> {
  const deadline = timeoutMs > 0 ? Date.now() + timeoutMs : Infinity;
  for (;;) {
    try {
      const o = await s.client.get(v.res, v.name, { namespace: v.namespace });
      if (uid && o.metadata.uid !== uid) return;
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      throw err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for the condition on ${v.res.resource}/${v.name}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function run(ctx: CliContext): Promise<number> {
  const propagationPolicy = propagationOf(str(ctx.args, "cascade"));
  const dryRun = dryRunOf(str(ctx.args, "dry-run"));
  const grace = Number(str(ctx.args, "grace-period") ?? "-1");
  if (!Number.isInteger(grace)) throw new UsageError(`invalid argument "${str(ctx.args, "grace-period")}" for "--grace-period" flag`);
  const timeoutMs = durationMs(str(ctx.args, "timeout") ?? "0s", "timeout");
  const s = await ctx.session();
  const list = await victims(ctx, s);
  if (list.length === 0 && (str(ctx.args, "selector") || bool(ctx.args, "all"))) {
    ctx.io.out("No resources found\n");
    return 0;
  }
  let failed = false;
  for (const v of list) {
    const opts: DeleteOptions = { namespace: v.namespace, propagationPolicy, dryRun };
    if (bool(ctx.args, "now")) opts.gracePeriodSeconds = 1;
    else if (grace >= 0) opts.gracePeriodSeconds = grace;
    try {
      const answer: ApiObject | Status = await s.client.delete(v.res, v.name, opts);
      const where = v.namespace ? ` from ${v.namespace} namespace` : "";
      ctx.io.out(`${kindLabel(v.res)} "${v.name}" deleted${where}${dryRun ? " (server dry run)" : ""}\n`);
      const kept = answer.kind !== "Status" && (answer as ApiObject).metadata?.deletionTimestamp !== undefined && ((answer as ApiObject).metadata.finalizers ?? []).length > 0;
      if (kept && !dryRun && bool(ctx.args, "wait")) await waitGone(s, v, (answer as ApiObject).metadata.uid, timeoutMs);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404 && bool(ctx.args, "ignore-not-found")) continue;
      ctx.io.err(`${errorLine(err)}\n`);
      failed = true;
    }
  }
  if (failed) throw new ReportedFailure(1);
  return 0;
}

export const deleteCommand: Command = {
  name: "delete",
  summary: "Delete resources by file names, stdin, resources and names, or by resources and label selector",
  usage: "plat delete ([-f FILENAME] | TYPE [(NAME | -l label | --all)]) [options]",
  description: "Delete resources by file names, stdin, resources and names, or by resources and label selector.\n\nExamples:\n  plat delete configmap settings\n  plat delete deployments.apps web --cascade=foreground\n  plat delete -f ./objects.yaml",
  flags: FLAGS,
  run,
};
