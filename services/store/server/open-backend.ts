/**
 * Opens the StoreBackend a store node serves: the replicated Raft node over the
 * framed peer stream (services/store/node, services/store/transport). Its state
 * machine and revision publisher are made by the caller so that the publisher
 * follows the node's leadership and applies from the start.
 */
import type { Logger } from "pino";
import type { MvccStore } from "../mvcc/index.ts";
import type { LeaderPublisher } from "../node/options.ts";
import { RaftNode } from "../node/raft-node.ts";
import { StreamTransport } from "../transport/stream-transport.ts";
import { peerTls } from "./tls-credentials.ts";
import type { StoreBackend } from "./backend.ts";
import type { NodeConfig } from "./node-flags.ts";
import { clusterIdForToken, memberIdForPeerUrls, RaftBackend } from "./raft-backend.ts";

/** Whether this build serves a replicated multi-member cluster (the Raft node is wired in). */
export const REPLICATED_BACKEND_AVAILABLE: boolean = true;

export interface OpenedBackend {
  backend: StoreBackend;
  /** How the backend is replicated and stored, for the log. */
  description: string;
  close(): Promise<void>;
}

export interface BackendParts {
  mvcc: MvccStore;
  publisher?: LeaderPublisher;
  /** Called once the node stopped on its own because it was removed from the cluster (RaftNodeOptions.onRemoved). */
  onRemoved?: (reason: string) => void;
}

export async function openBackend(config: NodeConfig, log: Logger, parts: BackendParts): Promise<OpenedBackend> {
  const self = config.initialCluster.find((m) => m.name === config.name);
  if (self === undefined) throw new Error(`--initial-cluster has no member named "${config.name}"`);
  const members = config.initialCluster.map((m) => ({
    id: memberIdForPeerUrls(m.peerUrls),
    name: m.name,
    peerUrls: m.peerUrls,
    clientUrls: m.name === config.name ? config.advertiseClientUrls : [],
    isLearner: false,
  }));
  const id = memberIdForPeerUrls(self.peerUrls);
  const clusterId = clusterIdForToken(config.initialClusterToken);
  const peer = config.listenPeerUrls[0];
  const tls = peerTls(config, log);
  const transport = await StreamTransport.listen({ id, clusterId, listen: `${peer.hostname}:${peer.port}`, tls });
  const holder: { backend?: RaftBackend } = {};
  const node = await RaftNode.start({
    id,
    clusterId,
    dataDir: config.dataDir,
    transport,
    initialMembers: members,
    join: config.initialClusterState === "existing",
    heartbeatMs: config.heartbeatIntervalMs,
    electionMs: config.electionTimeoutMs,
    snapshotThreshold: config.snapshotCount,
    removedLingerMaxMs: config.removedMemberLingerMaxMs,
    onRemoved: parts.onRemoved,
    mvcc: parts.mvcc,
    publisher: parts.publisher,
    onLeaderChange: (leading, leader) => {
      log.info({ leading, leader: leader.toString(16) }, "leader changed");
      holder.backend?.onLeaderChange(leading);
    },
    log: (level, msg, fields) => log[level](fields ?? {}, msg),
  });
  const backend = new RaftBackend(node);
  holder.backend = backend;
  let closed = false;
  void backend.publishSelf(config.name, config.advertiseClientUrls, () => closed || node.isStopped, (msg, err) => log.debug({ err: String(err) }, msg));
  return {
    backend,
    description: `Raft member ${id.toString(16)} of cluster ${clusterId.toString(16)} (${config.initialClusterState === "existing" ? "joining" : `${members.length} initial members`})`,
    async close() {
      closed = true;
      await node.stop();
      tls.close();
    },
  };
}
