/**
 * `plat convert -f FILE [--output-version GROUP/VERSION]`: converts every document of
 * the files from the removed versions of the Migration table (convert/migrations.ts),
 * without a server. Converted objects print as YAML (or -o json), several as a `List`;
 * each field change is noted on standard error; a document that cannot be converted
 * prints one `error:` line saying why, and the exit code is 1.
 */
import { list, str } from "../args.ts";
import { ReportedFailure, UsageError, type CliContext, type Command } from "../command.ts";
import { convertDocument } from "../convert/migrations.ts";
import { ConversionError, type Obj } from "../convert/transforms.ts";
import { readManifests } from "../manifests.ts";
import { toJson, toYaml } from "../printers.ts";

async function run(ctx: CliContext): Promise<number> {
  if (ctx.args.positionals.length > 0) throw new UsageError(`unexpected arguments: ${ctx.args.positionals.join(" ")}`);
  const files = list(ctx.args, "filename");
  if (files.length === 0) throw new UsageError("must specify one of -f and -k");
  const target = str(ctx.args, "output-version") || undefined;
  if (target !== undefined && !/^([a-z0-9.-]+\/)?v\d+((alpha|beta)\d+)?$/.test(target)) throw new UsageError(`--output-version "${target}" is not a group/version`);
  const output = str(ctx.args, "output") ?? "yaml";
  if (output !== "yaml" && output !== "json") throw new UsageError(`--output must be yaml or json, not "${output}"`);
  const converted: Obj[] = [];
  let failed = false;
  for (const m of await readManifests(files, ctx.io.stdin)) {
    const name = `${String(m.object.kind)}/${m.object.metadata.name ?? m.object.metadata.generateName ?? ""}`;
    try {
      const r = convertDocument(ctx.profile, m.object as Obj, target);
      for (const note of r.notes) ctx.io.err(`${m.source}: ${name}: ${note}\n`);
      converted.push(r.doc);
    } catch (err) {
      if (!(err instanceof ConversionError)) throw err;
      ctx.io.err(`error: ${m.source}: ${name}: ${err.message}\n`);
      failed = true;
    }
  }
  if (converted.length > 0) {
    const doc = converted.length === 1 ? converted[0] : { apiVersion: "v1", kind: "List", items: converted, metadata: { resourceVersion: "" } };
    ctx.io.out(output === "json" ? toJson(doc) : toYaml(doc));
  }
  if (failed) throw new ReportedFailure(1);
  return 0;
}

export const convertCommand: Command = {
  name: "convert",
  summary: "Convert config files between API versions",
  usage: "plat convert -f FILENAME [--output-version GROUP/VERSION] [options]",
  description:
    "Convert manifests written for removed API versions (the Migration table: extensions/v1beta1 Deployments and Ingresses, batch/v1beta1 CronJobs, policy/v1beta1 PodDisruptionBudgets, ...) to a served version, applying renamed fields, new required fields and the old defaults. Without --output-version each object goes to its replacement version. Runs locally, without a server.\n\nExamples:\n  plat convert -f old-deployment.yaml --output-version apps/v1\n  plat convert -f ./manifests/ -o json",
  flags: [
    { name: "filename", short: "f", kind: "array", help: "Filename, directory, or - (standard input) of the objects to convert." },
    { name: "output-version", kind: "string", help: "Output the formatted object with the given group version (for ex: 'apps/v1'); default: each kind's replacement version." },
    { name: "output", short: "o", kind: "string", default: "yaml", help: "Output format. One of: (yaml, json)." },
  ],
  run,
};
