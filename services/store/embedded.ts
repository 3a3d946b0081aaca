/**
 * The store in the same process as its client (the embedded default of `npm start`,
 * and tests): the store's own request handlers (server/handlers.ts) behind the
 * typed etcd v3 API of shared/etcd, so a client cannot tell it from the gRPC
 * server, plus the applied revisions in the revision stream's form (the in-process
 * replacement for the Redis stream).
 *
 * openEmbeddedStore: the Raft node as a group of one, WAL and snapshots under a
 * directory, leases expired by the leader. memoryStore: no replication and no disk
 * (LocalBackend), for tests of the layers above the store.
 */
import type { EtcdApi } from "../../shared/etcd/methods.ts";
import type { LogFn } from "../../shared/observability/logger.ts";
import type { StreamEntry } from "../../shared/stream/revision-entry.ts";
import { stringKeyChanges } from "./mvcc/key-changes.ts";
import { RaftNode } from "./node/raft-node.ts";
import type { StoreBackend } from "./server/backend.ts";
import type { GrpcServerOptions } from "./server/context.ts";
import { StoreHandlers } from "./server/handlers.ts";
import { InProcessEtcd } from "./server/in-process.ts";
import { LocalBackend } from "./server/local-backend.ts";
import { MemoryNetwork } from "./transport/memory.ts";

export interface EmbeddedStore {
  /** The etcd v3 API of this store, in process. */
  readonly api: EtcdApi;
  /** The revision the local state machine holds. */
  currentRevision(): number;
  /** Every applied write revision, in order, as the revision stream carries it. */
  onRevision(listener: (entry: StreamEntry) => void): () => void;
  /** Stops lease expiry and the node. */
  close(): Promise<void>;
}

function embed(backend: StoreBackend, stop: () => Promise<void>, options: GrpcServerOptions = {}): EmbeddedStore {
  const handlers = new StoreHandlers(backend, { name: "embedded", ...options });
  handlers.start();
  const api = new InProcessEtcd(handlers);
  return {
    api,
    currentRevision: () => backend.mvcc.currentRevision,
    onRevision: (listener) => backend.onApplied((change) => listener({ revision: change.revision, changes: stringKeyChanges(change) })),
    async close() {
      api.close();
      handlers.stop();
      await stop();
    },
  };
}

/** A single-node Raft store with its WAL and snapshots under `dir`; resolves once it leads. */
export async function openEmbeddedStore(dir: string, log?: LogFn): Promise<EmbeddedStore> {
  const network = new MemoryNetwork();
  const node = await RaftNode.start({
    id: 1,
    dataDir: dir,
    transport: network.endpoint(1),
    initialMembers: [{ id: 1, name: "embedded", peerUrls: [], clientUrls: [], isLearner: false }],
    log: (level, msg, fields) => {
      if (level !== "debug") log?.(level === "warn" ? "warn" : level === "error" ? "error" : "info", msg, fields);
    },
  });
  // A group of one elects itself after one election timeout; wait so the first request does not fail.
  const deadline = Date.now() + 10_000;
  while (node.status().leader === 0n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return embed(node, () => node.stop());
}

/** A store without replication or disk (tests): writes apply at once. */
export function memoryStore(): EmbeddedStore & { backend: LocalBackend } {
  const backend = new LocalBackend();
  return { ...embed(backend, async () => {}), backend };
}
