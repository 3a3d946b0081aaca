/**
 * The controller manager of the local topology: one process (services/controller-manager/main.ts)
 * reaching the API through the load balancer with the admin client configuration
 * (its server rewritten to haproxy's address). Leader election comes later: one instance.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseDocument } from "yaml";
import { REPO_ROOT } from "../../services/store/server/node-process.ts";
import type { ClusterComponent, ComponentContext } from "./components.ts";
import type { ProcessRecord } from "./state.ts";

const CONTROLLER_MANAGER_MAIN = join(REPO_ROOT, "services", "controller-manager", "main.ts");

async function waitForFile(path: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`${path} did not appear within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Writes a copy of the admin configuration whose clusters point at `server`. */
function kubeconfigFor(admin: string, server: string, path: string): void {
  const doc = parseDocument(readFileSync(admin, "utf8"));
  const clusters = doc.get("clusters") as { items: Array<{ setIn(path: string[], v: unknown): void }> } | undefined;
  for (const c of clusters?.items ?? []) c.setIn(["cluster", "server"], server);
  writeFileSync(path, doc.toString(), { mode: 0o600 });
}

export const controllerManagerComponent: ClusterComponent = {
  name: "controller-manager",
  async up(ctx: ComponentContext) {
    const { dir } = ctx.opts;
    const admin = ctx.outputs.adminKubeconfig as string;
    await waitForFile(admin, 30_000);
    const kubeconfig = join(dir, "controller-manager.kubeconfig");
    kubeconfigFor(admin, String(ctx.outputs.loadBalancer ?? (ctx.outputs.apiserverEndpoints as string[])[0]), kubeconfig);
    mkdirSync(join(dir, "logs"), { recursive: true });
    const log = join(dir, "logs", "controller-manager.log");
    const fd = openSync(log, "a");
    const child = spawn(process.execPath, ["--import", "tsx", CONTROLLER_MANAGER_MAIN, "--kubeconfig", kubeconfig], { cwd: REPO_ROOT, detached: true, stdio: ["ignore", fd, fd] });
    child.unref();
    if (child.pid === undefined) throw new Error("controller-manager did not start");
    const record: ProcessRecord = { role: "controller-manager", name: "controller-manager", pid: child.pid, endpoint: "-", log, match: kubeconfig };
    ctx.log(`controller-manager pid ${child.pid} (log ${log})`);
    return [record];
  },
};
