/**
 * Shared set-up of the kubectl suites: one apiserver process per suite, a private
 * HOME (kubectl's discovery cache and config edits stay in it), and a runner that
 * fails a test with kubectl's own output when a command that must succeed does not.
 */
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runClient, type RunOptions, type RunResult } from "../support/clients.ts";
import { startServerProcess, type ServerProcess } from "../support/server-process.ts";

export const FIXTURES = join(import.meta.dirname, "fixtures");

export interface KubectlEnv {
  server: ServerProcess;
  home: string;
  /** A copy of the admin kubeconfig that tests may edit (`kubectl config ...`). */
  kubeconfig: string;
  env: Record<string, string>;
  /** Runs kubectl; rejects with its output on a non-zero exit. */
  ok(args: string[], opts?: RunOptions): Promise<string>;
  /** Runs kubectl and returns the exit code and both streams. */
  run(args: string[], opts?: RunOptions): Promise<RunResult>;
  close(): Promise<void>;
}

export async function kubectlEnv(bin: string): Promise<KubectlEnv> {
  const server = await startServerProcess();
  const home = await mkdtemp(join(tmpdir(), "e2e-kubectl-home-"));
  const kubeconfig = join(home, "config");
  await copyFile(server.kubeconfig, kubeconfig);
  // TMPDIR too: kubectl edit and diff leave their files there.
  const env = { HOME: home, TMPDIR: home, KUBECONFIG: kubeconfig, KUBECTL_EXTERNAL_DIFF: "", KUBE_EDITOR: "false" };
  const run = (args: string[], opts: RunOptions = {}) => runClient(bin, args, { ...opts, env: { ...env, ...opts.env } });
  return {
    server,
    home,
    kubeconfig,
    env,
    run,
    async ok(args, opts) {
      const r = await run(args, opts);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
      return r.stdout;
    },
    async close() {
      await server.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** Header cells of a table printed by `kubectl get`. */
export function headerOf(table: string): string[] {
  return (table.split("\n")[0] ?? "").trim().split(/\s{2,}/);
}

/** Rows (without the header) as arrays of cells. */
export function rowsOf(table: string): string[][] {
  return table
    .split("\n")
    .slice(1)
    .filter((l) => l.trim() !== "")
    .map((l) => l.trim().split(/\s{2,}/));
}
