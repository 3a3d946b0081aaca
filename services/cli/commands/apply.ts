/**
 * `plat apply -f FILE`: server-side apply of every object of the files (PATCH with the
 * apply patch type, `fieldManager`, `force` with --force-conflicts), printing
 * `kind.group/name serverside-applied`. A conflict prints the server's message with the
 * ways out, as the platform's CLI does; other failures print their Status line.
 */
import { StatusError } from "../../../shared/api/status.ts";
import { resourcePath, type ApiObject } from "../../../shared/client/object-client.ts";
import { bool, list, str, type FlagDef } from "../args.ts";
import { ReportedFailure, UsageError, type CliContext, type Command } from "../command.ts";
import { errorLine } from "../errors.ts";
import { readManifests } from "../manifests.ts";
import { formatObjects, parseOutput } from "../printers.ts";
import { kindLabel } from "../resources.ts";
import { dryRunOf } from "./create.ts";
import { targetOf } from "./target.ts";

const FLAGS: FlagDef[] = [
  { name: "filename", short: "f", kind: "array", help: "The files that contain the configurations to apply." },
  { name: "server-side", kind: "bool", default: true, help: "Apply runs in the server (server-side apply); the only mode offered." },
  { name: "field-manager", kind: "string", default: "plat", help: "Name of the manager used to track field ownership." },
  { name: "force-conflicts", kind: "bool", default: false, help: "If true, server-side apply will force the changes against conflicts." },
  { name: "dry-run", kind: "string", default: "none", help: 'Must be "none" or "server".' },
  { name: "output", short: "o", kind: "string", help: "Output format. One of: (json, yaml, name, jsonpath=...)." },
];

const CONFLICT_HINT = [
  "Please review the fields above--they currently have other managers. Here",
  "are the ways you can resolve this warning:",
  "* If you intend to manage all of these fields, please re-run the apply",
  "  command with the `--force-conflicts` flag.",
  "* If you do not intend to manage all of the fields, please edit your",
  "  manifest to remove references to the fields that should keep their",
  "  current managers.",
].join("\n");

async function run(ctx: CliContext): Promise<number> {
  if (ctx.args.positionals.length > 0) throw new UsageError(`unexpected args: [${ctx.args.positionals.join(" ")}]`);
  if (ctx.args.changed.has("server-side") && !bool(ctx.args, "server-side")) throw new UsageError("only server-side apply is offered: --server-side=false is not supported");
  const files = list(ctx.args, "filename");
  if (files.length === 0) throw new UsageError("must specify one of -f and -k");
  const dryRun = dryRunOf(str(ctx.args, "dry-run"));
  const output = str(ctx.args, "output");
  const format = output ? parseOutput(output) : undefined;
  const manager = str(ctx.args, "field-manager") || "plat";
  const manifests = await readManifests(files, ctx.io.stdin);
  const s = await ctx.session();
  let failed = false;
  for (const m of manifests) {
    try {
      const t = await targetOf(s, m.object);
      if (!t.name) throw new Error(`error when retrieving current configuration of object from "${m.source}": resource name may not be empty`);
      const q = new URLSearchParams({ fieldManager: manager });
      if (bool(ctx.args, "force-conflicts")) q.set("force", "true");
      if (dryRun) q.set("dryRun", "All");
      const body = { ...m.object, metadata: { ...m.object.metadata, ...(t.namespace ? { namespace: t.namespace } : {}) } };
      const path = `${resourcePath(t.res, t.namespace, t.name)}?${q.toString()}`;
      const applied = (await s.client.transport.json("PATCH", path, { contentType: "application/apply-patch+yaml", data: JSON.stringify(body) })) as ApiObject;
      const label = `${kindLabel(t.res)}/${applied.metadata.name}`;
      if (format && format.kind !== "table") ctx.io.out(formatObjects(format, [applied], true, () => label));
      else ctx.io.out(`${label} serverside-applied${dryRun ? " (server dry run)" : ""}\n`);
    } catch (err) {
      if (err instanceof StatusError && err.code === 409 && /^Apply failed/.test(err.message)) ctx.io.err(`error: ${err.message}\n${CONFLICT_HINT}\n`);
      else ctx.io.err(`${errorLine(err)}\n`);
      failed = true;
    }
  }
  if (failed) throw new ReportedFailure(1);
  return 0;
}

export const applyCommand: Command = {
  name: "apply",
  summary: "Apply a configuration to a resource by file name or stdin (server-side apply)",
  usage: "plat apply -f FILENAME [--field-manager=NAME] [--force-conflicts] [options]",
  description: "Apply a configuration to a resource by file name or stdin. The server merges the configuration and tracks field ownership per manager.\n\nExamples:\n  plat apply -f ./deployment.yaml\n  plat apply -f ./deployment.yaml --field-manager=ci --force-conflicts",
  flags: FLAGS,
  run,
};
