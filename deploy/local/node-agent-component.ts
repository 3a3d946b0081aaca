/**
 * The node agents of the local topology (`--node-agents N`, default none): processes of
 * services/node-agent/main.ts named `local-node-<i>`, each with its own root dir under
 * the cluster dir, a client certificate for `system:node:<name>` in `system:nodes`
 * signed by the cluster CA, reaching the API through the load balancer, and serving its
 * HTTPS API on its own port at the Node's InternalIP (`--node-ip`, the listen address). No container runtime runs here: unless
 * `--container-runtime-endpoint` would answer, the agents report Ready=False.
 */
import { spawn } from "node:child_process";
import { mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { createClientCert, loadCA, pkiPaths } from "../../services/apiserver/server/certs.ts";
import { REPO_ROOT } from "../../services/store/server/node-process.ts";
import type { ClusterComponent, ComponentContext } from "./components.ts";
import { CONTROLLER_MANAGER_REPLICAS } from "./controller-manager-component.ts";
import type { ProcessRecord } from "./state.ts";

const NODE_AGENT_MAIN = join(REPO_ROOT, "services", "node-agent", "main.ts");

export const nodeAgentComponent: ClusterComponent = {
  name: "node-agent",
  async up(ctx: ComponentContext) {
    const { dir, host, nodes, replicas, profile } = ctx.opts;
    const count = ctx.opts.nodeAgents ?? 0;
    if (count === 0) return [];
    const pki = pkiPaths(join(dir, "apiserver"));
    const caPem = readFileSync(pki.caCert, "utf8");
    const ca = await loadCA(caPem, readFileSync(pki.caKey, "utf8"));
    const server = String(ctx.outputs.loadBalancer ?? (ctx.outputs.apiserverEndpoints as string[])[0]);
    mkdirSync(join(dir, "logs"), { recursive: true });
    const records: ProcessRecord[] = [];
    for (let i = 0; i < count; i++) {
      const name = `local-node-${i + 1}`;
      const root = join(dir, name);
      mkdirSync(root, { recursive: true, mode: 0o750 });
      const cert = await createClientCert(ca, { user: `system:node:${name}`, groups: ["system:nodes"] });
      const b64 = (s: string) => Buffer.from(s).toString("base64");
      const kubeconfig = join(root, "kubeconfig");
      writeFileSync(
        kubeconfig,
        stringify({
          apiVersion: "v1",
          kind: "Config",
          clusters: [{ name: "local", cluster: { server, "certificate-authority-data": b64(caPem) } }],
          users: [{ name, user: { "client-certificate-data": b64(cert.certPem), "client-key-data": b64(cert.keyPem) } }],
          contexts: [{ name: "local", context: { cluster: "local", user: name } }],
          "current-context": "local",
        }),
        { mode: 0o600 },
      );
      const port = await ctx.port(2 * nodes + 2 + replicas + CONTROLLER_MANAGER_REPLICAS + i);
      const log = join(dir, "logs", `${name}.log`);
      const fd = openSync(log, "a");
      const args = ["--import", "tsx", NODE_AGENT_MAIN, "--kubeconfig", kubeconfig, "--root-dir", root, "--hostname-override", name, "--address", host, "--node-ip", host, "--port", String(port), "--client-ca-file", pki.caCert, "--container-runtime-endpoint", `unix://${join(root, "runtime.sock")}`, "--profile", profile];
      const child = spawn(process.execPath, args, { cwd: REPO_ROOT, detached: true, stdio: ["ignore", fd, fd] });
      child.unref();
      if (child.pid === undefined) throw new Error(`${name} did not start`);
      records.push({ role: "node-agent", name, pid: child.pid, endpoint: `https://${host}:${port}`, log, match: root });
      ctx.log(`${name.padEnd(11)} https://${host}:${port} pid ${child.pid} (log ${log})`);
    }
    return records;
  },
};
