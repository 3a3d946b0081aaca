/**
 * The apiserver's one KvStore: over the typed etcd v3 API of shared/etcd, i.e. the
 * store members over gRPC or the embedded store's handlers in process (a pool of
 * one member), and over a real etcd cluster alike:
 * - reads are linearizable Ranges unless `serializable`; `currentRevision()` is a
 *   linearizable count-only Range of one key (its header revision), one read shared
 *   by all callers that asked in the same turn of the event loop, never by a caller
 *   that asked after it was sent (revision-batcher.ts);
 * - puts and deletes inside txns ask for previous values only when the op says so
 *   (`prevKv`; results then carry them): a write that does not use them spares the store
 *   reading and sending them, and this client decoding them;
 * - `history(after, upTo)` is a Watch from `after + 1` over every key with prev_kv,
 *   ended by a progress request (answered once the watcher has caught up);
 * - failures are the typed errors of errors.ts (compacted, future revision,
 *   unavailable, rejected), mapped in one place;
 * - several endpoints with failover (etcd-kv-pool.ts); reads and history are retried.
 */
import { randomBytes } from "node:crypto";
import { EtcdCallError, GrpcStatus } from "../../../shared/etcd/errors.ts";
import type { PbCompare, PbEvent, PbKeyValue, PbRangeRequest, PbRequestOp, PbTxnResponse, PbWatchCreateRequest, PbWatchResponse } from "../../../shared/etcd/wire.ts";
import { DEFAULT_RETRY_BUDGET_MS, EndpointPool, grpcMembers, type EtcdKvOptions, type StoreMember } from "./etcd-kv-pool.ts";
import { CompactedError, fromEtcdError } from "./errors.ts";
import { RevisionReadBatcher } from "./revision-batcher.ts";
import {
  type Compare,
  type KeyChange,
  type KeyValue,
  type KvStore,
  type RangeOptions,
  type RangeResult,
  type RevisionChange,
  type TxnOp,
  type TxnResult,
} from "./kv.ts";

export type { EtcdKvOptions, StoreMember } from "./etcd-kv-pool.ts";

const dec = new TextDecoder();
const ALL = Buffer.from([0]);
/** Longer than etcd's unsynced-watcher sync interval (100 ms). */
const PROGRESS_RECHECK_MS = 150;
const RESULTS = { "=": "EQUAL", "!=": "NOT_EQUAL", ">": "GREATER", "<": "LESS" } as const;
const TARGETS = { version: "VERSION", create: "CREATE", mod: "MOD", value: "VALUE", lease: "LEASE" } as const;

/** UTF-8 bytes of a key (one allocation; lone surrogates become U+FFFD as with TextEncoder). */
function bytes(s: string): Buffer {
  return Buffer.from(s, "utf8");
}

function rangeEnd(end: string | undefined): Buffer | undefined {
  if (end === undefined) return undefined;
  return end === "\0" ? ALL : bytes(end);
}

function toKv(kv: PbKeyValue): KeyValue {
  return {
    key: dec.decode(kv.key),
    value: new Uint8Array(kv.value),
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
    version: Number(kv.version),
    lease: Number(kv.lease),
  };
}

/** A watch event as a key change (values copied out of the message). */
export function toChange(e: PbEvent): KeyChange {
  return {
    type: e.type,
    key: dec.decode(e.kv.key),
    value: e.type === "PUT" ? new Uint8Array(e.kv.value) : undefined,
    prevValue: e.prev_kv === undefined || e.prev_kv === null ? undefined : new Uint8Array(e.prev_kv.value),
    createRevision: Number(e.kv.create_revision),
    modRevision: Number(e.kv.mod_revision),
    version: Number(e.kv.version),
  };
}

function rangeRequest(key: string, o: RangeOptions = {}): PbRangeRequest {
  return {
    key: bytes(key),
    range_end: rangeEnd(o.end),
    limit: o.limit ?? 0,
    revision: o.revision ?? 0,
    count_only: o.countOnly === true,
    keys_only: o.keysOnly === true,
    serializable: o.serializable === true,
  };
}

function requestOp(op: TxnOp): PbRequestOp {
  switch (op.type) {
    case "put":
      return { request: "request_put", request_put: { key: bytes(op.key), value: op.value, lease: op.lease ?? 0, prev_kv: op.prevKv === true, ignore_value: false, ignore_lease: false } };
    case "delete":
      return { request: "request_delete_range", request_delete_range: { key: bytes(op.key), range_end: rangeEnd(op.end) ?? Buffer.alloc(0), prev_kv: op.prevKv === true } };
    case "range":
      return { request: "request_range", request_range: rangeRequest(op.key, op.options) };
  }
}

/** Each compare is one literal (no spread of a common part: see `withOwn` in shared/schema/values.ts). */
function compareOf(c: Compare): PbCompare {
  const key = bytes(c.key);
  const result = RESULTS[c.result];
  const target = TARGETS[c.target];
  if (c.target === "value") return { key, result, target, target_union: "value", value: c.value instanceof Uint8Array ? c.value : new Uint8Array(0) };
  const n = typeof c.value === "number" ? c.value : 0;
  switch (c.target) {
    case "version":
      return { key, result, target, target_union: "version", version: n };
    case "create":
      return { key, result, target, target_union: "create_revision", create_revision: n };
    case "mod":
      return { key, result, target, target_union: "mod_revision", mod_revision: n };
    case "lease":
      return { key, result, target, target_union: "lease", lease: n };
  }
}

export class EtcdKv implements KvStore {
  private readonly pool: EndpointPool;
  private readonly revisionReads: RevisionReadBatcher;
  private readonly compactionListeners = new Set<(revision: number) => void>();

  /** Store members: endpoints (host:port or URLs) reached over gRPC, or members with their API. */
  constructor(
    members: readonly string[] | readonly StoreMember[],
    private readonly opts: EtcdKvOptions = {},
  ) {
    const list = members.map((m) => (typeof m === "string" ? grpcMembers([m])[0] : m));
    this.pool = new EndpointPool(list, opts);
    this.revisionReads = new RevisionReadBatcher(() => this.readRevision(), opts.revisionReads);
  }

  get unavailableBudgetMs(): number {
    return this.opts.retryBudgetMs ?? DEFAULT_RETRY_BUDGET_MS;
  }

  async range(key: string, options: RangeOptions = {}): Promise<RangeResult> {
    try {
      const res = await this.pool.unary("Range", rangeRequest(key, options), true);
      return { kvs: res.kvs.map(toKv), count: Number(res.count), more: res.more, revision: Number(res.header?.revision ?? 0) };
    } catch (err) {
      throw await this.mapError(err, options.revision ?? 0);
    }
  }

  async txn(compares: Compare[], success: TxnOp[], failure: TxnOp[]): Promise<TxnResult> {
    const req = { compare: compares.map(compareOf), success: success.map(requestOp), failure: failure.map(requestOp) };
    const readOnly = [...success, ...failure].every((op) => op.type === "range");
    let res: PbTxnResponse;
    try {
      res = await this.pool.unary("Txn", req, readOnly);
    } catch (err) {
      throw await this.mapError(err, 0);
    }
    const results = res.responses.map((r) => {
      if (r.response_range) return { kvs: r.response_range.kvs.map(toKv) };
      if (r.response_delete_range) return { kvs: r.response_delete_range.prev_kvs.map(toKv), deleted: Number(r.response_delete_range.deleted) };
      if (r.response_put) return { kvs: r.response_put.prev_kv ? [toKv(r.response_put.prev_kv)] : [] };
      return { kvs: [] };
    });
    return { succeeded: res.succeeded, revision: Number(res.header?.revision ?? 0), results };
  }

  async compact(revision: number): Promise<void> {
    try {
      await this.pool.unary("Compact", { revision, physical: false }, false);
    } catch (err) {
      throw await this.mapError(err, revision);
    }
    for (const listener of this.compactionListeners) listener(revision);
  }

  onCompacted(listener: (revision: number) => void): () => void {
    this.compactionListeners.add(listener);
    return () => this.compactionListeners.delete(listener);
  }

  /** Batched: one read, sent after they asked, serves the callers of a turn (and those that waited for room) (revision-batcher.ts). */
  currentRevision(): Promise<number> {
    return this.revisionReads.current();
  }

  private async readRevision(): Promise<number> {
    try {
      return await this.headerRevision();
    } catch (err) {
      throw await this.mapError(err, 0);
    }
  }

  /** A linearizable Range of the single key "\0" (count only, limit 1): its header revision. Errors unmapped. */
  private async headerRevision(): Promise<number> {
    const res = await this.pool.unary("Range", { key: ALL, count_only: true, limit: 1 }, true);
    return Number(res.header?.revision ?? 0);
  }

  async leaseGrant(ttlSeconds: number): Promise<number> {
    // The id is chosen here (48 bits) so that it is exact as a JS number.
    const id = randomBytes(6).readUIntBE(0, 6) || 1;
    try {
      const res = await this.pool.unary("LeaseGrant", { TTL: ttlSeconds, ID: id }, false);
      return Number(res.ID);
    } catch (err) {
      throw await this.mapError(err, 0);
    }
  }

  async history(after: number, upTo: number): Promise<RevisionChange[]> {
    if (upTo <= after) return [];
    const changes: RevisionChange[] = [];
    const reached = () => changes.length > 0 && changes[changes.length - 1].revision >= upTo;
    await this.watchOnce({ key: ALL, range_end: ALL, start_revision: after + 1, prev_kv: true }, (res) => {
      for (const e of res.events ?? []) {
        const rev = Number(e.kv.mod_revision);
        if (rev > upTo) return true;
        const last = changes[changes.length - 1];
        if (last !== undefined && last.revision === rev) last.changes.push(toChange(e));
        else changes.push({ revision: rev, changes: [toChange(e)] });
      }
      return reached();
    }, reached).catch(async (err: unknown) => {
      if (err instanceof CompactedRevision) throw new CompactedError(after + 1, err.revision);
      throw await this.mapError(err, after + 1);
    });
    return changes;
  }

  /** The store's compact revision (0: none), from a watcher started at revision 1. */
  async compactRevision(): Promise<number> {
    try {
      await this.watchOnce({ key: ALL, start_revision: 1 }, () => false);
      return 0;
    } catch (err) {
      if (err instanceof CompactedRevision) return err.revision;
      throw err;
    }
  }

  /**
   * Runs one watcher until `onEvents` returns true or the store reports it caught up
   * (the answer to a progress request). Retried on another endpoint when the stream fails.
   *
   * etcd 3.4 answers a progress request at once, even before an unsynced watcher has
   * been sent its history (later versions and this store wait until it is synced):
   * unless `complete()` holds, a first answer is followed by a second request after
   * etcd's sync interval, and only that answer ends the watcher.
   */
  private async watchOnce(create: PbWatchCreateRequest, onEvents: (res: PbWatchResponse) => boolean, complete: () => boolean = () => false): Promise<void> {
    const deadline = Date.now() + this.unavailableBudgetMs;
    for (;;) {
      const { stream, endpoint } = this.pool.stream("Watch");
      try {
        await new Promise<void>((resolve, reject) => {
          let done = false;
          let progressAnswers = 0;
          const finish = (err?: unknown) => {
            if (done) return;
            done = true;
            clearTimeout(timer);
            stream.cancel();
            if (err === undefined) resolve();
            else reject(err);
          };
          const timer = setTimeout(() => finish(new EtcdCallError(GrpcStatus.DEADLINE_EXCEEDED, "watch timed out", endpoint)), this.opts.callTimeoutMs ?? 10_000);
          stream.on("data", (res: PbWatchResponse) => {
            if (res.canceled) {
              const compact = Number(res.compact_revision ?? 0);
              finish(compact > 0 ? new CompactedRevision(compact) : new EtcdCallError(GrpcStatus.CANCELLED, res.cancel_reason || "watch canceled", endpoint));
            } else if (Number(res.watch_id) === -1) {
              if (complete() || ++progressAnswers >= 2) finish();
              else setTimeout(() => done || stream.write({ request_union: "progress_request", progress_request: {} }), PROGRESS_RECHECK_MS);
            }
            else if ((res.events?.length ?? 0) > 0 && onEvents(res)) finish();
          });
          stream.on("error", (err) => finish(err instanceof EtcdCallError ? err : new EtcdCallError(GrpcStatus.UNAVAILABLE, err.message, endpoint)));
          stream.on("end", () => finish(new EtcdCallError(GrpcStatus.UNAVAILABLE, "watch stream ended", endpoint)));
          stream.write({ request_union: "create_request", create_request: create });
          stream.write({ request_union: "progress_request", progress_request: {} });
        });
        return;
      } catch (err) {
        const retry = err instanceof EtcdCallError && (err.code === GrpcStatus.UNAVAILABLE || err.code === GrpcStatus.DEADLINE_EXCEEDED);
        if (!retry || Date.now() > deadline) throw err;
        this.pool.failover(endpoint);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  private mapError(err: unknown, requested: number): Promise<unknown> {
    return fromEtcdError(err, { requested, compactRevision: () => this.compactRevision(), currentRevision: () => this.headerRevision() });
  }

  async close(): Promise<void> {
    this.pool.close();
  }
}

/** Internal: a watcher was canceled because its start revision is compacted. */
class CompactedRevision extends Error {
  constructor(readonly revision: number) {
    super(`compacted at ${revision}`);
  }
}
