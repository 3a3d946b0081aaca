/**
 * An exec'd command with a pseudo-terminal, as a runtime gives a `tty` exec: the
 * command runs under util-linux `script` (which owns the terminal pair and copies
 * between it and plain pipes), so the command sees a terminal on its stdin, stdout and
 * stderr (one output stream, as a terminal has).
 *
 * Contract:
 * - the command starts at the first `resize` (with that size already set, so its first
 *   look at the terminal sees it) or after `firstSizeWaitMs` without one (the
 *   terminal's default size);
 * - later resizes set the size of the command's terminal (`stty -F` on it, which makes
 *   the kernel signal the command with SIGWINCH); the promise resolves once it is set;
 * - the outcome is the command's exit code (`script -e`);
 * - `kill` ends the command, started or not.
 */
import { spawn } from "node:child_process";
import { readFile, readlink } from "node:fs/promises";
import { PassThrough } from "node:stream";
import type { TerminalSize } from "../../../shared/stream/channel-protocol.ts";
import type { ProcessOutcome, StreamProcess } from "./channel-session.ts";

/** How long a tty command waits for its first size. */
export const FIRST_SIZE_WAIT_MS = 1000;

/** A word for `sh -c`, single-quoted. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The `script` command line running `cmd` on a terminal of `size` (the default size when absent). */
export function scriptCommand(cmd: readonly string[], size?: TerminalSize): string[] {
  const setSize = size ? `stty cols ${size.width} rows ${size.height} 2>/dev/null; ` : "";
  return ["script", "-q", "-f", "-e", "-c", `${setSize}exec ${cmd.map(shellQuote).join(" ")}`, "/dev/null"];
}

/** The terminal device of the command `script` runs (its child's stdin), if it is still there. */
async function commandTerminal(scriptPid: number): Promise<string | undefined> {
  try {
    const children = (await readFile(`/proc/${scriptPid}/task/${scriptPid}/children`, "utf8")).trim().split(/\s+/);
    const device = await readlink(`/proc/${children[0]}/fd/0`);
    return device.startsWith("/dev/pts/") ? device : undefined;
  } catch {
    return undefined;
  }
}

export function spawnTtyProcess(cmd: readonly string[], firstSizeWaitMs = FIRST_SIZE_WAIT_MS): StreamProcess {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let settle: (outcome: ProcessOutcome) => void = () => undefined;
  const done = new Promise<ProcessOutcome>((resolve) => (settle = resolve));
  let pid: number | undefined;
  let started = false;
  let killed = false;
  let kill: () => void = () => undefined;

  const start = (size?: TerminalSize) => {
    if (started || killed) return;
    started = true;
    clearTimeout(timer);
    const [bin, ...args] = scriptCommand(cmd, size);
    const child = spawn(bin, args, { stdio: ["pipe", "pipe", "pipe"] });
    pid = child.pid;
    kill = () => void (child.exitCode === null && child.kill("SIGKILL"));
    child.stdin.on("error", () => undefined);
    stdin.pipe(child.stdin);
    child.stdout.pipe(stdout, { end: false });
    child.stderr.pipe(stdout, { end: false });
    child.once("error", (err) => {
      stdout.end();
      settle({ error: `OCI runtime exec failed: exec failed: unable to start container process: ${err.message}: unknown` });
    });
    child.once("close", (code, signal) => {
      stdout.end();
      settle({ exitCode: code ?? (signal ? 128 + 9 : 1) });
    });
  };
  const timer = setTimeout(() => start(), firstSizeWaitMs);

  return {
    stdin,
    stdout,
    stderr: null,
    done,
    kill: () => {
      killed = true;
      clearTimeout(timer);
      kill();
      if (!started) {
        stdout.end();
        settle({ exitCode: 128 + 9 });
      }
    },
    resize: async (size) => {
      if (!started) return start(size);
      const device = pid === undefined ? undefined : await commandTerminal(pid);
      if (!device) return;
      await new Promise<void>((resolve) => {
        const stty = spawn("stty", ["-F", device, "cols", String(size.width), "rows", String(size.height)], { stdio: "ignore" });
        stty.once("error", () => resolve());
        stty.once("close", () => resolve());
      });
    },
  };
}
