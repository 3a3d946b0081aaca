/**
 * Encryption at rest as a decorator of the store client and the revision feed: values
 * of the resources the configuration names are encrypted before a put and decrypted
 * after every read (ranges, txn results, history, feed changes), so the store's log
 * and snapshots and the Redis stream hold only ciphertext, and everything above
 * (storage, watch cache) sees plain values. A value that does not decrypt is passed on
 * as it is stored (and reported): ciphertext is no object, so readers treat it as the
 * corrupt object it is (a 500 through the API), in the store reads and the watch cache
 * alike. Values read with a
 * provider other than the first are remembered as stale (`isStale`), so an update
 * that changes nothing still rewrites them with the current key.
 */
import type { Compare, KeyValue, KvStore, RangeOptions, RangeResult, RevisionChange, RevisionFeed, TxnOp, TxnResult, KeyChange } from "../kv.ts";
import type { TransformerLookup } from "./config.ts";

/** A stored value that no provider can read, reported once per read. */
export interface UnreadableValue {
  key: string;
  revision: number;
  error: string;
}

export type UnreadableReport = (u: UnreadableValue) => void;

export class EncryptedKv implements KvStore {
  private readonly stale = new WeakSet<KeyValue>();

  constructor(
    private readonly inner: KvStore,
    private readonly transformers: TransformerLookup,
    private readonly report: UnreadableReport = () => {},
  ) {}

  get unavailableBudgetMs(): number | undefined {
    return this.inner.unavailableBudgetMs;
  }

  /** The value was read with another provider than the first (rewrite it). */
  readonly isStale = (kv: KeyValue): boolean => this.stale.has(kv);

  private async decryptKv(kv: KeyValue): Promise<KeyValue> {
    const t = this.transformers.forKey(kv.key);
    if (!t || kv.value.length === 0) return kv;
    let read;
    try {
      read = await t.fromStorage(kv.value, kv.key);
    } catch (err) {
      this.report({ key: kv.key, revision: kv.modRevision, error: (err as Error).message });
      return kv;
    }
    const out: KeyValue = { ...kv, value: read.value };
    if (read.stale) this.stale.add(out);
    return out;
  }

  private async encryptOp(op: TxnOp): Promise<TxnOp> {
    if (op.type !== "put") return op;
    const t = this.transformers.forKey(op.key);
    return t ? { ...op, value: await t.toStorage(op.value, op.key) } : op;
  }

  async range(key: string, options?: RangeOptions): Promise<RangeResult> {
    const res = await this.inner.range(key, options);
    if (options?.countOnly || options?.keysOnly || res.kvs.length === 0) return res;
    return { ...res, kvs: await Promise.all(res.kvs.map((kv) => this.decryptKv(kv))) };
  }

  async txn(compares: Compare[], success: TxnOp[], failure: TxnOp[]): Promise<TxnResult> {
    if (compares.some((c) => c.target === "value" && this.transformers.forKey(c.key))) throw new Error("value compares on encrypted resources are not supported");
    const res = await this.inner.txn(compares, await Promise.all(success.map((op) => this.encryptOp(op))), await Promise.all(failure.map((op) => this.encryptOp(op))));
    const results = await Promise.all(res.results.map(async (r) => ({ ...r, kvs: await Promise.all(r.kvs.map((kv) => this.decryptKv(kv))) })));
    return { ...res, results };
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
    const changes = await this.inner.history(after, upTo);
    return Promise.all(changes.map((c) => decryptChange(this.transformers, c, this.report)));
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

async function decryptValue(transformers: TransformerLookup, key: string, value: Uint8Array | undefined, revision: number, report: UnreadableReport): Promise<Uint8Array | undefined> {
  const t = value && value.length > 0 ? transformers.forKey(key) : undefined;
  if (!t || !value) return value;
  try {
    return (await t.fromStorage(value, key)).value;
  } catch (err) {
    report({ key, revision, error: (err as Error).message });
    return value;
  }
}

/** A revision with its values decrypted (a value no provider reads stays as stored, and is reported). */
export async function decryptChange(transformers: TransformerLookup, change: RevisionChange, report: UnreadableReport): Promise<RevisionChange> {
  const out: KeyChange[] = [];
  for (const kc of change.changes) {
    out.push({ ...kc, value: await decryptValue(transformers, kc.key, kc.value, kc.modRevision, report), prevValue: await decryptValue(transformers, kc.key, kc.prevValue, kc.modRevision, report) });
  }
  return { revision: change.revision, changes: out };
}

/** The revision feed with values decrypted, in order (each revision waits for the one before). */
export function decryptingFeed(inner: RevisionFeed, transformers: TransformerLookup, report: UnreadableReport): RevisionFeed {
  return {
    subscribe(after, onChange, onError) {
      let active = true;
      let chain: Promise<void> = Promise.resolve();
      const unsubscribe = inner.subscribe(
        after,
        (change) => {
          chain = chain
            .then(() => decryptChange(transformers, change, report))
            .then((plain) => {
              if (active) onChange(plain);
            })
            .catch((err: unknown) => {
              if (active) onError(err as Error);
            });
        },
        (err) => {
          chain = chain.then(() => {
            if (active) onError(err);
          });
        },
      );
      return () => {
        active = false;
        unsubscribe();
      };
    },
  };
}
