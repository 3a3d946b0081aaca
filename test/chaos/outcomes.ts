/**
 * After-run figures of the cluster chaos suite that need the store's history:
 * - the stored form of the workload's ConfigMaps (key `.../configmaps/<ns>/<name>`,
 *   JSON value holding `"v":"<value>"`), for stream-check.ts's acknowledged-writes check;
 * - which writes without a definite answer (5xx, timeout, lost connection) did
 *   commit: a put or cas whose unique value was stored under its key, or a delete of
 *   the version it targeted that no acknowledged delete accounts for;
 * - the longest stretch without a successful operation.
 */
import type { RevisionChange } from "../../services/apiserver/storage/kv.ts";
import type { FailureClass, UncertainWrite } from "./api-recorder.ts";
import type { KvOp } from "./recorder.ts";
import type { StoredForm } from "./stream-check.ts";
import { configMapName } from "./watch-check.ts";

export function configMapForm(namespace: string): StoredForm {
  return {
    isKey: (storeKey, name) => configMapName(storeKey, namespace) === name,
    holds: (stored, value) => Buffer.from(stored).includes(JSON.stringify({ v: value }).slice(1, -1)),
  };
}

export interface SettledWrite extends UncertainWrite {
  committed: boolean;
}

/**
 * `deleteTargets`: for every delete sent, the value of the version it targeted;
 * `deletedIds`: ids of the deletes answered 200 (they account for their version's deletion).
 */
export function settleUncertainWrites(
  uncertain: readonly UncertainWrite[],
  history: readonly RevisionChange[],
  namespace: string,
  deleteTargets: ReadonlyMap<number, string>,
  deletedIds: ReadonlySet<number>,
): SettledWrite[] {
  const form = configMapForm(namespace);
  const changes = history.flatMap((h) => h.changes);
  const deletedBy = (name: string, value: string) => changes.some((c) => c.type === "DELETE" && form.isKey(c.key, name) && c.prevValue !== undefined && form.holds(c.prevValue, value));
  const ackedDeleteOf = new Set([...deleteTargets].filter(([id]) => deletedIds.has(id)).map(([, value]) => value));
  return uncertain.map((u) => {
    const name = u.op.input.key;
    const committed =
      u.op.input.kind === "delete"
        ? deletedBy(name, u.value) && !ackedDeleteOf.has(u.value)
        : changes.some((c) => c.type === "PUT" && form.isKey(c.key, name) && c.value !== undefined && form.holds(c.value, u.value));
    return { ...u, committed };
  });
}

export function committedCounts(settled: readonly SettledWrite[]): Record<FailureClass, number> {
  const counts: Record<FailureClass, number> = { "5xx": 0, timeout: 0, connection: 0, unexpected: 0 };
  for (const s of settled) if (s.committed) counts[s.failure]++;
  return counts;
}

export interface Unavailability {
  ms: number;
  /** Offset (ms since `from`) where the longest stretch began. */
  at: number;
}

/** The longest stretch in [from, to] without an operation returning a definite answer. */
export function longestUnavailability(ops: readonly KvOp[], from: number, to: number): Unavailability {
  const returns = ops
    .filter((o) => o.returned !== undefined && o.returned >= from && o.returned <= to)
    .map((o) => o.returned as number)
    .sort((a, b) => a - b);
  let best: Unavailability = { ms: 0, at: 0 };
  let last = from;
  for (const t of [...returns, to]) {
    if (t - last > best.ms) best = { ms: t - last, at: last - from };
    last = t;
  }
  return best;
}
