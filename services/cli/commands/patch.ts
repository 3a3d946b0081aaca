/**
 * `plat patch TYPE NAME -p PATCH` (or `TYPE/NAME`): a strategic merge (default), JSON
 * merge or JSON patch (`--type`), from `-p` or `--patch-file`, optionally on a
 * subresource. Prints `kind.group/name patched`, or `patched (no change)` when the
 * object's resourceVersion did not move.
 */
import { readFileSync } from "node:fs";
import type { PatchType } from "../../../shared/client/object-client.ts";
import { str, type FlagDef } from "../args.ts";
import { UsageError, type CliContext, type Command } from "../command.ts";
import { formatObjects, parseOutput } from "../printers.ts";
import { kindLabel } from "../resources.ts";
import { dryRunOf } from "./create.ts";
import { requestsOf } from "./get.ts";
import { parse } from "yaml";

const FLAGS: FlagDef[] = [
  { name: "patch", short: "p", kind: "string", help: "The patch to be applied to the resource JSON file." },
  { name: "patch-file", kind: "string", help: "A file containing a patch to be applied to the resource." },
  { name: "type", kind: "string", default: "strategic", help: "The type of patch being provided; one of [json merge strategic]" },
  { name: "subresource", kind: "string", help: "If specified, patch will operate on the subresource of the requested object. Must be one of [status scale]." },
  { name: "dry-run", kind: "string", default: "none", help: 'Must be "none" or "server".' },
  { name: "output", short: "o", kind: "string", help: "Output format. One of: (json, yaml, name, jsonpath=...)." },
];

const TYPES: Record<string, PatchType> = { strategic: "strategic", merge: "merge", json: "json" };

async function run(ctx: CliContext): Promise<number> {
  const type = TYPES[str(ctx.args, "type") ?? "strategic"];
  if (!type) throw new UsageError(`--type must be one of [json merge strategic], not "${str(ctx.args, "type")}"`);
  let text = str(ctx.args, "patch");
  const file = str(ctx.args, "patch-file");
  if (text && file) throw new UsageError("--patch and --patch-file are mutually exclusive");
  if (file) text = readFileSync(file, "utf8");
  if (!text) throw new UsageError("must specify --patch or --patch-file containing the contents of the patch");
  let patch: unknown;
  try {
    patch = parse(text);
  } catch (err) {
    throw new UsageError(`unable to parse "${text}": ${(err as Error).message.split("\n")[0]}`);
  }
  if (patch === null || typeof patch !== "object") throw new UsageError(`unable to parse "${text}": the patch is not a JSON object or list`);
  const dryRun = dryRunOf(str(ctx.args, "dry-run"));
  const output = str(ctx.args, "output");
  const format = output ? parseOutput(output) : undefined;
  const s = await ctx.session();
  const { requests } = await requestsOf(s, ctx.args.positionals);
  const targets = requests.flatMap((r) => r.names.map((name) => ({ res: r.res, name })));
  if (targets.length !== 1) throw new UsageError("exactly one resource and name is required");
  const { res, name } = targets[0];
  const namespace = res.namespaced ? s.namespace : undefined;
  const subresource = str(ctx.args, "subresource");
  const before = await s.client.get(res, name, { namespace, subresource });
  const after = await s.client.patch(res, name, type, patch, { namespace, subresource, dryRun });
  const label = `${kindLabel(res)}/${name}`;
  if (format && format.kind !== "table") ctx.io.out(formatObjects(format, [after], true, () => label));
  else {
    const same = before.metadata.resourceVersion === after.metadata.resourceVersion;
    ctx.io.out(`${label} patched${same ? " (no change)" : ""}${dryRun ? " (server dry run)" : ""}\n`);
  }
  return 0;
}

export const patchCommand: Command = {
  name: "patch",
  summary: "Update fields of a resource",
  usage: "plat patch (-f FILENAME | TYPE NAME) [-p PATCH|--patch-file FILE] [--type strategic|merge|json] [options]",
  description: `Update fields of a resource using strategic merge patch, a JSON merge patch, or a JSON patch.\n\nExamples:\n  plat patch configmap settings -p '{"data":{"mode":"on"}}'\n  plat patch deployment.apps web --type=json -p '[{"op":"replace","path":"/spec/replicas","value":3}]'`,
  flags: FLAGS,
  run,
};
