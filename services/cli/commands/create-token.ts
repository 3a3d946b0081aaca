/**
 * `plat create token SERVICE_ACCOUNT`: requests a token for a service account through
 * its `token` subresource (TokenRequest) with audiences, a duration and an optional
 * bound object, and prints the token (or the whole TokenRequest with -o).
 */
import { resourcePath, type ApiObject } from "../../../shared/client/object-client.ts";
import { list, str, type FlagDef } from "../args.ts";
import { UsageError, type CliContext, type Command } from "../command.ts";
import { formatObjects, parseOutput } from "../printers.ts";
import { durationMs } from "../session.ts";

const FLAGS: FlagDef[] = [
  { name: "audience", kind: "array", help: "Audience of the requested token. If unset, defaults to requesting a token for use with the API server. May be repeated to request a token valid for multiple audiences." },
  { name: "duration", kind: "string", default: "0s", help: "Requested lifetime of the issued token. If not set or if set to 0, the lifetime will be determined by the server automatically. The server may return a token with a longer or shorter lifetime." },
  { name: "bound-object-kind", kind: "string", help: "Kind of an object to bind the token to. Supported kinds are Node, Pod, Secret. If set, --bound-object-name must be provided." },
  { name: "bound-object-name", kind: "string", help: "Name of an object to bind the token to. The token will expire when the object is deleted. Requires --bound-object-kind." },
  { name: "bound-object-uid", kind: "string", help: "UID of an object to bind the token to. Requires --bound-object-kind and --bound-object-name. If unset, the UID of the existing object is used." },
  { name: "output", short: "o", kind: "string", help: "Output format. One of: (json, yaml, name, jsonpath=...)." },
];

const BOUND_KINDS: Record<string, string> = { Pod: "v1", Secret: "v1", Node: "v1" };

async function run(ctx: CliContext): Promise<number> {
  const [name, ...rest] = ctx.args.positionals;
  if (!name || rest.length > 0) throw new UsageError("exactly one service account name is required");
  const spec: Record<string, unknown> = {};
  const audiences = list(ctx.args, "audience");
  if (audiences.length > 0) spec.audiences = audiences;
  const ms = durationMs(str(ctx.args, "duration") ?? "0s", "duration");
  if (ms > 0) {
    if (ms % 1000 !== 0) throw new UsageError("--duration must be a whole number of seconds");
    spec.expirationSeconds = ms / 1000;
  }
  const kind = str(ctx.args, "bound-object-kind");
  const boundName = str(ctx.args, "bound-object-name");
  const uid = str(ctx.args, "bound-object-uid");
  if (kind) {
    if (!BOUND_KINDS[kind]) throw new UsageError(`supported --bound-object-kind values are ${Object.keys(BOUND_KINDS).sort().join(", ")}`);
    if (!boundName) throw new UsageError("--bound-object-name is required if --bound-object-kind is provided");
    spec.boundObjectRef = { kind, apiVersion: BOUND_KINDS[kind], name: boundName, ...(uid ? { uid } : {}) };
  } else if (boundName || uid) throw new UsageError("--bound-object-name and --bound-object-uid can only be set if --bound-object-kind is provided");
  const output = str(ctx.args, "output");
  const format = output ? parseOutput(output) : undefined;
  const s = await ctx.session();
  const group = s.profile.group("authentication");
  const req = { apiVersion: `${group}/v1`, kind: "TokenRequest", metadata: { name, namespace: s.namespace }, spec };
  const path = resourcePath({ group: "", version: "v1", resource: "serviceaccounts" }, s.namespace, name, "token");
  const answer = (await s.client.transport.json("POST", path, { contentType: "application/json", data: JSON.stringify(req) })) as ApiObject;
  if (format && format.kind !== "table") ctx.io.out(formatObjects(format, [answer], true, () => `tokenrequest.${group}/${name}`));
  else ctx.io.out(`${String((answer.status as { token?: string } | undefined)?.token ?? "")}\n`);
  return 0;
}

export const createTokenCommand: Command = {
  name: "create token",
  summary: "Request a service account token",
  usage: "plat create token SERVICE_ACCOUNT_NAME [options]",
  description: "Request a service account token.\n\nExamples:\n  plat create token myapp\n  plat create token myapp --audience https://example.com --duration 10m",
  flags: FLAGS,
  run,
};
