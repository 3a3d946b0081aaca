/**
 * `plat create -f FILE`: creates every object of the files (POST), printing
 * `kind.group/name created` per object; a failed object prints its Status line
 * (`error when creating "FILE"`) and the others still go; any failure makes exit code 1.
 */
import { resourcePath, type ApiObject } from "../../../shared/client/object-client.ts";
import { list, str, type FlagDef } from "../args.ts";
import { ReportedFailure, UsageError, type CliContext, type Command } from "../command.ts";
import { errorLine } from "../errors.ts";
import { readManifests } from "../manifests.ts";
import { formatObjects, parseOutput } from "../printers.ts";
import { kindLabel } from "../resources.ts";
import { targetOf } from "./target.ts";

const FLAGS: FlagDef[] = [
  { name: "filename", short: "f", kind: "array", help: "Filename, directory, or - (standard input) of the objects to create." },
  { name: "output", short: "o", kind: "string", help: "Output format. One of: (json, yaml, name, jsonpath=...)." },
  { name: "dry-run", kind: "string", default: "none", help: 'Must be "none" or "server". With "server", the request is sent without persisting the object.' },
  { name: "field-manager", kind: "string", default: "plat-create", help: "Name of the manager used to track field ownership." },
  { name: "validate", kind: "string", default: "strict", help: 'Must be one of: strict (or true), warn, ignore (or false). Sent as fieldValidation: unknown or duplicate fields fail (strict), are warned about (warn) or dropped (ignore).' },
];

const VALIDATION: Record<string, string> = { strict: "Strict", true: "Strict", warn: "Warn", ignore: "Ignore", false: "Ignore" };

/** `--validate` as the fieldValidation query value. */
export function fieldValidationOf(value: string | undefined): string {
  const v = VALIDATION[value ?? "strict"];
  if (!v) throw new UsageError(`invalid - validate option "${value}"; must be one of: strict (or true), warn, ignore (or false)`);
  return v;
}

/** `--dry-run`: none or server (client-side dry runs are not offered: the server decides defaults). */
export function dryRunOf(value: string | undefined): boolean {
  if (value === undefined || value === "none" || value === "false") return false;
  if (value === "server") return true;
  throw new UsageError(`Invalid dry-run value (${value}). Must be "none" or "server".`);
}

async function run(ctx: CliContext): Promise<number> {
  if (ctx.args.positionals.length > 0) throw new UsageError(`unknown command "${ctx.args.positionals[0]}" for "plat create"`);
  const files = list(ctx.args, "filename");
  if (files.length === 0) throw new UsageError("must specify one of -f and -k");
  const dryRun = dryRunOf(str(ctx.args, "dry-run"));
  const fieldValidation = fieldValidationOf(str(ctx.args, "validate"));
  const output = str(ctx.args, "output");
  const format = output ? parseOutput(output) : undefined;
  const manifests = await readManifests(files, ctx.io.stdin);
  const s = await ctx.session();
  let failed = false;
  for (const m of manifests) {
    try {
      const t = await targetOf(s, m.object);
      const q = new URLSearchParams({ fieldManager: str(ctx.args, "field-manager") || "plat-create", fieldValidation });
      if (dryRun) q.set("dryRun", "All");
      const body = { ...m.object, metadata: { ...m.object.metadata, ...(t.namespace ? { namespace: t.namespace } : {}) } };
      const created = (await s.client.transport.json("POST", `${resourcePath(t.res, t.namespace)}?${q.toString()}`, { contentType: "application/json", data: JSON.stringify(body) })) as ApiObject;
      const label = `${kindLabel(t.res)}/${created.metadata.name}`;
      if (format && format.kind !== "table") ctx.io.out(formatObjects(format, [created], true, () => label));
      else ctx.io.out(`${label} created${dryRun ? " (server dry run)" : ""}\n`);
    } catch (err) {
      ctx.io.err(`${errorLine(err, `error when creating "${m.source}"`)}\n`);
      failed = true;
    }
  }
  if (failed) throw new ReportedFailure(1);
  return 0;
}

export const createCommand: Command = {
  name: "create",
  summary: "Create a resource from a file or from stdin",
  usage: "plat create -f FILENAME [options]",
  description: "Create a resource from a file or from stdin. JSON and YAML formats are accepted.\n\nExamples:\n  plat create -f ./cm.yaml\n  cat cm.json | plat create -f -",
  flags: FLAGS,
  run,
};
