/**
 * Controller-manager processes for tests: `services/controller-manager/main.ts` as a
 * real child process against a test apiserver, with its own kubeconfig (the admin
 * client certificate), a random health port on 127.0.0.1, captured output, and the
 * structured log lines it printed. `stopAll()` kills whatever is still running.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensurePki, kubeconfigYaml } from "../../services/apiserver/server/certs.ts";
import type { TestApiserver } from "../support/apiserver.ts";
import { freePort } from "../support/ports.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const MAIN = join(ROOT, "services", "controller-manager", "main.ts");

export interface LogLine {
  level: number;
  time: string;
  msg: string;
  [field: string]: unknown;
}

export interface ControllerManagerProcess {
  child: ChildProcess;
  port: number;
  output(): string;
  logs(): LogLine[];
  exited: Promise<number | null>;
}

const children: ChildProcess[] = [];

export async function writeAdminKubeconfig(api: TestApiserver, file = "cm.kubeconfig"): Promise<string> {
  const pki = await ensurePki(api.dir, { profile: api.profile });
  const path = join(api.dir, file);
  writeFileSync(path, kubeconfigYaml({ server: api.replica.url, caPem: pki.ca.certPem, certPem: pki.admin.certPem, keyPem: pki.admin.keyPem, user: "admin", clusterName: "local", contextName: "admin@local" }));
  return path;
}

export async function startControllerManager(kubeconfig: string, profileId: string, args: string[]): Promise<ControllerManagerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, "--kubeconfig", kubeconfig, "--profile", profileId, "--secure-port", String(port), "--bind-address", "127.0.0.1", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  children.push(child);
  let out = "";
  child.stdout?.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    port,
    output: () => out,
    logs: () =>
      out
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as LogLine),
    exited,
  };
}

export function stopAll(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  children.length = 0;
}

export async function eventually<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 20_000, stepMs = 100): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
