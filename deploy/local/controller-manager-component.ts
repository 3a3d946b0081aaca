/**
 * The controller managers of the local topology: two processes
 * (services/controller-manager/main.ts) under leader election, one leading, each
 * reaching the API through the load balancer with the admin client configuration (its
 * server rewritten to haproxy's address), serving health and metrics on its own port,
 * signing approved CSRs with the cluster CA the apiservers generated, and running the
 * bootstrap signer and token cleaner as the platform's installer turns them on.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseDocument } from "yaml";
import { pkiPaths } from "../../services/apiserver/server/certs.ts";
import { REPO_ROOT } from "../../services/store/server/node-process.ts";
import type { ClusterComponent, ComponentContext } from "./components.ts";
import type { ProcessRecord } from "./state.ts";

const CONTROLLER_MANAGER_MAIN = join(REPO_ROOT, "services", "controller-manager", "main.ts");
export const CONTROLLER_MANAGER_REPLICAS = 2;

/** Resolves once `path` exists; throws after `timeoutMs`. */
export async function waitForFile(path: string, timeoutMs: number): Promise<void> {
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
    const { dir, host, nodes, replicas, profile } = ctx.opts;
    const admin = ctx.outputs.adminKubeconfig as string;
    await waitForFile(admin, 30_000);
    const kubeconfig = join(dir, "controller-manager.kubeconfig");
    kubeconfigFor(admin, String(ctx.outputs.loadBalancer ?? (ctx.outputs.apiserverEndpoints as string[])[0]), kubeconfig);
    const pki = pkiPaths(join(dir, "apiserver"));
    mkdirSync(join(dir, "logs"), { recursive: true });
    const records: ProcessRecord[] = [];
    for (let i = 0; i < CONTROLLER_MANAGER_REPLICAS; i++) {
      const name = `controller-manager-${i + 1}`;
      const port = await ctx.port(2 * nodes + 2 + replicas + i);
      const log = join(dir, "logs", `${name}.log`);
      const fd = openSync(log, "a");
      const args = [
        "--import", "tsx", CONTROLLER_MANAGER_MAIN,
        "--kubeconfig", kubeconfig,
        "--authentication-kubeconfig", kubeconfig,
        "--authorization-kubeconfig", kubeconfig,
        "--secure-port", String(port),
        "--bind-address", host,
        "--cert-dir", join(dir, name),
        "--cluster-signing-cert-file", pki.caCert,
        "--cluster-signing-key-file", pki.caKey,
        // The installer's choice (kubeadm's): the bootstrap signer and token cleaner, off by default, run too.
        "--controllers", "*,bootstrapsigner,tokencleaner",
        "--profile", profile,
      ];
      const child = spawn(process.execPath, args, { cwd: REPO_ROOT, detached: true, stdio: ["ignore", fd, fd] });
      child.unref();
      if (child.pid === undefined) throw new Error(`${name} did not start`);
      records.push({ role: "controller-manager", name, pid: child.pid, endpoint: `https://${host}:${port}`, log, match: join(dir, name) });
      ctx.log(`${name} pid ${child.pid} https://${host}:${port}/healthz (log ${log})`);
    }
    return records;
  },
};
