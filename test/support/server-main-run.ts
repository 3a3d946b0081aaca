/**
 * One run of the server's entry point (services/embedded/main.ts) as a child process, for
 * tests of start-up failures and `--help`: the output and exit code once it exits (killed
 * after `timeoutMs`). A run that starts serving must be given flags that make it exit.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");
const MAIN = join(ROOT, "services", "embedded", "main.ts");

export interface MainRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runServerMain(args: readonly string[], timeoutMs = 25_000): Promise<MainRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_OPTIONS: "" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
