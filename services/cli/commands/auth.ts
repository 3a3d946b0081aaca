/**
 * `plat auth whoami` (a SelfSubjectReview: user name, UID, groups and extra as an
 * ATTRIBUTE/VALUE table, or the review with -o) and `plat auth can-i VERB RESOURCE
 * [NAME]` / `can-i VERB /path` (a SelfSubjectAccessReview): prints `yes`, or `no`
 * (with ` - reason` when the server gave one) and exits 1.
 */
import { bool, str } from "../args.ts";
import { ReportedFailure, UsageError, type CliContext, type Command } from "../command.ts";
import { alignColumns, formatObjects, parseOutput } from "../printers.ts";
import { UnknownResourceError } from "../resources.ts";

const JSON_BODY = "application/json";

async function whoami(ctx: CliContext): Promise<number> {
  if (ctx.args.positionals.length > 0) throw new UsageError(`unexpected arguments: ${ctx.args.positionals.join(" ")}`);
  const output = str(ctx.args, "output");
  const format = output ? parseOutput(output) : undefined;
  const s = await ctx.session();
  const group = s.profile.group("authentication");
  const review = { apiVersion: `${group}/v1`, kind: "SelfSubjectReview", metadata: {} };
  const answer = (await s.client.transport.json("POST", `/apis/${group}/v1/selfsubjectreviews`, { contentType: JSON_BODY, data: JSON.stringify(review) })) as {
    metadata: Record<string, unknown>;
    status?: { userInfo?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> } };
  };
  if (format && format.kind !== "table") {
    ctx.io.out(formatObjects(format, [answer as unknown as Record<string, unknown>], true, () => `selfsubjectreview.${group}/`));
    return 0;
  }
  const u = answer.status?.userInfo ?? {};
  const rows: string[][] = [["ATTRIBUTE", "VALUE"]];
  if (u.username) rows.push(["Username", u.username]);
  if (u.uid) rows.push(["UID", u.uid]);
  if (u.groups && u.groups.length > 0) rows.push(["Groups", `[${u.groups.join(" ")}]`]);
  for (const [k, v] of Object.entries(u.extra ?? {}).sort(([a], [b]) => a.localeCompare(b))) rows.push([`Extra: ${k}`, `[${v.join(" ")}]`]);
  ctx.io.out(alignColumns(rows));
  return 0;
}

async function canI(ctx: CliContext): Promise<number> {
  const [verb, target, nameArg, ...rest] = ctx.args.positionals;
  if (!verb || !target || rest.length > 0) throw new UsageError("you must specify two or three arguments: verb, resource, and optional resourceName");
  const s = await ctx.session();
  const group = s.profile.group("authorization");
  const spec: Record<string, unknown> = {};
  if (target.startsWith("/")) {
    spec.nonResourceAttributes = { path: target, verb };
  } else {
    const [type, named] = target.split("/", 2);
    const name = named ?? nameArg ?? "";
    let resource = type;
    let apiGroup = "";
    if (type !== "*") {
      try {
        const r = (await s.resolver()).resolve(type);
        resource = r.resource;
        apiGroup = r.group;
      } catch (err) {
        if (!(err instanceof UnknownResourceError)) throw err;
        const dot = type.indexOf(".");
        if (dot > 0) {
          resource = type.slice(0, dot);
          apiGroup = type.slice(dot + 1);
        }
        ctx.io.err(`Warning: the server doesn't have a resource type '${type}'\n`);
      }
    } else apiGroup = "*";
    const attrs: Record<string, unknown> = { verb, resource, group: apiGroup, name };
    if (!bool(ctx.args, "all-namespaces")) attrs.namespace = s.namespace;
    const sub = str(ctx.args, "subresource");
    if (sub) attrs.subresource = sub;
    spec.resourceAttributes = attrs;
  }
  const review = { apiVersion: `${group}/v1`, kind: "SelfSubjectAccessReview", metadata: {}, spec };
  const answer = (await s.client.transport.json("POST", `/apis/${group}/v1/selfsubjectaccessreviews`, { contentType: JSON_BODY, data: JSON.stringify(review) })) as {
    status?: { allowed?: boolean; reason?: string };
  };
  const allowed = answer.status?.allowed === true;
  if (!bool(ctx.args, "quiet")) {
    if (allowed) ctx.io.out("yes\n");
    else ctx.io.out(`no${answer.status?.reason ? ` - ${answer.status.reason}` : ""}\n`);
  }
  if (!allowed) throw new ReportedFailure(1);
  return 0;
}

export const whoamiCommand: Command = {
  name: "auth whoami",
  summary: "Experimental: Check self subject attributes",
  usage: "plat auth whoami [options]",
  description: "Shows the user attributes of the current credentials, as the server authenticates them.",
  flags: [{ name: "output", short: "o", kind: "string", help: "Output format. One of: (json, yaml, name, jsonpath=...)." }],
  run: whoami,
};

export const canICommand: Command = {
  name: "auth can-i",
  summary: "Check whether an action is allowed",
  usage: "plat auth can-i VERB [TYPE | TYPE/NAME | NONRESOURCEURL] [options]",
  description: "Check whether an action is allowed. Prints yes (exit code 0) or no (exit code 1).\n\nExamples:\n  plat auth can-i create pods --namespace dev\n  plat auth can-i get /logs/",
  flags: [
    { name: "all-namespaces", short: "A", kind: "bool", default: false, help: "If true, check the specified action in all namespaces." },
    { name: "subresource", kind: "string", help: "SubResource such as pod/log or deployment/scale" },
    { name: "quiet", short: "q", kind: "bool", default: false, help: "If true, suppress output and just return the exit code." },
  ],
  run: canI,
};
