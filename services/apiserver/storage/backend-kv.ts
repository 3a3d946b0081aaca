/**
 * KvStore over a store node in the same process (the embedded default): writes are
 * proposed through the node's log, linearizable reads wait for its read barrier, and
 * applied changes feed a FanoutFeed — the in-process revision feed.
 */
import { randomBytes } from "node:crypto";
import {
  ErrCompacted,
  ErrFutureRev,
  type Compare as MvccCompare,
  type KeyValue as MvccKeyValue,
  type RequestOp,
  type RevisionChange as MvccChange,
  type StoreResponse,
} from "../../store/mvcc/index.ts";
import type { StoreBackend } from "../../store/server/backend.ts";
import { stringKeyChanges } from "../../store/mvcc/key-changes.ts";
import { FanoutFeed } from "./fanout-feed.ts";
import {
  CompactedError,
  FutureRevisionError,
  type Compare,
  type KeyValue,
  type KvStore,
  type RangeOptions,
  type RangeResult,
  type RevisionChange,
  type TxnOp,
  type TxnResult,
} from "./kv.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const RESULT_MAP = { "=": "EQUAL", "!=": "NOT_EQUAL", ">": "GREATER", "<": "LESS" } as const;

function toKv(kv: MvccKeyValue): KeyValue {
  return { key: dec.decode(kv.key), value: kv.value, createRevision: kv.createRevision, modRevision: kv.modRevision, version: kv.version, lease: Number(kv.lease) };
}

/** Converts a store change into the apiserver's revision change (previous values included). */
export function toRevisionChange(change: MvccChange): RevisionChange {
  return { revision: change.revision, changes: stringKeyChanges(change) };
}

function mapError(err: unknown, requested: number, current: number): unknown {
  if (err instanceof ErrCompacted) return new CompactedError(requested, err.compactRevision);
  if (err instanceof ErrFutureRev) return new FutureRevisionError(requested, current);
  return err;
}

function rangeEnd(key: string, end: string | undefined): Uint8Array | undefined {
  if (end === undefined) return undefined;
  return end === "\0" ? new Uint8Array([0]) : enc.encode(end);
}

export class BackendKv implements KvStore {
  readonly feed: FanoutFeed;
  private readonly unsubscribe: () => void;

  constructor(private readonly backend: StoreBackend) {
    this.feed = new FanoutFeed(this);
    this.feed.setLivePosition(backend.mvcc.currentRevision);
    this.unsubscribe = backend.onApplied((change) => this.feed.push(toRevisionChange(change)));
  }

  async range(key: string, options: RangeOptions = {}): Promise<RangeResult> {
    if (!options.serializable) await this.backend.readBarrier();
    const mvcc = this.backend.mvcc;
    try {
      const res = mvcc.range({
        key: enc.encode(key),
        rangeEnd: rangeEnd(key, options.end),
        limit: options.limit,
        revision: options.revision,
        countOnly: options.countOnly,
        keysOnly: options.keysOnly,
      });
      return { kvs: res.kvs.map(toKv), count: res.count, more: res.more, revision: res.revision };
    } catch (err) {
      throw mapError(err, options.revision ?? 0, mvcc.currentRevision);
    }
  }

  async txn(compares: Compare[], success: TxnOp[], failure: TxnOp[]): Promise<TxnResult> {
    const toOp = (op: TxnOp): RequestOp => {
      if (op.type === "put") return { type: "put", request: { key: enc.encode(op.key), value: op.value, lease: op.lease ? BigInt(op.lease) : undefined, prevKv: true } };
      if (op.type === "delete") return { type: "deleteRange", request: { key: enc.encode(op.key), rangeEnd: rangeEnd(op.key, op.end), prevKv: true } };
      return { type: "range", request: { key: enc.encode(op.key), rangeEnd: rangeEnd(op.key, op.options?.end), revision: op.options?.revision, limit: op.options?.limit } };
    };
    const compare: MvccCompare[] = compares.map((c) => {
      const base = { key: enc.encode(c.key), result: RESULT_MAP[c.result] };
      switch (c.target) {
        case "mod":
          return { ...base, target: "MOD", modRevision: c.value as number };
        case "create":
          return { ...base, target: "CREATE", createRevision: c.value as number };
        case "version":
          return { ...base, target: "VERSION", version: c.value as number };
        case "value":
          return { ...base, target: "VALUE", value: c.value as Uint8Array };
      }
    });
    const res = await this.backend.propose({ type: "txn", request: { compare, success: success.map(toOp), failure: failure.map(toOp) } });
    return this.txnResult(res);
  }

  private txnResult(res: StoreResponse): TxnResult {
    if (res.result.type === "error") throw new Error(`store: ${res.result.error.message}`);
    if (res.result.type !== "txn") throw new Error(`store: unexpected ${res.result.type} result for a txn`);
    const results = res.result.response.responses.map((r) => {
      if (r.type === "range") return { kvs: r.response.kvs.map(toKv) };
      if (r.type === "deleteRange") return { kvs: r.response.prevKvs.map(toKv), deleted: r.response.deleted };
      if (r.type === "put") return { kvs: r.response.prevKv ? [toKv(r.response.prevKv)] : [] };
      return { kvs: [] };
    });
    return { succeeded: res.result.response.succeeded, revision: res.revision, results };
  }

  async compact(revision: number): Promise<void> {
    const res = await this.backend.propose({ type: "compact", request: { revision } });
    if (res.result.type === "error") throw mapError(new Error(res.result.error.message), revision, this.backend.mvcc.currentRevision);
  }

  async currentRevision(): Promise<number> {
    await this.backend.readBarrier();
    return this.backend.mvcc.currentRevision;
  }

  async leaseGrant(ttlSeconds: number): Promise<number> {
    const id = randomBytes(6).readUIntBE(0, 6) || 1;
    const res = await this.backend.propose({ type: "leaseGrant", request: { id: BigInt(id), ttl: ttlSeconds } });
    if (res.result.type === "error") throw new Error(`store: ${res.result.error.message}`);
    return id;
  }

  async history(after: number, upTo: number): Promise<RevisionChange[]> {
    const mvcc = this.backend.mvcc;
    let changes;
    try {
      changes = mvcc.changesSince(after + 1);
    } catch (err) {
      throw mapError(err, after + 1, mvcc.currentRevision);
    }
    return changes.filter((c) => c.revision <= upTo).map(toRevisionChange);
  }

  async close(): Promise<void> {
    this.unsubscribe();
  }
}
