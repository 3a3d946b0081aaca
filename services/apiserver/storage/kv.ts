/**
 * The key-value contract the apiserver needs from the store service: an etcd v3
 * subset with string keys. One implementation, EtcdKv (etcd-kv.ts), over the typed
 * etcd v3 API of shared/etcd: store members over gRPC, or the embedded store's
 * handlers in process. Failures are the typed errors of errors.ts.
 *
 * Revisions: one global, strictly increasing number per successful write txn.
 */
import type { StreamKeyChange } from "../../../shared/stream/revision-entry.ts";

export { CompactedError, FutureRevisionError, StoreError, StoreRejectedError, StoreUnavailableError } from "./errors.ts";

export interface KeyValue {
  key: string;
  value: Uint8Array;
  createRevision: number;
  modRevision: number;
  version: number;
  lease: number;
}

export interface RangeOptions {
  /** Exclusive end of the range; omitted means the single key. */
  end?: string;
  limit?: number;
  /** Read at this past revision (0 or omitted: current). */
  revision?: number;
  countOnly?: boolean;
  keysOnly?: boolean;
  /** Answer locally without a quorum check. */
  serializable?: boolean;
}

export interface RangeResult {
  kvs: KeyValue[];
  count: number;
  more: boolean;
  /** Store revision at which the read was served. */
  revision: number;
}

export type CompareTarget = "version" | "create" | "mod" | "value" | "lease";
export type CompareResult = "=" | "!=" | ">" | "<";

export interface Compare {
  key: string;
  target: CompareTarget;
  result: CompareResult;
  /** Number for version/create/mod/lease, bytes for value. */
  value: number | Uint8Array;
}

/** Puts and deletes return the previous values only when asked (`prevKv`): the store then reads and sends them. */
export type TxnOp =
  | { type: "put"; key: string; value: Uint8Array; lease?: number; prevKv?: boolean }
  | { type: "delete"; key: string; end?: string; prevKv?: boolean }
  | { type: "range"; key: string; options?: RangeOptions };

export interface TxnResult {
  succeeded: boolean;
  revision: number;
  /** For each op of the taken branch: the range result (range ops), the deleted count (deletes), and the previous kvs (puts and deletes that asked for them). */
  results: Array<{ kvs: KeyValue[]; deleted?: number }>;
}

export interface KvStore {
  range(key: string, options?: RangeOptions): Promise<RangeResult>;
  txn(compares: Compare[], success: TxnOp[], failure: TxnOp[]): Promise<TxnResult>;
  compact(revision: number): Promise<void>;
  /** Current revision through a quorum read (ReadIndex). */
  currentRevision(): Promise<number>;
  leaseGrant(ttlSeconds: number): Promise<number>;
  /**
   * Every revision in (after, upTo] from the store's MVCC history, in order.
   * Throws CompactedError when part of it was compacted.
   */
  history(after: number, upTo: number): Promise<RevisionChange[]>;
  close(): Promise<void>;
  /** How long this client keeps trying a store that is unavailable (its retry budget); a write's ambiguous outcome is resolved within at least this long. */
  readonly unavailableBudgetMs?: number;
  /** Hears every compaction made through this client (the watch cache then drops older snapshots); returns the unsubscribe. */
  onCompacted?(listener: (revision: number) => void): () => void;
}

/**
 * A source of revisions in strict order. `subscribe(after)` delivers every revision
 * greater than `after` exactly once and in order; gaps are filled by the feed itself
 * (from the store history) or reported through `onError` (then the subscriber relists).
 */
export interface RevisionFeed {
  subscribe(after: number, onChange: (change: RevisionChange) => void, onError: (err: Error) => void): () => void;
}

/** One key change of a revision, as published on the revision stream. */
export type KeyChange = StreamKeyChange;

export interface RevisionChange {
  revision: number;
  changes: KeyChange[];
}

/** Exclusive end key of a prefix range (etcd's GetPrefixRangeEnd on strings of code units). */
export function prefixEnd(prefix: string): string {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const c = prefix.charCodeAt(i);
    if (c < 0xffff) return prefix.slice(0, i) + String.fromCharCode(c + 1);
  }
  return "\0";
}
