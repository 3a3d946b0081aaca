/**
 * `npm run bench -- nodes`: how many simulated node agents one apiserver process
 * sustains below 50% of one core. The server (nodes-target.ts, NODES_TOPOLOGY):
 * `embedded` (default), the embedded default as a real process (its store and controllers
 * run in it too, so the figure is a lower bound for a bare replica); or `cluster`, one
 * replica on the cluster path (a store node over gRPC, the revision stream in Redis).
 * Each simulated node renews its Lease every 10 s (a PUT of the lease it wrote
 * last, as the agent does) and patches its Node status every 5 minutes, spread evenly
 * over the period; they share 32 keep-alive connections. For each step of node counts
 * (NODES_STEPS, default 1000,2000,5000,8000) the nodes are created, one lease period is
 * let pass, then the server's CPU (from /proc) and the write latencies are measured over
 * NODES_WINDOW_S seconds (default 20). Stops at the first step at or above 50%, with errors,
 * or whose writes fell below 90% of the offered rate (the server did not keep up).
 * On a machine shared with other work the server may get less CPU than it asks for, so
 * the bench also reports the server's CPU cost per write and the node count that cost
 * allows at 50% of one core (each node: 0.1 lease writes/s + 1/300 status writes/s).
 * NODES_CPU_PROF=<dir> (cluster only): each step's window of the replica is profiled
 * (V8's sampler over its inspector) into <dir>/nodes-<count>.cpuprofile, summarised on stderr.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import type { ApiObject, ResourceRef } from "../../shared/client/object-client.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { renderSummary, summarizeProfile } from "./cpu-profile-summary.ts";
import { cpuSeconds, machineLoad } from "./harness.ts";
import { startNodesTarget, type NodesTopology } from "./nodes-target.ts";

const LEASE_PERIOD_MS = 10_000;
const STATUS_PERIOD_MS = 300_000;
const CONNECTIONS = 32;
const CPU_LIMIT_PCT = 50;
/** A step counts as sustained only when at least this share of the offered writes was done in the window. */
const KEPT_UP_SHARE = 0.9;

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] : 0;
}

interface SimNode {
  name: string;
  lease: ApiObject;
  client: HttpsObjectClient;
}

export async function benchNodes(): Promise<Record<string, number>> {
  const steps = (process.env.NODES_STEPS ?? "1000,2000,5000,8000").split(",").map(Number).filter((n) => n > 0);
  const windowMs = Number(process.env.NODES_WINDOW_S ?? 20) * 1000;
  const profile = getProfile("kubernetes");
  const topology: NodesTopology = process.env.NODES_TOPOLOGY === "cluster" ? "cluster" : "embedded";
  const profileDir = process.env.NODES_CPU_PROF;
  const target = await startNodesTarget(topology, { inspect: !!profileDir });
  const { pid, config } = target;
  const inspector = profileDir ? await target.profiler() : undefined;
  if (profileDir && !inspector) process.stderr.write(`NODES_CPU_PROF: no inspector on the ${topology} server; not profiled\n`);
  const clients = Array.from({ length: CONNECTIONS }, () => new HttpsObjectClient(config));
  const nodesRes: ResourceRef = { group: "", version: "v1", resource: "nodes" };
  const leasesRes: ResourceRef = { group: profile.group("coordination"), version: "v1", resource: "leases" };
  const ns = profile.nodeLeaseNamespace;
  const nodes: SimNode[] = [];
  const figures: Record<string, number> = {};
  let sustained = 0;

  const addNode = async (i: number): Promise<void> => {
    const name = `sim-node-${i}`;
    const client = clients[i % CONNECTIONS];
    await client.create(nodesRes, { apiVersion: "v1", kind: "Node", metadata: { name, labels: { [profile.labels.hostname]: name } }, spec: {} });
    const lease = await client.create(leasesRes, { apiVersion: `${leasesRes.group}/v1`, kind: "Lease", metadata: { name, namespace: ns }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: new Date().toISOString().replace("Z", "000Z") } }, { namespace: ns });
    nodes.push({ name, lease, client });
  };

  try {
    for (const target of steps) {
      for (let next = nodes.length; next < target; ) {
        const batch: Array<Promise<void>> = [];
        for (let k = 0; k < 64 && next < target; k++) batch.push(addNode(next++));
        await Promise.all(batch);
      }
      const latencies: number[] = [];
      let errors = 0;
      let writes = 0;
      let measuring = false;
      let stopped = false;
      const renew = async (n: SimNode, withStatus: boolean): Promise<void> => {
        const started = performance.now();
        try {
          const spec = { ...(n.lease.spec as Record<string, unknown>), renewTime: new Date().toISOString().replace("Z", "000Z") };
          // As the agent renews: the lease it wrote last, without managedFields (the server keeps the stored ones).
          const { managedFields: _managedFields, ...metadata } = n.lease.metadata;
          n.lease = await n.client.update(leasesRes, { ...n.lease, metadata, spec }, { namespace: ns });
          if (withStatus) {
            const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
            await n.client.patch(nodesRes, n.name, "strategic", { status: { conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status", lastHeartbeatTime: now, lastTransitionTime: now }] } }, { subresource: "status" });
          }
          if (measuring) latencies.push(performance.now() - started);
        } catch {
          if (measuring) errors++;
          try {
            n.lease = await n.client.get(leasesRes, n.name, { namespace: ns });
          } catch {
            // the next renewal retries
          }
        }
        if (measuring) writes += withStatus ? 2 : 1;
      };
      // Node i renews at offset i/N of each lease period; its status at offset i/N of the status period.
      const start = Date.now();
      const count = nodes.length;
      const nextLease = nodes.map((_n, i) => start + (i / count) * LEASE_PERIOD_MS);
      const nextStatus = nodes.map((_n, i) => start + (i / count) * STATUS_PERIOD_MS);
      const inflight = new Set<Promise<void>>();
      const loop = (async () => {
        while (!stopped) {
          const now = Date.now();
          for (let i = 0; i < count; i++) {
            if (nextLease[i] > now) continue;
            nextLease[i] += LEASE_PERIOD_MS;
            const withStatus = nextStatus[i] <= now;
            if (withStatus) nextStatus[i] += STATUS_PERIOD_MS;
            const p = renew(nodes[i], withStatus).finally(() => inflight.delete(p));
            inflight.add(p);
          }
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      await new Promise((r) => setTimeout(r, LEASE_PERIOD_MS));
      measuring = true;
      await inspector?.startCpuProfile();
      const cpu0 = cpuSeconds(pid);
      const t0 = performance.now();
      await new Promise((r) => setTimeout(r, windowMs));
      const cpuUsed = cpuSeconds(pid) - cpu0;
      const cpuPct = (cpuUsed / ((performance.now() - t0) / 1000)) * 100;
      measuring = false;
      if (inspector && profileDir) {
        const cpuProfile = (await inspector.stopCpuProfile()) as Parameters<typeof summarizeProfile>[0];
        mkdirSync(profileDir, { recursive: true });
        const file = join(profileDir, `nodes-${nodes.length}.cpuprofile`);
        writeFileSync(file, JSON.stringify(cpuProfile));
        process.stderr.write(renderSummary(file, summarizeProfile(cpuProfile, 30)));
      }
      stopped = true;
      await loop;
      await Promise.all([...inflight]);
      latencies.sort((a, b) => a - b);
      figures[`cpu_pct_of_one_core_at_${count}_nodes`] = Math.round(cpuPct * 10) / 10;
      figures[`writes_per_s_at_${count}_nodes`] = Math.round(writes / (windowMs / 1000));
      figures[`write_p50_ms_at_${count}_nodes`] = Math.round(percentile(latencies, 50) * 10) / 10;
      figures[`write_p99_ms_at_${count}_nodes`] = Math.round(percentile(latencies, 99) * 10) / 10;
      figures[`errors_at_${count}_nodes`] = errors;
      const cpuMsPerWrite = writes > 0 ? (cpuUsed * 1000) / writes : 0;
      figures[`server_cpu_ms_per_write_at_${count}_nodes`] = Math.round(cpuMsPerWrite * 100) / 100;
      if (cpuMsPerWrite > 0) figures.nodes_at_50pct_cpu_from_cost_per_write = Math.floor(((CPU_LIMIT_PCT / 100) * 1000) / (cpuMsPerWrite * (1000 / LEASE_PERIOD_MS + 1000 / STATUS_PERIOD_MS)));
      // The offered rate: a step whose writes fell behind it was not sustained, whatever the CPU figure.
      const offered = count * (1000 / LEASE_PERIOD_MS + 1000 / STATUS_PERIOD_MS);
      const keptUp = writes / (windowMs / 1000) >= KEPT_UP_SHARE * offered;
      figures[`kept_up_at_${count}_nodes`] = keptUp ? 1 : 0;
      process.stdout.write(`${topology}, ${count} nodes (${machineLoad()}): server CPU ${cpuPct.toFixed(1)}% of one core, ${figures[`writes_per_s_at_${count}_nodes`]} writes/s of ${Math.round(offered)} offered, p99 ${figures[`write_p99_ms_at_${count}_nodes`]} ms, ${errors} errors\n`);
      if (cpuPct >= CPU_LIMIT_PCT || errors > 0 || !keptUp) break;
      sustained = count;
    }
  } finally {
    for (const c of clients) c.close();
    inspector?.close();
    await target.close();
  }
  figures.nodes_sustained_below_50pct_cpu = sustained;
  figures.store_on_tmpfs = target.tmpfs ? 1 : 0;
  figures.cluster_path = topology === "cluster" ? 1 : 0;
  return figures;
}
