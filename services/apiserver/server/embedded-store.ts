/**
 * The embedded default's store: the same Raft node as the store service, as a group
 * of one, with its WAL and snapshots under the data directory. No peers, so the
 * transport is an in-memory network holding only this node.
 */
import { RaftNode } from "../../store/node/raft-node.ts";
import type { LogFn } from "../../../shared/observability/logger.ts";
import { MemoryNetwork } from "../../store/transport/memory.ts";


export async function openEmbeddedBackend(dir: string, log?: LogFn): Promise<RaftNode & { close(): Promise<void> }> {
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
  // A group of one elects itself after one election timeout; wait so the first request does not time out.
  const deadline = Date.now() + 10_000;
  while (node.status().leader === 0n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return Object.assign(node, { close: () => node.stop() });
}
