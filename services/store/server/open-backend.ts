/**
 * Opens the StoreBackend a store node serves. The replicated Raft node
 * (services/store/node) plugs in here; until it is available a node runs on
 * LocalBackend: one unreplicated member with its state in memory only, which is
 * refused for a cluster of more than one member.
 */
import type { Logger } from "pino";
import type { StoreBackend } from "./backend.ts";
import { LocalBackend } from "./local-backend.ts";
import type { NodeConfig } from "./node-flags.ts";

/** Whether this build serves a replicated multi-member cluster (the Raft node is wired in). */
export const REPLICATED_BACKEND_AVAILABLE: boolean = false;

export interface OpenedBackend {
  backend: StoreBackend;
  /** How the backend is replicated and stored, for the log. */
  description: string;
  close(): Promise<void>;
}

export async function openBackend(config: NodeConfig, log: Logger): Promise<OpenedBackend> {
  if (config.initialCluster.length > 1) {
    throw new Error(
      `--initial-cluster names ${config.initialCluster.length} members, but this build has no replicated node yet: ` +
        "start a single member (or leave --initial-cluster empty)",
    );
  }
  log.warn(
    { dataDir: config.dataDir },
    "replicated Raft node not available in this build: serving a single-node cluster from LocalBackend (in memory, not persisted to --data-dir)",
  );
  const backend = new LocalBackend();
  return { backend, description: "single-node LocalBackend (in memory)", close: async () => {} };
}
