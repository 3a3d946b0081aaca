/**
 * `plat api-resources`: the served resources in their group's preferred version
 * (NAME, SHORTNAMES, APIVERSION, NAMESPACED, KIND; VERBS and CATEGORIES with -o wide),
 * sorted by group then name; `-o name` prints `resource.group`; filters by
 * --api-group, --namespaced and --verbs.
 */
import { list, str } from "../args.ts";
import { UsageError, type CliContext, type Command } from "../command.ts";
import { alignColumns } from "../printers.ts";
import { resourceLabel } from "../resources.ts";

async function run(ctx: CliContext): Promise<number> {
  if (ctx.args.positionals.length > 0) throw new UsageError(`unexpected arguments: ${ctx.args.positionals.join(" ")}`);
  const output = str(ctx.args, "output") ?? "";
  if (!["", "wide", "name"].includes(output)) throw new UsageError(`--output ${output} is not available`);
  const s = await ctx.session();
  let rows = (await s.resolver()).all.filter((r) => r.preferred);
  const group = str(ctx.args, "api-group");
  if (group !== undefined && ctx.args.changed.has("api-group")) rows = rows.filter((r) => r.group === group);
  if (ctx.args.changed.has("namespaced")) {
    const want = str(ctx.args, "namespaced") !== "false";
    rows = rows.filter((r) => r.namespaced === want);
  }
  const verbs = list(ctx.args, "verbs");
  if (verbs.length > 0) rows = rows.filter((r) => verbs.every((v) => r.verbs.includes(v)));
  rows.sort((a, b) => (a.group === b.group ? a.resource.localeCompare(b.resource) : a.group < b.group ? -1 : 1));
  if (output === "name") {
    ctx.io.out(rows.map((r) => `${resourceLabel(r)}\n`).join(""));
    return 0;
  }
  const wide = output === "wide";
  const header = ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND", ...(wide ? ["VERBS", "CATEGORIES"] : [])];
  const cells = rows.map((r) => [
    r.resource,
    r.shortNames.join(","),
    r.group ? `${r.group}/${r.version}` : r.version,
    String(r.namespaced),
    r.kind,
    ...(wide ? [`[${r.verbs.join(" ")}]`, r.categories.join(",")] : []),
  ]);
  ctx.io.out(alignColumns([header, ...cells]));
  return 0;
}

export const apiResourcesCommand: Command = {
  name: "api-resources",
  summary: "Print the supported API resources on the server",
  usage: "plat api-resources [flags] [options]",
  flags: [
    { name: "output", short: "o", kind: "string", help: "Output format. One of: (wide, name)." },
    { name: "api-group", kind: "string", help: "Limit to resources in the specified API group." },
    { name: "namespaced", kind: "string", default: "true", help: "If false, non-namespaced resources will be returned, otherwise returning namespaced resources by default." },
    { name: "verbs", kind: "list", help: "Limit to resources that support the specified verbs." },
  ],
  run,
};
