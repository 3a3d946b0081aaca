/**
 * Node agents in the local cluster, end to end: `npm run cluster -- up --node-agents 2`
 * (one store member, two apiserver replicas behind haproxy, the controller managers, two
 * node-agent processes) with a test container runtime on each agent's
 * `--container-runtime-endpoint` socket. Both Nodes register Ready and renew their
 * Leases; a pod bound to each node through pods/binding (what a scheduler posts) is
 * listed by that node's agent only; `kubectl logs`, `kubectl exec` (also with stdin),
 * `kubectl cp`, `kubectl port-forward` (kubectl 1.34) and the agent's `/run` through
 * nodes/proxy reach the runtime of the pod's own node.
 * cluster-info is readable anonymously and signed for a bootstrap token. Last, one
 * replica is killed with SIGKILL: both agents' next Lease renewals go through the other
 * one, within the renew interval (10 s, a quarter of the 40 s lease) plus the 7 s
 * backoff cap.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type AddressInfo, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pkiPaths } from "../../services/apiserver/server/certs.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { compactVerify } from "jose";
import { parse } from "yaml";
import { layerClients, runClient } from "../support/clients.ts";
import { startCriServer, type CriServer } from "../support/cri-server.ts";
import { HttpsClient } from "../support/https-client.ts";
import { freePort } from "../support/ports.ts";
import { localCluster } from "../deploy/support/local-cluster.ts";
import { waitFor, writeKubeconfig } from "../node-agent/harness.ts";

const NODES = ["local-node-1", "local-node-2"];
const NS = "default";
const profile = getProfile("kubernetes");
const local = localCluster();
const runtimes: CriServer[] = [];
/** The runtime's container id of each pod's `app` container, by pod name. */
const appIds = new Map<string, string>();
let admin: HttpsClient;
let kubeconfig: string;

interface NodeCondition {
  type: string;
  status: string;
}

const podName = (node: string) => `on-${node}`;

beforeAll(async () => {
  // The agents' runtime sockets are <dir>/<node>/runtime.sock (node-agent-component.ts): the runtimes listen before the agents start.
  for (const node of NODES) {
    mkdirSync(join(local.dir, node), { recursive: true, mode: 0o750 });
    runtimes.push(await startCriServer({ socket: join(local.dir, node, "runtime.sock") }));
  }
  await local.run("up", "--nodes", "1", "--replicas", "2", "--node-agents", String(NODES.length), "--profile", "kubernetes");
  admin = local.admin();
  const pki = pkiPaths(join(local.dir, "apiserver"));
  kubeconfig = writeKubeconfig(join(local.dir, "kubectl.kubeconfig"), String(local.state().outputs.loadBalancer), readFileSync(pki.caCert, "utf8"), {
    cert: { certPem: readFileSync(pki.adminCert, "utf8"), keyPem: readFileSync(pki.adminKey, "utf8") },
  });
}, 150_000);

afterAll(async () => {
  admin?.close();
  await local.remove();
  for (const r of runtimes) await r.close();
}, 60_000);

describe("two node agents in npm run cluster", () => {
  it("registers both Nodes Ready with their Leases renewed", async () => {
    const ready = (node: string) =>
      waitFor(async () => {
        const res = await admin.get(`/api/v1/nodes/${node}`);
        const found = res.status === 200 ? res.json<{ status?: { conditions?: NodeCondition[] } }>().status?.conditions : undefined;
        return found?.some((c) => c.type === "Ready" && c.status === "True") ? found : undefined;
      }, 30_000, `${node} Ready`);
    const conditions = await Promise.all(NODES.map(ready));
    for (const [i, node] of NODES.entries()) {
      expect(conditions[i].map((c) => c.type)).toEqual(expect.arrayContaining(["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"]));
      // The Lease controller starts beside registration, not after it: a Node can be Ready before its first Lease write (a create that met the
      // node-lease namespace still being made is retried after 200 ms doubling), so wait for the Lease for one renew interval plus the backoff cap.
      const holder = await waitFor(async () => {
        const lease = await admin.get(`/apis/${profile.group("coordination")}/v1/namespaces/${profile.nodeLeaseNamespace}/leases/${node}`);
        return lease.status === 200 ? lease.json<{ spec: { holderIdentity: string } }>().spec.holderIdentity : undefined;
      }, 17_000, `${node}'s Lease`);
      expect(holder).toBe(node);
    }
  });

  it("binds a pod to each node; each agent lists only its own pod", async () => {
    for (const [i, node] of NODES.entries()) {
      const name = podName(node);
      const created = await admin.post(`/api/v1/namespaces/${NS}/pods`, {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name },
        spec: { automountServiceAccountToken: false, containers: [{ name: "app", image: "busybox:1.36" }] },
      });
      expect(created.status, created.text).toBe(201);
      const bound = await admin.post(`/api/v1/namespaces/${NS}/pods/${name}/binding`, { apiVersion: "v1", kind: "Binding", metadata: { name }, target: { apiVersion: "v1", kind: "Node", name: node } });
      expect(bound.status, bound.text).toBe(201);
      const uid = created.json<{ metadata: { uid: string } }>().metadata.uid;
      const id = runtimes[i].addPod({ name, namespace: NS, uid, containers: ["app"] }).containerIds.app;
      appIds.set(name, id);
      writeFileSync(runtimes[i].logPath(id), `2026-01-01T10:00:00.000000001Z stdout F hello from ${node}\n`);
    }
    for (const node of NODES) {
      const listed = await waitFor(async () => {
        const res = await admin.get(`/api/v1/nodes/${node}/proxy/pods`);
        const names = res.status === 200 ? res.json<{ items: Array<{ metadata: { name: string } }> }>().items.map((p) => p.metadata.name) : [];
        return names.includes(podName(node)) ? names : undefined;
      }, 20_000, `${node}'s agent listing its pod`);
      expect(listed).toEqual([podName(node)]);
    }
  });

  it("kubectl logs and kubectl exec reach the runtime of the pod's node", async () => {
    const kubectl = layerClients().kubectl;
    for (const [i, node] of NODES.entries()) {
      const name = podName(node);
      const logs = await runClient(kubectl, ["--kubeconfig", kubeconfig, "-n", NS, "logs", name]);
      expect(logs.stdout, logs.stderr).toBe(`hello from ${node}\n`);
      const exec = await runClient(kubectl, ["--kubeconfig", kubeconfig, "-n", NS, "exec", name, "--", "echo", `ran on ${node}`]);
      expect(exec.code, exec.stderr).toBe(0);
      expect(exec.stdout).toBe(`ran on ${node}\n`);
      const execs = (r: CriServer) => r.calls.filter((c) => c.method === "Exec" && c.request.container_id === appIds.get(name));
      expect(execs(runtimes[i])).toHaveLength(1);
      expect(execs(runtimes[1 - i])).toHaveLength(0);
    }
  });

  it("cluster-info is readable anonymously with the load balancer and CA, and signed for a bootstrap token", async () => {
    const lb = String(local.state().outputs.loadBalancer);
    const caPem = readFileSync(pkiPaths(join(local.dir, "apiserver")).caCert, "utf8");
    const anonymous = new HttpsClient(lb, { ca: caPem });
    try {
      const path = `/api/v1/namespaces/${profile.publicNamespace}/configmaps`;
      const info = await anonymous.get(`${path}/cluster-info`);
      expect(info.status, info.text).toBe(200);
      const kubeconfig = info.json<{ data: Record<string, string> }>().data.kubeconfig;
      const cluster = (parse(kubeconfig) as { clusters: Array<{ cluster: { server: string; "certificate-authority-data": string } }> }).clusters[0].cluster;
      expect(cluster.server).toBe(lb);
      expect(Buffer.from(cluster["certificate-authority-data"], "base64").toString()).toBe(caPem);
      // Only that ConfigMap: its list and another ConfigMap stay forbidden.
      expect((await anonymous.get(path)).status).toBe(403);
      expect((await admin.post(path, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "not-public" } })).status).toBe(201);
      expect((await anonymous.get(`${path}/not-public`)).status).toBe(403);

      // The cluster's controller managers run the bootstrap signer: a signing token's JWS appears, verified with its secret.
      const token = { id: "lbtk01", secret: "0123456789abcdef" };
      const secret = await admin.post(`/api/v1/namespaces/${profile.systemNamespace}/secrets`, {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: `bootstrap-token-${token.id}` },
        type: profile.secretTypes.bootstrapToken,
        stringData: { "token-id": token.id, "token-secret": token.secret, "usage-bootstrap-signing": "true" },
      });
      expect(secret.status, secret.text).toBe(201);
      const jws = await waitFor(async () => {
        const r = await anonymous.get(`${path}/cluster-info`);
        return r.status === 200 ? r.json<{ data: Record<string, string> }>().data[`jws-kubeconfig-${token.id}`] : undefined;
      }, 20_000, "cluster-info signed for the token");
      const [header, , signature] = jws.split(".");
      const verified = await compactVerify(`${header}.${Buffer.from(kubeconfig).toString("base64url")}.${signature}`, new TextEncoder().encode(token.secret));
      expect(new TextDecoder().decode(verified.payload)).toBe(kubeconfig);
    } finally {
      anonymous.close();
    }
  });

  it("nodes/proxy to /run runs the command through the runtime of that node", async () => {
    for (const [i, node] of NODES.entries()) {
      const name = podName(node);
      const res = await admin.request("POST", `/api/v1/nodes/${node}/proxy/run/${NS}/${name}/app?cmd=${encodeURIComponent(`echo run on ${node}`)}`);
      expect(res.status, res.text).toBe(200);
      expect(res.text).toBe(`run on ${node}\n`);
      const syncs = (r: CriServer) => r.calls.filter((c) => c.method === "ExecSync" && c.request.container_id === appIds.get(name));
      expect(syncs(runtimes[i])).toHaveLength(1);
      expect(syncs(runtimes[1 - i])).toHaveLength(0);
    }
  });

  it("kubectl exec -i with stdin, kubectl cp and kubectl port-forward reach the pod's node", async () => {
    const kubectl = layerClients().kubectl;
    const work = mkdtempSync(join(tmpdir(), "cluster-node-agents-"));
    const echoes: Server[] = [];
    try {
      for (const [i, node] of NODES.entries()) {
        const name = podName(node);
        const execs = (r: CriServer) => r.calls.filter((c) => c.method === "Exec" && c.request.container_id === appIds.get(name)).length;
        const before = [execs(runtimes[0]), execs(runtimes[1])];
        // A scripted stdin through the stream.
        const piped = await runClient(kubectl, ["--kubeconfig", kubeconfig, "-n", NS, "exec", "-i", name, "--", "tr", "a-z", "A-Z"], { input: `typed on ${node}\n` });
        expect(piped.code, piped.stderr).toBe(0);
        expect(piped.stdout).toBe(`TYPED ON ${node.toUpperCase()}\n`);
        // kubectl cp: tar through exec, in and back out.
        writeFileSync(join(work, `${node}.txt`), `copied to ${node}\n`);
        const up = await runClient(kubectl, ["--kubeconfig", kubeconfig, "-n", NS, "cp", join(work, `${node}.txt`), `${name}:${work}/${node}-inside.txt`, "-c", "app"]);
        expect(up.code, up.stderr).toBe(0);
        const down = await runClient(kubectl, ["--kubeconfig", kubeconfig, "-n", NS, "cp", `${name}:${work}/${node}-inside.txt`, join(work, `${node}-back.txt`), "-c", "app"]);
        expect(down.code, down.stderr).toBe(0);
        expect(readFileSync(join(work, `${node}-back.txt`), "utf8")).toBe(`copied to ${node}\n`);
        // Every one of those streams went to this node's runtime, none to the other's.
        expect(execs(runtimes[i]) - before[i]).toBeGreaterThanOrEqual(3);
        expect(execs(runtimes[1 - i]) - before[1 - i]).toBe(0);

        // Port 8080 of the pod is a TCP server of this node's runtime that names its node.
        const echo = createServer((socket) => socket.once("data", (d: Buffer) => socket.end(`${node}: ${d.toString()}`)));
        echoes.push(echo);
        await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
        runtimes[i].portMap.set(8080, (echo.address() as AddressInfo).port);
        // What an agent reports for a started pod (kubectl port-forward asks for Running); our agents post Node status only.
        const running = await admin.patch(`/api/v1/namespaces/${NS}/pods/${name}/status`, { status: { phase: "Running" } }, "application/merge-patch+json");
        expect(running.status, running.text).toBe(200);
        const localPort = await freePort();
        const child = spawn(kubectl, ["--kubeconfig", kubeconfig, "-n", NS, "port-forward", `pod/${name}`, `${localPort}:8080`], { stdio: ["ignore", "pipe", "pipe"] });
        try {
          let out = "";
          child.stdout.on("data", (d: Buffer) => (out += d.toString()));
          child.stderr.on("data", (d: Buffer) => (out += d.toString()));
          await waitFor(async () => (/Forwarding from 127\.0\.0\.1/.test(out) ? true : undefined), 20_000, `kubectl port-forward to ${name} listening`).catch((err: Error) => {
            throw new Error(`${err.message}: ${out}`);
          });
          const answer = await new Promise<string>((resolve, reject) => {
            const socket = connect(localPort, "127.0.0.1", () => socket.write("ping"));
            let got = "";
            socket.on("data", (d: Buffer) => (got += d.toString()));
            socket.on("close", () => resolve(got));
            socket.on("error", reject);
            setTimeout(() => socket.destroy(new Error(`no answer within 10 s: ${JSON.stringify(got)} ${out}`)), 10_000).unref();
          });
          expect(answer).toBe(`${node}: ping`);
        } finally {
          child.kill();
        }
      }
    } finally {
      for (const e of echoes) e.close();
      rmSync(work, { recursive: true, force: true });
    }
  });

  it("heartbeats go on through the other replica after SIGKILL of one, within the renew interval plus the backoff cap", async () => {
    const renewTime = async (node: string): Promise<number | undefined> => {
      const res = await admin.get(`/apis/${profile.group("coordination")}/v1/namespaces/${profile.nodeLeaseNamespace}/leases/${node}`).catch(() => undefined);
      return res?.status === 200 ? Date.parse(res.json<{ spec: { renewTime: string } }>().spec.renewTime) : undefined;
    };
    // Every renewal time each lease shows, read every 200 ms (a renewal comes every 10 s).
    const seen = new Map<string, Set<number>>(NODES.map((n) => [n, new Set<number>()]));
    let polling = true;
    const poller = (async () => {
      while (polling) {
        for (const node of NODES) {
          const t = await renewTime(node);
          if (t !== undefined) seen.get(node)?.add(t);
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    try {
      await waitFor(() => (NODES.every((n) => (seen.get(n)?.size ?? 0) > 0) ? true : undefined), 10_000, "both leases read");
      const victim = local.state().processes.find((p) => p.role === "apiserver");
      if (victim === undefined) throw new Error("no apiserver in the state");
      process.kill(victim.pid, "SIGKILL");
      const killedAt = Date.now();
      const renewedAfter = (node: string) => [...(seen.get(node) ?? [])].filter((t) => t > killedAt);
      await waitFor(() => (NODES.every((n) => renewedAfter(n).length > 0) ? true : undefined), 25_000, "both leases renewed after the kill");
      const gaps = NODES.map((n) => Math.min(...renewedAfter(n)) - Math.max(...[...(seen.get(n) ?? [])].filter((t) => t <= killedAt)));
      console.log(`lease renewal gaps across the SIGKILL of ${victim.name}: ${gaps.join(", ")} ms`);
      for (const gap of gaps) expect(gap).toBeLessThanOrEqual(10_000 + 7_000);
    } finally {
      polling = false;
      await poller;
    }
  }, 40_000);
});
