/**
 * What every `plat` command is: a name (one or two words), its help, its flags and a
 * `run` over a `CliContext`. The context carries the naming profile, the output
 * streams and a lazily built session (client configuration and connection). Errors
 * leave a command as thrown values; main.ts prints them (errors.ts) and sets the exit
 * code, so a command returns only its success code (0, or 1 for a "no" answer).
 */
import type { PlatformProfile } from "../../shared/platform/index.ts";
import type { FlagDef, ParsedArgs } from "./args.ts";
import type { Session } from "./session.ts";

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Reads all of standard input (for `-f -`). */
  stdin(): Promise<string>;
}

export interface CliContext {
  profile: PlatformProfile;
  io: CliIo;
  args: ParsedArgs;
  /** Connects on first use (reads the client configuration, builds the client). */
  session(): Promise<Session>;
  /** Process environment (configuration variables). */
  env: NodeJS.ProcessEnv;
}

export interface Command {
  /** `get`, `auth whoami`, `config use-context`, ... */
  name: string;
  summary: string;
  usage: string;
  /** Longer description and examples printed by --help. */
  description?: string;
  flags: FlagDef[];
  run(ctx: CliContext): Promise<number>;
}

/** An error caused by the command line itself: printed with a pointer to --help. */
export class UsageError extends Error {}

/** A failure the command already explained (messages printed); only the exit code is left. */
export class ReportedFailure extends Error {
  constructor(readonly exitCode = 1) {
    super("reported");
  }
}
