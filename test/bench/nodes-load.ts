/**
 * The simulated node agents `bench -- nodes` puts on one server (nodes-target.ts):
 * `addNodes` creates Nodes and their Leases; `measureWindow` runs the renewals for one
 * lease period (warm-up), then measures the server's CPU (from /proc) and the write
 * latencies over a window. Each node renews its Lease every 10 s (a PUT of the lease it
 * wrote last, as the agent does) and patches its Node status every 5 minutes, spread
 * evenly over the period; the nodes share 32 keep-alive connections.
 */
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { CONTENT_TYPES, wireContentType, type WireContentType } from "../../shared/client/wire-codec.ts";
import type { ApiObject, ResourceRef } from "../../shared/client/object-client.ts";
import { getProfile } from "../../shared/platform/index.ts";
import type { CpuProfile } from "./harness.ts";
import { cpuSeconds } from "./harness.ts";
import { readFileSync } from "node:fs";
import type { HeapProfile } from "./heap-profile-summary.ts";
import type { InspectorClient } from "./inspector-client.ts";
import type { NodesTarget } from "./nodes-target.ts";

export const LEASE_PERIOD_MS = 10_000;
export const STATUS_PERIOD_MS = 300_000;
const CONNECTIONS = 32;

interface SimNode {
  name: string;
  lease: ApiObject;
  client: HttpsObjectClient;
}

/** What one measured window gave. */
export interface WindowFigures {
  nodes: number;
  cpuPct: number;
  cpuSeconds: number;
  writes: number;
  errors: number;
  /** Failed writes by error message (the first 80 characters). */
  errorKinds: Map<string, number>;
  latencies: number[];
  /** The server's CPU ms per write (0 without writes). */
  cpuMsPerWrite: number;
  /** The part of it spent on the process's main (JavaScript) thread; the rest is GC helpers and libuv's pool. */
  mainThreadMsPerWrite: number;
  /** Writes per second the nodes offer. */
  offered: number;
  profile?: CpuProfile;
  /** The window's allocation profile (with `heapDir` profiling). */
  heapProfile?: HeapProfile;
}

/** Which profiles of the server a window takes (its files are written under these directories); with an inspector only. */
export interface Profiling {
  cpuDir?: string;
  heapDir?: string;
}

const profile = getProfile("kubernetes");

/** CPU seconds of a process's main thread (its task whose id is the pid), from /proc. */
function mainThreadCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}
const nodesRes: ResourceRef = { group: "", version: "v1", resource: "nodes" };
const leasesRes: ResourceRef = { group: profile.group("coordination"), version: "v1", resource: "leases" };
const ns = profile.nodeLeaseNamespace;
/** How the simulated nodes send and accept objects (NODES_CONTENT_TYPE: json, the default, protobuf or cbor). */
const CONTENT_TYPE = contentTypeOf(process.env.NODES_CONTENT_TYPE ?? "json");

function contentTypeOf(name: string): WireContentType {
  const known = wireContentType(name);
  if (!known) throw new Error(`NODES_CONTENT_TYPE=${name}: one of ${CONTENT_TYPES.join(", ")}`);
  return known;
}

/** The simulated nodes of one server. */
export class NodeLoad {
  private readonly clients: HttpsObjectClient[];
  private readonly nodes: SimNode[] = [];

  constructor(readonly target: NodesTarget) {
    this.clients = Array.from({ length: CONNECTIONS }, () => new HttpsObjectClient(target.config, { contentType: CONTENT_TYPE, profile }));
  }

  get count(): number {
    return this.nodes.length;
  }

  /** Creates nodes (with their Leases) until there are `target`, 64 at a time. */
  async addNodes(target: number): Promise<void> {
    for (let next = this.nodes.length; next < target; ) {
      const batch: Array<Promise<void>> = [];
      for (let k = 0; k < 64 && next < target; k++) batch.push(this.addNode(next++));
      await Promise.all(batch);
    }
  }

  private async addNode(i: number): Promise<void> {
    const name = `sim-node-${i}`;
    const client = this.clients[i % CONNECTIONS];
    await client.create(nodesRes, { apiVersion: "v1", kind: "Node", metadata: { name, labels: { [profile.labels.hostname]: name } }, spec: {} });
    const lease = await client.create(leasesRes, { apiVersion: `${leasesRes.group}/v1`, kind: "Lease", metadata: { name, namespace: ns }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: new Date().toISOString().replace("Z", "000Z") } }, { namespace: ns });
    this.nodes.push({ name, lease, client });
  }

  /** One lease period of renewals to warm up, then `windowMs` measured (profiled as `profiling` says when `inspector` is given). */
  async measureWindow(windowMs: number, inspector?: InspectorClient, profiling: Profiling = {}): Promise<WindowFigures> {
    const { nodes } = this;
    const latencies: number[] = [];
    let errors = 0;
    const errorKinds = new Map<string, number>();
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
      } catch (err) {
        if (measuring) {
          errors++;
          const kind = (err instanceof Error ? err.message : String(err)).slice(0, 80);
          errorKinds.set(kind, (errorKinds.get(kind) ?? 0) + 1);
        }
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
    let cpuProfile: CpuProfile | undefined;
    let heapProfile: HeapProfile | undefined;
    let cpuUsed: number;
    let mainUsed: number;
    let elapsedS: number;
    try {
      await new Promise((r) => setTimeout(r, LEASE_PERIOD_MS));
      measuring = true;
      if (profiling.cpuDir !== undefined) await inspector?.startCpuProfile();
      if (profiling.heapDir !== undefined) await inspector?.startHeapSampling();
      const cpu0 = cpuSeconds(this.target.pid);
      const main0 = mainThreadCpuSeconds(this.target.pid);
      const t0 = performance.now();
      await new Promise((r) => setTimeout(r, windowMs));
      cpuUsed = cpuSeconds(this.target.pid) - cpu0;
      mainUsed = mainThreadCpuSeconds(this.target.pid) - main0;
      elapsedS = (performance.now() - t0) / 1000;
      measuring = false;
      if (inspector && profiling.cpuDir !== undefined) cpuProfile = (await inspector.stopCpuProfile()) as CpuProfile;
      if (inspector && profiling.heapDir !== undefined) heapProfile = (await inspector.stopHeapSampling()) as HeapProfile;
    } finally {
      stopped = true;
      await loop;
      await Promise.all([...inflight]);
    }
    latencies.sort((a, b) => a - b);
    return {
      nodes: count,
      cpuPct: (cpuUsed / elapsedS) * 100,
      cpuSeconds: cpuUsed,
      writes,
      errors,
      errorKinds,
      latencies,
      cpuMsPerWrite: writes > 0 ? (cpuUsed * 1000) / writes : 0,
      mainThreadMsPerWrite: writes > 0 ? (mainUsed * 1000) / writes : 0,
      offered: count * (1000 / LEASE_PERIOD_MS + 1000 / STATUS_PERIOD_MS),
      profile: cpuProfile,
      heapProfile,
    };
  }

  close(): void {
    for (const c of this.clients) c.close();
  }
}
