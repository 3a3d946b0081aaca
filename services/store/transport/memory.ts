// An in-process transport with a controllable network, for tests and the
// in-process benchmark. Every message crosses the binary codec (so the codec
// is exercised and no object is shared between nodes) and is delivered on a
// later macrotask, never synchronously inside send().
//
// Network controls: cut links (one direction or both), isolate a node,
// partition into groups, drop a fraction of messages (seeded), heal.
// A message to an endpoint that is not attached (stopped node) or to an
// unknown peer is reported unreachable; a message lost to a cut or a drop is
// lost silently, as on a real network. A MsgSnap reports Failure when it is
// lost and Finish when it was handed to the receiver. A message from a peer
// the receiver removed is refused like the peer stream transport refuses it:
// reported unreachable, and the removal notice (if given) handed to the
// sender's removed handler.

import { MessageType, SeededRandom, SnapshotStatus, type Message } from "../raft/index.ts";
import { decodeMessage, encodeMessage } from "./codec.ts";
import { TransportHandlers } from "./handlers.ts";
import type { RemovalNotice, Transport } from "./types.ts";

export class MemoryNetwork {
  private readonly endpoints = new Map<number, MemoryTransport>();
  private readonly cuts = new Set<string>();
  private dropRate = 0;
  private readonly rng: SeededRandom;
  /** Messages delivered and lost, for assertions. */
  readonly stats = { delivered: 0, lost: 0, unreachable: 0, refused: 0 };

  constructor(seed = 1) {
    this.rng = new SeededRandom(seed);
  }

  /** A transport for node `id`, attached to this network (replaces a closed one). */
  endpoint(id: number): MemoryTransport {
    const existing = this.endpoints.get(id);
    if (existing && !existing.closed) throw new Error(`memory network: node ${id} is already attached`);
    const t = new MemoryTransport(id, this);
    this.endpoints.set(id, t);
    return t;
  }

  /** Cuts the link from -> to (and to -> from unless oneWay). */
  cut(from: number, to: number, oneWay = false): void {
    this.cuts.add(`${from}>${to}`);
    if (!oneWay) this.cuts.add(`${to}>${from}`);
  }

  /** Cuts every link between `id` and the other attached nodes (ids listed in `others`). */
  isolate(id: number, others: readonly number[]): void {
    for (const o of others) if (o !== id) this.cut(id, o);
  }

  /** Cuts every link between nodes of different groups. */
  partition(...groups: number[][]): void {
    for (let i = 0; i < groups.length; i++)
      for (let j = 0; j < groups.length; j++) if (i !== j) for (const a of groups[i]) for (const b of groups[j]) this.cut(a, b, true);
  }

  /** Drops each message with probability p (0..1). */
  setDropRate(p: number): void {
    this.dropRate = p;
  }

  /** Restores every link and stops dropping. */
  heal(): void {
    this.cuts.clear();
    this.dropRate = 0;
  }

  /** @internal Routes one encoded message. */
  route(from: MemoryTransport, m: Message, buf: Uint8Array): void {
    const target = this.endpoints.get(m.to);
    if (!target || target.closed || !from.knows(m.to)) {
      this.stats.unreachable++;
      from.unreachable(m);
      return;
    }
    if (this.cuts.has(`${from.id}>${m.to}`) || (this.dropRate > 0 && this.rng.chance(this.dropRate))) {
      this.stats.lost++;
      if (m.type === MessageType.Snap) from.snapshotStatus(m.to, SnapshotStatus.Failure);
      return;
    }
    const removal = target.removal(from.id);
    if (removal) {
      this.stats.refused++;
      if (removal.notice) from.removedBy(m.to, removal.notice);
      from.unreachable(m);
      return;
    }
    this.stats.delivered++;
    target.deliver(buf);
    if (m.type === MessageType.Snap) from.snapshotStatus(m.to, SnapshotStatus.Finish);
  }
}

export class MemoryTransport extends TransportHandlers implements Transport {
  closed = false;
  private readonly peers = new Set<number>();
  private readonly removed = new Map<number, { notice: RemovalNotice | undefined }>();
  private outbox: { m: Message; buf: Uint8Array }[] = [];
  private inbox: Uint8Array[] = [];
  private flushScheduled = false;
  private deliverScheduled = false;

  constructor(
    readonly id: number,
    private readonly network: MemoryNetwork,
  ) {
    super();
  }

  send(messages: readonly Message[]): void {
    if (this.closed) return;
    for (const m of messages) this.outbox.push({ m, buf: encodeMessage(m) });
    if (!this.flushScheduled && this.outbox.length > 0) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    const out = this.outbox;
    this.outbox = [];
    if (this.closed) return;
    for (const { m, buf } of out) this.network.route(this, m, buf);
  }

  addPeer(id: number): void {
    this.peers.add(id);
    this.removed.delete(id);
  }

  removePeer(id: number, notice?: RemovalNotice): void {
    this.peers.delete(id);
    this.removed.set(id, { notice });
  }

  /** @internal Whether messages from `id` are refused, with the notice to answer them with. */
  removal(id: number): { notice: RemovalNotice | undefined } | undefined {
    return this.removed.get(id);
  }

  /** @internal A receiver refused this node's message with a removal notice. */
  removedBy(peerId: number, notice: RemovalNotice): void {
    if (!this.closed) this.removedHandler(peerId, notice);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.outbox = [];
    this.inbox = [];
  }

  /** @internal */
  knows(id: number): boolean {
    return this.peers.has(id);
  }

  /** @internal */
  unreachable(m: Message): void {
    this.unreachableHandler(m.to);
    if (m.type === MessageType.Snap) this.snapshotHandler(m.to, SnapshotStatus.Failure);
  }

  /** @internal */
  snapshotStatus(peerId: number, status: SnapshotStatus): void {
    if (!this.closed) this.snapshotHandler(peerId, status);
  }

  /** @internal Queues an encoded message for this node; handled on a later macrotask, in order. */
  deliver(buf: Uint8Array): void {
    this.inbox.push(buf);
    if (this.deliverScheduled) return;
    this.deliverScheduled = true;
    setImmediate(() => {
      this.deliverScheduled = false;
      const inbox = this.inbox;
      this.inbox = [];
      for (const b of inbox) {
        if (this.closed) return;
        this.messageHandler(decodeMessage(b));
      }
    });
  }
}
