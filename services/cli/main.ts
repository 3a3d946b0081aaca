/**
 * The `plat` command: finds the command (one or two words, after any global flags),
 * parses the global and the command's flags, runs it and turns every failure into the
 * platform CLI's one-line messages (errors.ts) with exit code 1. `--help` on every
 * command prints its usage and flags; `plat` alone or `plat help` lists the commands.
 * Server warnings print as `Warning: ...` on standard error.
 */
import { ArgsError, flagHelp, parseArgs, str, type FlagDef, type ParsedArgs } from "./args.ts";
import { getProfile, type PlatformProfile } from "../../shared/platform/index.ts";
import { ReportedFailure, UsageError, type CliContext, type CliIo, type Command } from "./command.ts";
import { errorLine } from "./errors.ts";
import { GLOBAL_FLAGS, Session } from "./session.ts";
import { apiResourcesCommand } from "./commands/api-resources.ts";
import { applyCommand } from "./commands/apply.ts";
import { canICommand, whoamiCommand } from "./commands/auth.ts";
import { configViewCommand, currentContextCommand, getContextsCommand, useContextCommand } from "./commands/config.ts";
import { convertCommand } from "./commands/convert.ts";
import { createCommand } from "./commands/create.ts";
import { createTokenCommand } from "./commands/create-token.ts";
import { deleteCommand } from "./commands/delete.ts";
import { getCommand } from "./commands/get.ts";
import { patchCommand } from "./commands/patch.ts";
import { versionCommand } from "./commands/version.ts";

export const COMMANDS: Command[] = [
  getCommand,
  createCommand,
  createTokenCommand,
  applyCommand,
  deleteCommand,
  patchCommand,
  convertCommand,
  whoamiCommand,
  canICommand,
  configViewCommand,
  useContextCommand,
  currentContextCommand,
  getContextsCommand,
  apiResourcesCommand,
  versionCommand,
];

/** Parent words that only group subcommands (`plat auth`, `plat config`). */
const GROUPS: Record<string, string> = { auth: "Inspect authorization", config: "Modify client configuration files" };

function globalValueFlag(arg: string): boolean {
  const long = /^--([^=]+)$/.exec(arg);
  if (long) return GLOBAL_FLAGS.some((f) => f.name === long[1] && f.kind !== "bool");
  const short = /^-([a-zA-Z])$/.exec(arg);
  if (short) return GLOBAL_FLAGS.some((f) => f.short === short[1] && f.kind !== "bool");
  return false;
}

/** The command named by the first words (skipping leading global flags) and the argv without those words. */
export function findCommand(argv: readonly string[]): { command?: Command; group?: string; rest: string[]; unknown?: string } {
  const words: number[] = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    const a = argv[i];
    if (a === "--") break;
    if (a.startsWith("-")) {
      if (words.length > 0) break;
      if (globalValueFlag(a)) i++;
      continue;
    }
    if (words.length === 1 && !(argv[words[0]] in GROUPS) && argv[words[0]] !== "create") break;
    words.push(i);
  }
  const without = (idx: number[]) => argv.filter((_, i) => !idx.includes(i));
  if (words.length === 0) return { rest: [...argv] };
  const first = argv[words[0]];
  if (words.length === 2) {
    const two = COMMANDS.find((c) => c.name === `${first} ${argv[words[1]]}`);
    if (two) return { command: two, rest: without(words) };
  }
  const one = COMMANDS.find((c) => c.name === first);
  if (one) return { command: one, rest: without([words[0]]) };
  if (first in GROUPS) return { group: first, rest: without([words[0]]), unknown: words.length === 2 ? argv[words[1]] : undefined };
  return { rest: without([words[0]]), unknown: first };
}

function rootHelp(): string {
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(24)}${c.summary}`);
  return [
    "plat controls the platform's API server.",
    "",
    "Commands:",
    ...lines,
    "",
    "Usage:",
    "  plat [flags] [options]",
    "",
    'Use "plat <command> --help" for more information about a given command.',
    "",
    "Global options:",
    flagHelp(GLOBAL_FLAGS),
    "",
  ].join("\n");
}

function groupHelp(group: string): string {
  const subs = COMMANDS.filter((c) => c.name.startsWith(`${group} `)).map((c) => `  ${c.name.slice(group.length + 1).padEnd(20)}${c.summary}`);
  return [`${GROUPS[group]}.`, "", "Available Commands:", ...subs, "", "Usage:", `  plat ${group} [flags] [options]`, ""].join("\n");
}

export function commandHelp(c: Command): string {
  const parts = [c.description ?? `${c.summary}.`, "", "Usage:", `  ${c.usage}`, ""];
  if (c.flags.length > 0) parts.push("Options:", flagHelp(c.flags), "");
  parts.push("Global options:", flagHelp(GLOBAL_FLAGS), "");
  return parts.join("\n");
}

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on("data", (c: Buffer) => chunks.push(c));
    process.stdin.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    process.stdin.once("error", reject);
  });
}

const processIo: CliIo = {
  out: (t) => void process.stdout.write(t),
  err: (t) => void process.stderr.write(t),
  stdin: readStdin,
};

function profileOf(argv: readonly string[]): PlatformProfile {
  const parsed = parseArgs(argv, GLOBAL_FLAGS, { allowUnknown: true });
  return getProfile(str(parsed, "profile") ?? "plat");
}

/** Runs one command line; returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo = processIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let session: Session | undefined;
  const found = findCommand(argv);
  const name = found.command?.name ?? found.group;
  try {
    const profile = profileOf(argv);
    if (!found.command) {
      if (found.unknown && found.unknown !== "help") throw new UsageError(`unknown command "${found.unknown}" for "plat${found.group ? ` ${found.group}` : ""}"`);
      io.out(found.group ? groupHelp(found.group) : rootHelp());
      return 0;
    }
    const command = found.command;
    const flags: FlagDef[] = [...GLOBAL_FLAGS, ...command.flags.filter((f) => !GLOBAL_FLAGS.some((g) => g.name === f.name))];
    let args: ParsedArgs;
    try {
      args = parseArgs(found.rest, flags);
    } catch (err) {
      if (err instanceof ArgsError && found.rest.some((a) => a === "--help" || a === "-h")) {
        io.out(commandHelp(command));
        return 0;
      }
      throw err instanceof ArgsError ? new UsageError(err.message) : err;
    }
    if (args.values.get("help") === true) {
      io.out(commandHelp(command));
      return 0;
    }
    const ctx: CliContext = {
      profile,
      io,
      args,
      env,
      session: async () => {
        session ??= Session.open(args, profile, env, (w) => io.err(`Warning: ${w}\n`));
        return session;
      },
    };
    return await command.run(ctx);
  } catch (err) {
    if (err instanceof ReportedFailure) return err.exitCode;
    if (err instanceof UsageError) {
      io.err(`error: ${err.message}\n`);
      if (name) io.err(`See 'plat ${name} --help' for usage.\n`);
      return 1;
    }
    io.err(`${errorLine(err)}\n`);
    return 1;
  } finally {
    session?.close();
  }
}

const isMain = process.argv[1] !== undefined && /[\\/]services[\\/]cli[\\/]main\.ts$/.test(process.argv[1]);
if (isMain) {
  runCli(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`${errorLine(err)}\n`);
      process.exitCode = 1;
    },
  );
}
