/**
 * `--etcd-prefix`: the registry under another key prefix in the store, as a decorator
 * of the store client and the revision feed. Everything above sees the registry root
 * `/registry` (REGISTRY_ROOT): keys (and range ends) starting with it are written to
 * and read from `<prefix>` instead; keys read back from under `<prefix>` are seen under
 * `/registry`. Store keys outside `<prefix>` (another tenant's, or another cluster's
 * `/registry`) never reach the replica: a range result or history change on such a key
 * is dropped (its revision still counts, empty).
 */
import type { Compare, KeyChange, KeyValue, KvStore, RangeOptions, RangeResult, RevisionChange, RevisionFeed, TxnOp, TxnResult } from "./kv.ts";

/** The registry root the apiserver writes under (without its trailing slash). */
export const DEFAULT_ETCD_PREFIX = "/registry";

export class KeyPrefix {
  readonly storePrefix: string;

  /** `prefix` as the flag gives it (a trailing "/" is dropped). */
  constructor(prefix: string) {
    this.storePrefix = prefix.replace(/\/+$/, "");
    if (!this.storePrefix.startsWith("/")) throw new Error(`--etcd-prefix "${prefix}" must start with "/"`);
  }

  /** Whether keys are stored as the apiserver names them (no mapping needed). */
  get identity(): boolean {
    return this.storePrefix === DEFAULT_ETCD_PREFIX;
  }

  /** A key or range end of the apiserver as stored ("\0" and other keys pass unchanged). */
  toStore(key: string): string {
    return key.startsWith(DEFAULT_ETCD_PREFIX) ? this.storePrefix + key.slice(DEFAULT_ETCD_PREFIX.length) : key;
  }

  /** A stored key as the apiserver sees it; undefined for a key outside the prefix. */
  fromStore(key: string): string | undefined {
    if (!key.startsWith(this.storePrefix)) return undefined;
    const rest = key.slice(this.storePrefix.length);
    return rest === "" || rest.startsWith("/") ? DEFAULT_ETCD_PREFIX + rest : undefined;
  }
}

function mapOptions(p: KeyPrefix, o: RangeOptions | undefined): RangeOptions | undefined {
  return o?.end === undefined ? o : { ...o, end: p.toStore(o.end) };
}

function mapOp(p: KeyPrefix, op: TxnOp): TxnOp {
  if (op.type === "put") return { ...op, key: p.toStore(op.key) };
  if (op.type === "delete") return { ...op, key: p.toStore(op.key), end: op.end === undefined ? undefined : p.toStore(op.end) };
  return { ...op, key: p.toStore(op.key), options: mapOptions(p, op.options) };
}

function mapKvs(p: KeyPrefix, kvs: KeyValue[]): KeyValue[] {
  const out: KeyValue[] = [];
  for (const kv of kvs) {
    const key = p.fromStore(kv.key);
    if (key !== undefined) out.push({ ...kv, key });
  }
  return out;
}

function mapChange(p: KeyPrefix, change: RevisionChange): RevisionChange {
  const changes: KeyChange[] = [];
  for (const c of change.changes) {
    const key = p.fromStore(c.key);
    if (key !== undefined) changes.push({ ...c, key });
  }
  return { revision: change.revision, changes };
}

export class PrefixedKv implements KvStore {
  constructor(
    private readonly inner: KvStore,
    private readonly prefix: KeyPrefix,
  ) {}

  get unavailableBudgetMs(): number | undefined {
    return this.inner.unavailableBudgetMs;
  }

  async range(key: string, options?: RangeOptions): Promise<RangeResult> {
    const res = await this.inner.range(this.prefix.toStore(key), mapOptions(this.prefix, options));
    return { ...res, kvs: mapKvs(this.prefix, res.kvs) };
  }

  async txn(compares: Compare[], success: TxnOp[], failure: TxnOp[]): Promise<TxnResult> {
    const p = this.prefix;
    const res = await this.inner.txn(
      compares.map((c) => ({ ...c, key: p.toStore(c.key) })),
      success.map((op) => mapOp(p, op)),
      failure.map((op) => mapOp(p, op)),
    );
    return { ...res, results: res.results.map((r) => ({ ...r, kvs: mapKvs(p, r.kvs) })) };
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }

  leaseGrant(ttlSeconds: number): Promise<number> {
    return this.inner.leaseGrant(ttlSeconds);
  }

  async history(after: number, upTo: number): Promise<RevisionChange[]> {
    return (await this.inner.history(after, upTo)).map((c) => mapChange(this.prefix, c));
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The feed with stored keys mapped back (changes outside the prefix emptied). */
export function prefixedFeed(inner: RevisionFeed, prefix: KeyPrefix): RevisionFeed {
  return {
    subscribe: (after, onChange, onError) => inner.subscribe(after, (change) => onChange(mapChange(prefix, change)), onError),
  };
}
