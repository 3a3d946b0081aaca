// ReadIndex bookkeeping on the leader (ReadOnlySafe): each request records the
// commit index at the time it arrived and the heartbeat acknowledgements that
// carry its context. Once a quorum acknowledged a context, that request and
// every earlier one are answered with their recorded index.

import type { Message, ReadOnlyOption } from "./types.ts";

export interface ReadIndexStatus {
  req: Message;
  index: number;
  /** Voters (and the leader itself) that acknowledged the heartbeat carrying this context. */
  acks: Map<number, boolean>;
}

/** A map key for a request context (byte-exact). */
export function contextKey(ctx: Uint8Array | undefined): string {
  if (!ctx || ctx.byteLength === 0) return "";
  let s = "";
  for (let i = 0; i < ctx.byteLength; i++) s += String.fromCharCode(ctx[i]);
  return s;
}

export class ReadOnly {
  readonly option: ReadOnlyOption;
  private pending = new Map<string, ReadIndexStatus>();
  private queue: string[] = [];

  constructor(option: ReadOnlyOption) {
    this.option = option;
  }

  /** Records a read request m (its context is m.entries[0].data) at commit index `index`. */
  addRequest(index: number, m: Message): void {
    const key = contextKey(m.entries[0]?.data);
    if (this.pending.has(key)) return;
    this.pending.set(key, { req: m, index, acks: new Map() });
    this.queue.push(key);
  }

  /** Records an acknowledgement of ctx from id; returns the acks so far (undefined if unknown ctx). */
  recvAck(id: number, ctx: Uint8Array | undefined): Map<number, boolean> | undefined {
    const rs = this.pending.get(contextKey(ctx));
    if (!rs) return undefined;
    rs.acks.set(id, true);
    return rs.acks;
  }

  /** Removes and returns every request up to and including the one with ctx. */
  advance(ctx: Uint8Array | undefined): ReadIndexStatus[] {
    const key = contextKey(ctx);
    const at = this.queue.indexOf(key);
    if (at < 0) return [];
    const done = this.queue.slice(0, at + 1);
    this.queue = this.queue.slice(at + 1);
    const out: ReadIndexStatus[] = [];
    for (const k of done) {
      const rs = this.pending.get(k);
      if (!rs) throw new Error("read-only: pending read index not found");
      this.pending.delete(k);
      out.push(rs);
    }
    return out;
  }

  /** The context of the newest pending request (sent with heartbeats), if any. */
  lastPendingRequestCtx(): Uint8Array | undefined {
    if (this.queue.length === 0) return undefined;
    const rs = this.pending.get(this.queue[this.queue.length - 1]);
    return rs?.req.entries[0]?.data;
  }

  get pendingCount(): number {
    return this.queue.length;
  }
}
