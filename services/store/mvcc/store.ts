import { ErrCompacted, ErrFutureRev, StoreError, invalidRequest, requestError } from "./errors.ts";
import { KeyIndex, deletedKv } from "./key-index.ts";
import { EMPTY_BYTES, intervalContains, keyId, toInterval, type KeyId, type KeyInterval } from "./keys.ts";
import { compareHolds, finishRange, needsFullRange } from "./range-ops.ts";
import { decodeSnapshot, encodeSnapshot, type SnapshotState } from "./snapshot.ts";
import { SortedKeySet } from "./sorted-keys.ts";
import type {
  AlarmMember,
  AlarmRequest,
  AlarmResponse,
  Applied,
  CompactResponse,
  DeleteRangeRequest,
  DeleteRangeResponse,
  KeyRange,
  KeyValue,
  KvEvent,
  LeaseGrantRequest,
  LeaseGrantResponse,
  LeaseId,
  LeaseInfo,
  LeaseKeys,
  LeaseRevokeRequest,
  LeaseRevokeResponse,
  PutRequest,
  PutResponse,
  RangeRequest,
  RangeResponse,
  RequestOp,
  ResponseOp,
  RevisionChange,
  StoreRequest,
  StoreResponse,
  StoreResult,
  TxnRequest,
  TxnResponse,
} from "./types.ts";

/**
 * Bytes one stored revision of a key costs beyond its key and value in the space
 * accounting (revision key, KeyValue fields, page element), about what the backup
 * image spends on it.
 */
export const ENTRY_OVERHEAD_BYTES = 64;

/** Bytes of one stored entry (a put with its value, or a tombstone). */
function entryBytes(key: Uint8Array, value: Uint8Array | undefined): number {
  return key.length + (value?.length ?? 0) + ENTRY_OVERHEAD_BYTES;
}

function historyBytes(ki: KeyIndex): number {
  let n = 0;
  for (const g of ki.generations) for (const e of g.entries) n += entryBytes(ki.key, e.kv?.value);
  return n;
}

/** Whether a txn puts anything on either branch, at any depth (etcd's quota cost > 0). */
/**
 * The response of an applied request. A module function, not a closure made per call:
 * the loader that runs the services (tsx, keepNames) names every named closure when it
 * is made, which turns that function object into a slow one (a hidden class of its own)
 * at ~0.6 us each; the store applies one request per entry.
 */
function responseOf<T>(applied: Applied<T>, result: (r: T) => StoreResult): StoreResponse {
  return { revision: applied.revision, change: applied.change, result: result(applied.response) };
}

function txnPuts(t: TxnRequest): boolean {
  return [...(t.success ?? []), ...(t.failure ?? [])].some((op) => op.type === "put" || (op.type === "txn" && txnPuts(op.request)));
}

/** etcd's MaxLeaseTTL, in seconds. */
export const MAX_LEASE_TTL = 9_000_000_000;

interface LeaseState {
  readonly id: LeaseId;
  readonly ttl: number;
  readonly keys: Set<KeyId>;
}

/** An open write: the revision it will commit as, the next sub-revision, and how to roll it back. */
interface WriteCtx {
  readonly main: number;
  sub: number;
  readonly events: KvEvent[];
  readonly undo: (() => void)[];
}

export function makeEvent(type: KvEvent["type"], kv: KeyValue, prevKv: KeyValue | null): KvEvent {
  return prevKv === null ? { type, kv } : { type, kv, prevKv };
}

/**
 * The revisioned key space: the deterministic state machine the Raft log is applied
 * to. No clock, no I/O. Writes either commit as exactly one new revision (when they
 * change something) or leave the state untouched (errors roll back completely).
 *
 * The store starts at revision 1 with no keys, as etcd does; the first write is revision 2.
 * The change history keeps every revision >= max(compactRevision, 2).
 */
export class MvccStore {
  private index = new Map<KeyId, KeyIndex>();
  private ordered = new SortedKeySet<KeyIndex>();
  private leaseTable = new Map<LeaseId, LeaseState>();
  private rev = 1;
  private compactRev = 0;
  /** history[i].revision === historyStart + i. */
  private history: RevisionChange[] = [];
  /**
   * Keys that may hold entries a compaction drops: every key written since the last
   * compaction left it with one entry (a superset). Each is in the index: a rolled-back
   * creation and a compaction that empties a key take it out, a restore replaces it.
   */
  private compactable = new Set<KeyIndex>();
  /** Raised alarms by `${memberId}/${alarm}`. */
  private alarmTable = new Map<string, AlarmMember>();
  /** Bytes of the retained entries (dbSizeInUse) and their high-water mark since the last defragment (dbSize). */
  private usedBytes = 0;
  private allocatedBytes = 0;

  static fromSnapshot(bytes: Uint8Array): MvccStore {
    const store = new MvccStore();
    store.restore(bytes);
    return store;
  }

  get currentRevision(): number {
    return this.rev;
  }

  get compactRevision(): number {
    return this.compactRev;
  }

  /** Keys with any retained history (live or tombstoned). */
  get indexedKeys(): number {
    return this.index.size;
  }

  private get historyStart(): number {
    return Math.max(this.compactRev, 2);
  }

  // ---- reads -------------------------------------------------------------

  range(req: RangeRequest): RangeResponse {
    if (req.key.length === 0) throw requestError("empty-key");
    return this.rangeAt(req, this.rev);
  }

  private rangeAt(req: RangeRequest, viewRev: number): RangeResponse {
    const rev = req.revision !== undefined && req.revision > 0 ? req.revision : viewRev;
    if (rev > viewRev) throw new ErrFutureRev(this.rev);
    if (rev < this.compactRev) throw new ErrCompacted(this.compactRev);
    const limit = req.limit !== undefined && req.limit > 0 ? req.limit : 0;
    const keepAll = limit === 0 || needsFullRange(req);
    const countOnly = req.countOnly === true;
    const found: KeyValue[] = [];
    let count = 0;
    this.forEachIndex(toInterval(req), (ki) => {
      const kv = ki.at(rev);
      if (kv === null) return;
      count++;
      if (!countOnly && (keepAll || found.length <= limit)) found.push(kv);
    });
    if (countOnly) return { revision: viewRev, kvs: [], more: false, count };
    const { kvs, more } = finishRange(req, found);
    return { revision: viewRev, kvs, more, count };
  }

  private forEachIndex(iv: KeyInterval, fn: (ki: KeyIndex) => void): void {
    if (iv.single) {
      const ki = this.index.get(iv.start);
      if (ki !== undefined) fn(ki);
      return;
    }
    this.ordered.forEachInRange(iv.start, iv.end, fn);
  }

  private visibleAt(range: KeyRange, rev: number): KeyValue[] {
    const out: KeyValue[] = [];
    this.forEachIndex(toInterval(range), (ki) => {
      const kv = ki.at(rev);
      if (kv !== null) out.push(kv);
    });
    return out;
  }

  /**
   * The retained changes at revisions >= revision, optionally only the events in a key
   * range (revisions without a matching event are left out). Throws ErrCompacted below
   * the compact revision. This is the Watch API's catch-up source.
   */
  changesSince(revision: number, range?: KeyRange): RevisionChange[] {
    if (revision < this.compactRev) throw new ErrCompacted(this.compactRev);
    const start = this.historyStart;
    const from = Math.max(revision, start) - start;
    const iv = range === undefined ? null : toInterval(range);
    const out: RevisionChange[] = [];
    for (let i = from; i < this.history.length; i++) {
      const change = this.history[i];
      if (iv === null) {
        out.push(change);
        continue;
      }
      const events = change.events.filter((e) => intervalContains(iv, keyId(e.kv.key)));
      if (events.length > 0) out.push({ revision: change.revision, events });
    }
    return out;
  }

  // ---- writes ------------------------------------------------------------

  private write<T>(body: (ctx: WriteCtx) => T): Applied<T> {
    const ctx: WriteCtx = { main: this.rev + 1, sub: 0, events: [], undo: [] };
    let response: T;
    try {
      response = body(ctx);
    } catch (err) {
      for (let i = ctx.undo.length - 1; i >= 0; i--) ctx.undo[i]();
      throw err;
    }
    if (ctx.events.length === 0) return { revision: this.rev, change: null, response };
    const change: RevisionChange = { revision: ctx.main, events: ctx.events };
    this.rev = ctx.main;
    this.history.push(change);
    for (const e of ctx.events) this.usedBytes += entryBytes(e.kv.key, e.type === "PUT" ? e.kv.value : undefined);
    if (this.usedBytes > this.allocatedBytes) this.allocatedBytes = this.usedBytes;
    return { revision: this.rev, change, response };
  }

  put(req: PutRequest): Applied<PutResponse> {
    this.checkSpace();
    this.checkPut(req);
    return this.write((ctx) => this.doPut(req, ctx));
  }

  deleteRange(req: DeleteRangeRequest): Applied<DeleteRangeResponse> {
    if (req.key.length === 0) throw requestError("empty-key");
    this.checkCorrupt();
    return this.write((ctx) => this.doDelete(req, ctx));
  }

  txn(req: TxnRequest): Applied<TxnResponse> {
    // All compares (the outer and the nested ones on the chosen path) see the state
    // before the txn, and every op on the path is checked before anything is written.
    if (txnPuts(req)) this.checkSpace();
    else this.checkCorrupt();
    const path = new Map<TxnRequest, boolean>();
    this.evalPath(req, path);
    this.checkOps(req, path);
    return this.write((ctx) => this.execTxn(req, path, ctx));
  }

  private checkPut(req: PutRequest): void {
    if (req.key.length === 0) throw requestError("empty-key");
    if (req.ignoreValue === true && req.value !== undefined && req.value.length > 0) throw requestError("value-provided");
    if (req.ignoreLease === true && req.lease !== undefined && req.lease !== 0n) throw requestError("lease-provided");
    if (req.ignoreValue === true || req.ignoreLease === true) {
      if ((this.index.get(keyId(req.key))?.latest() ?? null) === null) throw requestError("key-not-found");
    }
    if (req.ignoreLease !== true && req.lease !== undefined && req.lease !== 0n && !this.leaseTable.has(req.lease)) {
      throw requestError("lease-not-found");
    }
  }

  private doPut(req: PutRequest, ctx: WriteCtx): PutResponse {
    const id = keyId(req.key);
    let ki = this.index.get(id);
    const prev = ki?.latest() ?? null;
    let value: Uint8Array;
    let lease: LeaseId;
    if (req.ignoreValue === true || req.ignoreLease === true) {
      // Possible inside a txn that deleted the key earlier: the whole txn rolls back.
      if (prev === null) throw requestError("key-not-found");
      value = req.ignoreValue === true ? prev.value : Uint8Array.from(req.value ?? EMPTY_BYTES);
      lease = req.ignoreLease === true ? prev.lease : (req.lease ?? 0n);
    } else {
      value = req.value === undefined || req.value.length === 0 ? EMPTY_BYTES : Uint8Array.from(req.value);
      lease = req.lease ?? 0n;
    }
    if (lease !== 0n && !this.leaseTable.has(lease)) throw requestError("lease-not-found");

    if (ki === undefined) {
      const created = new KeyIndex(Uint8Array.from(req.key), id);
      this.index.set(id, created);
      this.ordered.insert(created);
      ctx.undo.push(() => {
        this.index.delete(id);
        this.ordered.delete(id);
        this.compactable.delete(created);
      });
      ki = created;
    }
    const target = ki;
    const { kv } = target.put(ctx.main, ctx.sub++, value, lease);
    ctx.undo.push(() => target.popEntry());
    this.compactable.add(target);
    const prevLease = prev?.lease ?? 0n;
    if (prevLease !== lease) {
      this.detach(prevLease, id, ctx);
      this.attach(lease, id, ctx);
    }
    ctx.events.push(makeEvent("PUT", kv, prev));
    return req.prevKv === true && prev !== null ? { prevKv: prev } : {};
  }

  private doDelete(req: DeleteRangeRequest, ctx: WriteCtx): DeleteRangeResponse {
    const targets: KeyIndex[] = [];
    this.forEachIndex(toInterval(req), (ki) => {
      if (ki.latest() !== null) targets.push(ki);
    });
    const prevKvs: KeyValue[] = [];
    for (const ki of targets) {
      const prev = this.tombstone(ki, ctx);
      if (req.prevKv === true) prevKvs.push(prev);
    }
    return { deleted: targets.length, prevKvs };
  }

  private tombstone(ki: KeyIndex, ctx: WriteCtx): KeyValue {
    const prev = ki.tombstone(ctx.main, ctx.sub++);
    ctx.undo.push(() => ki.popEntry());
    this.compactable.add(ki);
    this.detach(prev.lease, ki.id, ctx);
    ctx.events.push(makeEvent("DELETE", deletedKv(ki.key, ctx.main), prev));
    return prev;
  }

  private attach(lease: LeaseId, id: KeyId, ctx: WriteCtx): void {
    const state = lease === 0n ? undefined : this.leaseTable.get(lease);
    if (state === undefined || state.keys.has(id)) return;
    state.keys.add(id);
    ctx.undo.push(() => state.keys.delete(id));
  }

  private detach(lease: LeaseId, id: KeyId, ctx: WriteCtx): void {
    const state = lease === 0n ? undefined : this.leaseTable.get(lease);
    if (state === undefined || !state.keys.delete(id)) return;
    ctx.undo.push(() => state.keys.add(id));
  }

  // ---- txn ---------------------------------------------------------------

  private evalPath(t: TxnRequest, path: Map<TxnRequest, boolean>): void {
    const ok = (t.compare ?? []).every((c) => compareHolds(c, this.visibleAt(c, this.rev)));
    path.set(t, ok);
    for (const op of (ok ? t.success : t.failure) ?? []) {
      if (op.type === "txn") this.evalPath(op.request, path);
    }
  }

  private checkOps(t: TxnRequest, path: Map<TxnRequest, boolean>): void {
    for (const op of (path.get(t) === true ? t.success : t.failure) ?? []) {
      switch (op.type) {
        case "range": {
          const r = op.request;
          if (r.key.length === 0) throw requestError("empty-key");
          if (r.revision !== undefined && r.revision > this.rev) throw new ErrFutureRev(this.rev);
          if (r.revision !== undefined && r.revision > 0 && r.revision < this.compactRev) {
            throw new ErrCompacted(this.compactRev);
          }
          break;
        }
        case "put":
          this.checkPut(op.request);
          break;
        case "deleteRange":
          if (op.request.key.length === 0) throw requestError("empty-key");
          break;
        case "txn":
          this.checkOps(op.request, path);
          break;
        default:
          throw invalidRequest(`unknown txn op ${(op as { type: unknown }).type as string}`);
      }
    }
  }

  private execTxn(t: TxnRequest, path: Map<TxnRequest, boolean>, ctx: WriteCtx): TxnResponse {
    const succeeded = path.get(t) === true;
    const ops = (succeeded ? t.success : t.failure) ?? [];
    return { succeeded, responses: ops.map((op) => this.execOp(op, path, ctx)) };
  }

  private execOp(op: RequestOp, path: Map<TxnRequest, boolean>, ctx: WriteCtx): ResponseOp {
    switch (op.type) {
      case "range":
        // Reads inside a write txn see the txn's earlier writes.
        return { type: "range", response: this.rangeAt(op.request, ctx.events.length > 0 ? ctx.main : this.rev) };
      case "put":
        return { type: "put", response: this.doPut(op.request, ctx) };
      case "deleteRange":
        return { type: "deleteRange", response: this.doDelete(op.request, ctx) };
      case "txn":
        return { type: "txn", response: this.execTxn(op.request, path, ctx) };
    }
  }

  // ---- compaction ----------------------------------------------------------

  /**
   * Drops history below revision: reads and watches below it fail with ErrCompacted
   * afterwards; reads at or above it are unchanged. Visits only the keys written since
   * they last had a single entry (compactable), so its cost follows the keys changed
   * since the previous compaction, not the keyspace.
   */
  compact(revision: number): Applied<CompactResponse> {
    if (revision <= this.compactRev) throw new ErrCompacted(this.compactRev);
    if (revision > this.rev) throw new ErrFutureRev(this.rev);
    const start = this.historyStart;
    const drop = Math.max(0, Math.min(revision - start, this.history.length));
    const stillCompactable = new Set<KeyIndex>();
    let droppedBytes = 0;
    for (const ki of this.compactable) {
      ki.compact(revision, (e) => (droppedBytes += entryBytes(ki.key, e.kv?.value)));
      if (ki.isEmpty()) {
        this.index.delete(ki.id);
        this.ordered.delete(ki.id);
      } else if ((ki.lastEntry()?.main ?? 0) >= revision) {
        stillCompactable.add(ki); // else one put is left below the revision: nothing for a later compaction
      }
    }
    this.compactable = stillCompactable;
    this.usedBytes -= droppedBytes;
    this.history.splice(0, drop);
    this.compactRev = revision;
    return { revision: this.rev, change: null, response: {} };
  }

  // ---- leases --------------------------------------------------------------

  leaseGrant(req: LeaseGrantRequest): Applied<LeaseGrantResponse> {
    this.checkSpace();
    if (req.id === 0n) throw invalidRequest("lease id 0 (the leader assigns an id before proposing)");
    if (!Number.isSafeInteger(req.ttl)) throw invalidRequest(`lease ttl ${req.ttl}`);
    if (req.ttl > MAX_LEASE_TTL) throw requestError("lease-ttl-too-large");
    if (this.leaseTable.has(req.id)) throw requestError("lease-exists");
    this.leaseTable.set(req.id, { id: req.id, ttl: req.ttl, keys: new Set() });
    return { revision: this.rev, change: null, response: { id: req.id, ttl: req.ttl } };
  }

  /** Removes the lease and deletes its keys (in key order) as one revision. */
  leaseRevoke(req: LeaseRevokeRequest): Applied<LeaseRevokeResponse> {
    const state = this.leaseTable.get(req.id);
    if (state === undefined) throw requestError("lease-not-found");
    const ids = [...state.keys].sort();
    const applied = this.write((ctx) => {
      for (const id of ids) {
        const ki = this.index.get(id);
        if (ki !== undefined && ki.latest() !== null) this.tombstone(ki, ctx);
      }
      return {};
    });
    this.leaseTable.delete(req.id);
    return applied;
  }

  /** All leases in id order. */
  leases(): LeaseInfo[] {
    return [...this.leaseTable.values()].map(({ id, ttl }) => ({ id, ttl })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** A lease with its attached keys in byte order, or undefined if it does not exist. */
  lease(id: LeaseId): LeaseKeys | undefined {
    const state = this.leaseTable.get(id);
    if (state === undefined) return undefined;
    const keys = [...state.keys].sort().map((k) => this.index.get(k)?.key ?? EMPTY_BYTES);
    return { id, ttl: state.ttl, keys };
  }

  // ---- alarms and space ----------------------------------------------------

  /** Raised alarms in member id, then type order. */
  alarms(): AlarmMember[] {
    return [...this.alarmTable.values()].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : a.alarm.localeCompare(b.alarm)));
  }

  /** Raises or clears an alarm (no new revision). While NOSPACE is raised, puts, txns that put and lease grants fail. */
  alarm(req: AlarmRequest): Applied<AlarmResponse> {
    const key = `${req.memberId}/${req.alarm}`;
    const member: AlarmMember = { memberId: req.memberId, alarm: req.alarm };
    let changed: AlarmMember[] = [];
    if (req.action === "activate" && !this.alarmTable.has(key)) {
      this.alarmTable.set(key, member);
      changed = [member];
    } else if (req.action === "deactivate" && this.alarmTable.delete(key)) {
      changed = [member];
    }
    return { revision: this.rev, change: null, response: { alarms: changed } };
  }

  /** Refuses a write that takes space while NOSPACE is raised, and any write while CORRUPT is (etcd's capped and corrupt appliers). */
  private checkSpace(): void {
    this.checkCorrupt();
    for (const a of this.alarmTable.values()) if (a.alarm === "NOSPACE") throw requestError("no-space");
  }

  private checkCorrupt(): void {
    for (const a of this.alarmTable.values()) if (a.alarm === "CORRUPT") throw requestError("corrupt");
  }

  /**
   * Sizes of the state in bytes: `inUse` counts the retained entries (ENTRY_OVERHEAD_BYTES
   * each beyond key and value); `allocated` is its high-water mark since the last
   * defragment (or restore), as a database file keeps the pages compaction freed.
   */
  space(): { inUse: number; allocated: number } {
    return { inUse: this.usedBytes, allocated: this.allocatedBytes };
  }

  /** Gives the space that compaction freed back: allocated becomes inUse. Local to this member. */
  defragment(): void {
    this.allocatedBytes = this.usedBytes;
  }

  // ---- replicated apply ----------------------------------------------------

  /** Applies one log entry's request. Request errors become an error result; nothing changed then. */
  apply(request: StoreRequest): StoreResponse {
    try {
      return this.dispatch(request);
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
      return { revision: this.rev, change: null, result: { type: "error", error: { code: err.code, message: err.message } } };
    }
  }

  private dispatch(request: StoreRequest): StoreResponse {
    switch (request.type) {
      case "put":
        return responseOf(this.put(request.request), (response) => ({ type: "put", response }));
      case "deleteRange":
        return responseOf(this.deleteRange(request.request), (response) => ({ type: "deleteRange", response }));
      case "txn":
        return responseOf(this.txn(request.request), (response) => ({ type: "txn", response }));
      case "compact":
        return responseOf(this.compact(request.request.revision), (response) => ({ type: "compact", response }));
      case "leaseGrant":
        return responseOf(this.leaseGrant(request.request), (response) => ({ type: "leaseGrant", response }));
      case "leaseRevoke":
        return responseOf(this.leaseRevoke(request.request), (response) => ({ type: "leaseRevoke", response }));
      case "alarm":
        return responseOf(this.alarm(request.request), (response) => ({ type: "alarm", response }));
      default:
        throw invalidRequest(`unknown request type ${(request as { type: unknown }).type as string}`);
    }
  }

  // ---- snapshot ------------------------------------------------------------

  /** The whole state (retained revisions, leases, current and compact revision) as bytes. */
  snapshot(): Uint8Array {
    return encodeSnapshot(this.state());
  }

  /**
   * The whole state as snapshot.ts describes it. It shares the live key index: read it
   * before the next write (synchronously).
   */
  state(): SnapshotState {
    return { revision: this.rev, compactRevision: this.compactRev, leases: this.leases(), keys: this.ordered.toArray(), alarms: this.alarms() };
  }

  /**
   * The state as a view that later writes and compactions leave as it is (key-index.ts,
   * Views), for encodeSnapshotSliced: takes time in the number of keys, not of revisions.
   */
  snapshotView(): SnapshotState {
    const state = this.state();
    // The space accounting counts a little more than the encoding takes per entry.
    return { ...state, generations: state.keys.map((ki) => ki.generations), sizeHint: this.usedBytes };
  }

  /** Replaces the state with a snapshot's. On malformed input throws and keeps the old state. */
  restore(bytes: Uint8Array): void {
    const snap = decodeSnapshot(bytes);
    const index = new Map<KeyId, KeyIndex>();
    const leaseTable = new Map<LeaseId, LeaseState>();
    for (const { id, ttl } of snap.leases) leaseTable.set(id, { id, ttl, keys: new Set() });
    const historyStart = Math.max(snap.compactRevision, 2);
    const byRevision: { sub: number; event: KvEvent }[][] = [];
    for (let r = historyStart; r <= snap.revision; r++) byRevision.push([]);

    for (const ki of snap.keys) {
      index.set(ki.id, ki);
      const live = ki.latest();
      if (live !== null && live.lease !== 0n) {
        const state = leaseTable.get(live.lease);
        if (state === undefined) throw invalidRequest("snapshot: key attached to an unknown lease");
        state.keys.add(ki.id);
      }
      for (const gen of ki.generations) {
        gen.entries.forEach((entry, i) => {
          if (entry.main < historyStart) return;
          const prev = i > 0 ? gen.entries[i - 1].kv : null;
          const event =
            entry.kv === null ? makeEvent("DELETE", deletedKv(ki.key, entry.main), prev) : makeEvent("PUT", entry.kv, prev);
          byRevision[entry.main - historyStart].push({ sub: entry.sub, event });
        });
      }
    }
    const history: RevisionChange[] = byRevision.map((events, i) => {
      if (events.length === 0) throw invalidRequest(`snapshot: no change at revision ${historyStart + i}`);
      events.sort((a, b) => a.sub - b.sub);
      return { revision: historyStart + i, events: events.map((e) => e.event) };
    });

    this.index = index;
    this.ordered = SortedKeySet.fromSorted(snap.keys);
    this.compactable = new Set(snap.keys);
    this.leaseTable = leaseTable;
    this.rev = snap.revision;
    this.compactRev = snap.compactRevision;
    this.history = history;
    this.alarmTable = new Map((snap.alarms ?? []).map((a) => [`${a.memberId}/${a.alarm}`, a]));
    this.usedBytes = snap.keys.reduce((n, ki) => n + historyBytes(ki), 0);
    this.allocatedBytes = this.usedBytes;
  }
}
