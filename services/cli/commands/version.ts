/**
 * `plat version`: the client's version and the server's `/version` (`--client` for the
 * client alone; -o json|yaml for the full records).
 */
import { bool, str } from "../args.ts";
import { UsageError, type CliContext, type Command } from "../command.ts";
import { toYaml } from "../printers.ts";

/** The release whose behaviour this client implements. */
export const CLIENT_VERSION = { major: "1", minor: "35", gitVersion: "v1.35.0" };

function clientInfo(): Record<string, string> {
  return {
    major: CLIENT_VERSION.major,
    minor: CLIENT_VERSION.minor,
    gitVersion: CLIENT_VERSION.gitVersion,
    gitCommit: "0000000000000000000000000000000000000000",
    gitTreeState: "clean",
    buildDate: "2026-01-01T00:00:00Z",
    goVersion: `node${process.versions.node}`,
    compiler: "tsc",
    platform: `${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}`,
  };
}

async function run(ctx: CliContext): Promise<number> {
  const output = str(ctx.args, "output") ?? "";
  if (!["", "json", "yaml"].includes(output)) throw new UsageError(`--output must be 'yaml' or 'json'`);
  const doc: Record<string, unknown> = { clientVersion: clientInfo() };
  if (!bool(ctx.args, "client")) {
    const s = await ctx.session();
    doc.serverVersion = await s.client.getPath("/version");
  }
  if (output === "json") ctx.io.out(`${JSON.stringify(doc, null, 2)}\n`);
  else if (output === "yaml") ctx.io.out(toYaml(doc));
  else {
    ctx.io.out(`Client Version: ${CLIENT_VERSION.gitVersion}\n`);
    const server = doc.serverVersion as { gitVersion?: string } | undefined;
    if (server) ctx.io.out(`Server Version: ${server.gitVersion ?? ""}\n`);
  }
  return 0;
}

export const versionCommand: Command = {
  name: "version",
  summary: "Print the client and server version information",
  usage: "plat version [flags] [options]",
  flags: [
    { name: "client", kind: "bool", default: false, help: "If true, shows client version only (no server required)." },
    { name: "output", short: "o", kind: "string", help: "One of 'yaml' or 'json'." },
  ],
  run,
};
