/**
 * Unambiguous write answers. A write txn whose call failed with the store unavailable
 * (connection dropped mid-call, deadline exceeded, leader lost) may or may not have
 * committed. Before answering, the outcome is resolved:
 *
 *   1. fence: a lease grant goes through the store's log after the lost request; once
 *      it is applied, that request is either applied too or can never be (a leader's
 *      log is ordered, and a new leader's log holds every entry that may still commit);
 *   2. read the key (linearizable) and judge from what it holds (`judgeFromCurrent`);
 *   3. where the key changed again since, judge from its MVCC history (`judgeFromHistory`).
 *
 * Committed: the write answers as if the call had succeeded, at the revision it
 * committed at. Not committed: the txn is sent again (it can no longer apply twice),
 * at most `MAX_SENDS` times in all. Unknown (history compacted, or the store still
 * unreachable within twice the time the failed call took and within the store client's
 * retry budget, at least 2 s): a store-unavailable error,
 * answered as a retriable 504 Timeout. A failure that proves the txn was never
 * proposed (connection refused, no leader) needs no resolution: it is answered as
 * the platform answers an unreachable store (500 ServerTimeout, Retry-After 2).
 *
 * A write's identity is its exact bytes: every object carries its uid, and an update
 * changes the stored bytes (no-op updates never reach the store), so equal bytes after
 * the compared revision are this write. A delete is judged by the first change of the
 * key after the revision it compared: a DELETE there removed the object it was asked to
 * remove (answered as done, whichever request's txn it was).
 */
import { provesNotProposed } from "./etcd-kv-pool.ts";
import { CompactedError, StoreUnavailableError, type Compare, type KeyChange, type KeyValue, type KvStore, type TxnOp, type TxnResult } from "./kv.ts";

/** What a write txn meant to do to its key: the compared revision (0 for a create) and the value put (none for a delete). */
export type WriteIntent =
  | { kind: "create"; key: string; value: Uint8Array }
  | { kind: "update"; key: string; value: Uint8Array; baseRevision: number }
  | { kind: "delete"; key: string; baseRevision: number };

export type Verdict =
  | { outcome: "committed"; revision: number }
  | { outcome: "not-committed" }
  | { outcome: "unknown" }
  /** The key changed again since: the changes of the key in (after, upTo] decide. */
  | { outcome: "history"; after: number };

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

type CurrentKey = Pick<KeyValue, "value" | "createRevision" | "modRevision"> | undefined;

/** The verdict from the key's state after the fence. */
export function judgeFromCurrent(intent: WriteIntent, current: CurrentKey): Verdict {
  if (intent.kind === "create") {
    if (!current) return { outcome: "not-committed" };
    if (bytesEqual(current.value, intent.value)) return { outcome: "committed", revision: current.createRevision };
    // Created by this write and changed since, or created by another: the creating revision tells.
    return { outcome: "history", after: current.createRevision - 1 };
  }
  if (current && current.modRevision === intent.baseRevision) return { outcome: "not-committed" };
  if (intent.kind === "update" && current && current.modRevision > intent.baseRevision && bytesEqual(current.value, intent.value)) {
    return { outcome: "committed", revision: current.modRevision };
  }
  return { outcome: "history", after: intent.baseRevision };
}

/** The verdict from the key's changes after `Verdict.after`, in revision order (other keys' changes are ignored). */
export function judgeFromHistory(intent: WriteIntent, changes: readonly KeyChange[]): Verdict {
  const own = changes.filter((c) => c.key === intent.key);
  if (intent.kind === "create") {
    const created = own.find((c) => c.type === "PUT" && c.version === 1 && c.value !== undefined && bytesEqual(c.value, intent.value));
    return created ? { outcome: "committed", revision: created.modRevision } : { outcome: "not-committed" };
  }
  // The txn compared the key's revision: had it applied, it would be the key's first change after that revision.
  const first = own.find((c) => c.modRevision > intent.baseRevision);
  if (!first) return { outcome: "not-committed" };
  if (intent.kind === "delete") return first.type === "DELETE" ? { outcome: "committed", revision: first.modRevision } : { outcome: "not-committed" };
  return first.type === "PUT" && first.value !== undefined && bytesEqual(first.value, intent.value) ? { outcome: "committed", revision: first.modRevision } : { outcome: "not-committed" };
}

/** TTL of the fence's lease: the store's minimum; it holds no key and simply expires. */
const FENCE_LEASE_TTL_S = 5;
export const MAX_SENDS = 3;
/** The least time a resolution may wait for the store (a leader election takes about one election timeout). */
export const MIN_RESOLVE_BUDGET_MS = 2000;

/** The time a resolution may wait for the store after a send that failed after `failedAfterMs`. */
export function resolveBudgetMs(kv: Pick<KvStore, "unavailableBudgetMs">, failedAfterMs: number): number {
  return Math.max(2 * failedAfterMs, kv.unavailableBudgetMs ?? 0, MIN_RESOLVE_BUDGET_MS);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Calls again while the store is unavailable (the fence is a write the store client does not retry), until the deadline. */
async function whileUnavailable<T>(deadline: number, call: () => Promise<T>): Promise<T> {
  for (let wait = 100; ; wait = Math.min(wait * 2, 1000)) {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof StoreUnavailableError) || Date.now() + wait >= deadline) throw err;
      await sleep(wait);
    }
  }
}

/**
 * Resolves whether the write of `intent`, whose txn call failed ambiguously, committed,
 * waiting at most `budgetMs` for the store; a failure to reach it leaves the outcome
 * unknown and is thrown.
 */
export async function resolveWriteOutcome(kv: KvStore, intent: WriteIntent, budgetMs: number): Promise<Verdict> {
  const deadline = Date.now() + budgetMs;
  await whileUnavailable(deadline, () => kv.leaseGrant(FENCE_LEASE_TTL_S));
  const read = await whileUnavailable(deadline, () => kv.range(intent.key));
  const verdict = judgeFromCurrent(intent, read.kvs[0]);
  if (verdict.outcome !== "history") return verdict;
  try {
    const changes = await whileUnavailable(deadline, () => kv.history(verdict.after, read.revision));
    return judgeFromHistory(intent, changes.flatMap((r) => r.changes));
  } catch (err) {
    if (err instanceof CompactedError) return { outcome: "unknown" };
    throw err;
  }
}

/**
 * `kv.txn` for a write whose success branch is `intent`: an ambiguous failure is
 * resolved (see above) into the txn's result (committed), a resend (not committed),
 * or a StoreUnavailableError (unknown, or not committed after MAX_SENDS sends).
 */
export async function writeTxn(kv: KvStore, intent: WriteIntent, compares: Compare[], success: TxnOp[], failure: TxnOp[]): Promise<TxnResult> {
  let last: StoreUnavailableError | undefined;
  for (let send = 0; send < MAX_SENDS; send++) {
    const sentAt = Date.now();
    try {
      return await kv.txn(compares, success, failure);
    } catch (err) {
      // A failure that proves the txn was never proposed (no connection, no leader) is definite as it is.
      if (!(err instanceof StoreUnavailableError) || (!err.timedOut && provesNotProposed(err.details))) throw err;
      last = err;
    }
    // The resolution may wait twice as long as the store client spent failing, and at least as long as the client
    // waits for an unavailable store (a leader election under load can outlast a fixed short wait), at least MIN_RESOLVE_BUDGET_MS.
    const verdict = await resolveWriteOutcome(kv, intent, resolveBudgetMs(kv, Date.now() - sentAt));
    if (verdict.outcome === "committed") return { succeeded: true, revision: verdict.revision, results: success.map(() => ({ kvs: [] })) };
    if (verdict.outcome !== "not-committed") throw new StoreUnavailableError(`the outcome of the write of ${intent.key} is unknown: ${last.details}`, last.endpoint, true);
  }
  throw last ?? new StoreUnavailableError("write not sent", "");
}
