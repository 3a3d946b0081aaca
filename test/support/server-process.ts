/**
 * The apiserver as a real process (`services/embedded/main.ts`, the embedded default with its controllers)
 * for end-to-end tests with the platform's clients: a temporary data dir, a random
 * loopback port, the admin kubeconfig it writes, and restart on the same port and data.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");
const MAIN = join(ROOT, "services", "embedded", "main.ts");
const LISTENING = /API server listening on (https:\/\/127\.0\.0\.1:(\d+))/;

export interface ServerProcess {
  url: string;
  port: number;
  dir: string;
  kubeconfig: string;
  /** Everything the process printed so far (for failure messages). */
  output(): string;
  /** Sends `signal` to the running process (SIGSTOP and SIGCONT freeze and thaw it). */
  signal(signal: NodeJS.Signals): void;
  /** Stops the process (SIGTERM, then SIGKILL) and starts it again on the same port and data dir. */
  restart(): Promise<void>;
  /** Stops the process and removes the data dir. */
  close(): Promise<void>;
}

interface Running {
  child: ChildProcess;
  exited: Promise<void>;
}

async function launch(dir: string, port: number, log: string[], extraArgs: string[]): Promise<{ running: Running; url: string; port: number }> {
  const args = ["--import", "tsx", MAIN, "--data-dir", dir, "--secure-port", String(port), "--bind-address", "127.0.0.1", "--profile", "kubernetes", ...extraArgs];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_OPTIONS: "" } });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const running = { child, exited };
  return new Promise((resolve, reject) => {
    let buffer = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`apiserver did not start within 60 s:\n${log.join("")}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      log.push(text);
      buffer += text;
      const m = LISTENING.exec(buffer);
      if (m) {
        clearTimeout(timer);
        buffer = "";
        resolve({ running, url: m[1], port: Number(m[2]) });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => log.push(chunk.toString()));
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`apiserver exited before listening (code ${code}, signal ${signal}):\n${log.join("")}`));
    });
  });
}

async function stop(r: Running): Promise<void> {
  if (r.child.exitCode !== null || r.child.signalCode !== null) return;
  r.child.kill("SIGCONT"); // a frozen process would not act on SIGTERM
  r.child.kill("SIGTERM");
  const killed = await Promise.race([r.exited.then(() => true), new Promise<boolean>((res) => setTimeout(() => res(false), 10_000))]);
  if (!killed) {
    r.child.kill("SIGKILL");
    await r.exited;
  }
}

/** Starts `main.ts --profile kubernetes` on a random port with a fresh data dir. */
export async function startServerProcess(extraArgs: string[] = []): Promise<ServerProcess> {
  const dir = await mkdtemp(join(tmpdir(), "e2e-apiserver-"));
  const log: string[] = [];
  let current: Running | undefined;
  try {
    const first = await launch(dir, 0, log, extraArgs);
    current = first.running;
    const port = first.port;
    return {
      url: first.url,
      port,
      dir,
      kubeconfig: join(dir, "admin.kubeconfig"),
      output: () => log.join(""),
      signal(signal) {
        current?.child.kill(signal);
      },
      async restart() {
        if (current) await stop(current);
        current = undefined;
        // The port was ours a moment ago; retry briefly in case the kernel still holds it.
        for (let attempt = 0; ; attempt++) {
          try {
            current = (await launch(dir, port, log, extraArgs)).running;
            return;
          } catch (err) {
            if (attempt >= 5 || !/EADDRINUSE/.test(String(err))) throw err;
            await new Promise((r) => setTimeout(r, 500));
          }
        }
      },
      async close() {
        if (current) await stop(current);
        current = undefined;
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
