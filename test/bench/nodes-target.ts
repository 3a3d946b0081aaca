/**
 * The server `bench -- nodes` loads, chosen by NODES_TOPOLOGY:
 * - `embedded` (default): `services/embedded/main.ts` as one real process (store, apiserver
 *   and controllers in it; the store is reached in process, the revision feed is in process);
 * - `cluster`: the cluster path — one store node (`services/store/main.ts`, reached over
 *   gRPC), a real redis-server carrying the revision stream, and one apiserver replica
 *   (`services/apiserver/main.ts --store-endpoints --redis-url`) with no controllers. The
 *   figure is the replica's alone.
 * Either way the data dirs are on /dev/shm when it exists (NODES_TMPFS=0 keeps the default
 * temporary dir): the figure is about the API server, not a shared disk's fsyncs.
 * `inspect` (cluster only): the replica runs with `--inspect=127.0.0.1:0`, so the bench can
 * profile a window of it (`profiler()`).
 */
import { existsSync } from "node:fs";
import type { ClientConfig } from "../../shared/client/kubeconfig.ts";
import { loadKubeconfig } from "../../shared/client/kubeconfig.ts";
import { startProcessCluster } from "../support/process-cluster.ts";
import { startServerProcess } from "../support/server-process.ts";
import { socketInodes, socketOwner } from "../support/socket-owner.ts";
import { InspectorClient, inspectorUrl } from "./inspector-client.ts";

export type NodesTopology = "embedded" | "cluster";

export interface NodesTarget {
  topology: NodesTopology;
  /** The admin client configuration of the measured server. */
  config: ClientConfig;
  /** The process whose CPU is measured (the apiserver). */
  pid: number;
  tmpfs: boolean;
  /** An inspector session on the measured process (only when started with `inspect`). */
  profiler(): Promise<InspectorClient | undefined>;
  close(): Promise<void>;
}

/** The pid of the process listening on a loopback TCP port (from /proc). */
export function pidListeningOn(port: number): number {
  const pid = socketOwner(socketInodes(port, true));
  if (pid === undefined) throw new Error(`no process listens on port ${port}`);
  return pid;
}

/** Runs `fn` with TMPDIR and NODE_OPTIONS set for the children it starts, then restores both. */
async function withChildEnv<T>(env: { TMPDIR?: string; NODE_OPTIONS?: string }, fn: () => Promise<T>): Promise<T> {
  const saved = { TMPDIR: process.env.TMPDIR, NODE_OPTIONS: process.env.NODE_OPTIONS };
  for (const [k, v] of Object.entries(env)) if (v !== undefined) process.env[k] = v;
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

async function connectInspector(output: () => string): Promise<InspectorClient | undefined> {
  const url = inspectorUrl(output());
  return url ? InspectorClient.connect(url) : undefined;
}

export async function startNodesTarget(topology: NodesTopology, opts: { inspect?: boolean } = {}): Promise<NodesTarget> {
  const tmpfs = process.env.NODES_TMPFS !== "0" && existsSync("/dev/shm");
  const TMPDIR = tmpfs ? "/dev/shm" : undefined;
  const inspect = opts.inspect ? "--inspect=127.0.0.1:0" : undefined;
  if (topology === "embedded") {
    // startServerProcess clears NODE_OPTIONS for its child: this topology is not profiled.
    const server = await withChildEnv({ TMPDIR }, () => startServerProcess());
    return {
      topology,
      config: loadKubeconfig(server.kubeconfig),
      pid: pidListeningOn(server.port),
      tmpfs,
      profiler: () => Promise.resolve(undefined),
      close: () => server.close(),
    };
  }
  const cluster = await withChildEnv({ TMPDIR, NODE_OPTIONS: inspect }, () => startProcessCluster({ stores: 1, replicas: 1, profile: "kubernetes" }));
  const replica = cluster.replicas[0];
  return {
    topology,
    config: { server: replica.url, ca: cluster.pki.ca.certPem, cert: cluster.pki.admin.certPem, key: cluster.pki.admin.keyPem, insecureSkipTlsVerify: false },
    pid: pidListeningOn(replica.port),
    tmpfs,
    profiler: () => (inspect ? connectInspector(() => replica.output.join("")) : Promise.resolve(undefined)),
    close: () => cluster.stop(),
  };
}
