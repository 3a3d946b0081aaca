// Test support: a cluster of RaftNodes in one process over the in-memory
// network, each with a real WAL and snapshot directory under one temporary
// directory (removed by close()). Not used in production code.

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StoreResponse } from "../../mvcc/index.ts";
import { MemoryNetwork } from "../../transport/memory.ts";
import type { Transport } from "../../transport/types.ts";
import type { Message } from "../../raft/index.ts";
import type { Member } from "../members.ts";
import type { RaftNodeOptions } from "../options.ts";
import { RaftNode } from "../raft-node.ts";

export type NodeOverrides = Partial<Omit<RaftNodeOptions, "id" | "dataDir" | "transport">>;

/** Wraps a node's endpoint of the memory network (to filter or observe its traffic). */
export type TransportWrap = (t: Transport) => Transport;

const enc = new TextEncoder();
const dec = new TextDecoder();
export const b = (s: string): Uint8Array => enc.encode(s);
export const s = (v: Uint8Array): string => dec.decode(v);

/** The transport's methods bound to it, so that a wrapper may override some. */
export function boundTransport(t: Transport): Transport {
  return {
    id: t.id,
    send: (ms) => t.send(ms),
    onMessage: (h) => t.onMessage(h),
    onUnreachable: (h) => t.onUnreachable(h),
    onSnapshotStatus: (h) => t.onSnapshotStatus(h),
    onRemoved: (h) => t.onRemoved(h),
    addPeer: (id, urls) => t.addPeer(id, urls),
    removePeer: (id, notice) => t.removePeer(id, notice),
    close: () => t.close(),
  };
}

/** Wraps a transport: drops what `drop` selects (asked at each send), and records in `sent` what was sent. */
export function filteredTransport(inner: Transport, drop: (m: Message) => boolean, sent: Message[]): Transport {
  return {
    ...boundTransport(inner),
    send: (ms) => {
      const kept = ms.filter((m) => !drop(m));
      sent.push(...kept);
      inner.send(kept);
    },
  };
}

export const FAST: NodeOverrides = { heartbeatMs: 10, electionMs: 100, requestTimeoutMs: 2000, log: () => {} };

export function memberOf(id: number): Member {
  return { id, name: `n${id}`, peerUrls: [`mem://${id}`], clientUrls: [`mem://client-${id}`], isLearner: false };
}

export async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

/** Polls `cond` until it holds; throws with `what` after timeoutMs. */
export async function waitFor(cond: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

export class NodeCluster {
  readonly net = new MemoryNetwork(7);
  readonly nodes = new Map<number, RaftNode>();
  members: Member[];

  private constructor(
    readonly dir: string,
    ids: number[],
    readonly overrides: NodeOverrides,
    private readonly wrap: TransportWrap,
  ) {
    this.members = ids.map(memberOf);
  }

  static async create(size: number, overrides: NodeOverrides = {}, wrap: TransportWrap = (t) => t): Promise<NodeCluster> {
    const dir = await mkdtemp(join(tmpdir(), "store-node-"));
    const c = new NodeCluster(dir, Array.from({ length: size }, (_, i) => i + 1), { ...FAST, ...overrides }, wrap);
    try {
      await Promise.all(c.members.map((m) => c.start(m.id)));
    } catch (e) {
      await c.close();
      throw e;
    }
    return c;
  }

  dataDir(id: number): string {
    return join(this.dir, `node-${id}`);
  }

  async start(id: number, extra: NodeOverrides = {}): Promise<RaftNode> {
    const node = await RaftNode.start({ ...this.overrides, initialMembers: this.members, ...extra, id, dataDir: this.dataDir(id), transport: this.wrap(this.net.endpoint(id)) });
    this.nodes.set(id, node);
    return node;
  }

  async stop(id: number): Promise<void> {
    const n = this.nodes.get(id);
    this.nodes.delete(id);
    await n?.stop();
  }

  node(id: number): RaftNode {
    const n = this.nodes.get(id);
    if (!n) throw new Error(`node ${id} is not running`);
    return n;
  }

  running(): RaftNode[] {
    return [...this.nodes.values()].filter((n) => !n.isStopped);
  }

  /** A leader that every running node agrees on. */
  async leader(timeoutMs = 5000): Promise<RaftNode> {
    let found: RaftNode | undefined;
    await waitFor(
      () => {
        const leaders = this.running().filter((n) => n.isLeader);
        found = leaders.length === 1 && this.running().every((n) => n.leaderId === leaders[0].id) ? leaders[0] : undefined;
        return found !== undefined;
      },
      "a leader",
      timeoutMs,
    );
    return found as RaftNode;
  }

  follower(leader: RaftNode): RaftNode {
    const f = this.running().find((n) => n.id !== leader.id);
    if (!f) throw new Error("no follower");
    return f;
  }

  /** Waits until every running node applied at least `index` (default: the leader's commit). */
  async converge(index?: number, timeoutMs = 5000): Promise<void> {
    const target = index ?? Math.max(...this.running().map((n) => n.status().raftIndex));
    await waitFor(() => this.running().every((n) => n.appliedIndex >= target), `all nodes to apply ${target}`, timeoutMs);
  }

  async close(): Promise<void> {
    await Promise.all([...this.nodes.values()].map((n) => n.stop()));
    this.nodes.clear();
    await rm(this.dir, { recursive: true, force: true });
  }
}

export function put(node: RaftNode, key: string, value: string): Promise<StoreResponse> {
  return node.propose({ type: "put", request: { key: b(key), value: b(value) } });
}

export function get(node: RaftNode, key: string): string | undefined {
  const r = node.mvcc.range({ key: b(key) });
  return r.kvs.length > 0 ? s(r.kvs[0].value) : undefined;
}
