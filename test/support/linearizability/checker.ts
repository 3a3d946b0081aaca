/**
 * Linearizability of a concurrent history against a model (Porcupine's design):
 * the history is split into independent partitions (P-compositionality: for the
 * key-value model, one per key), each searched on its own. A failing partition is
 * reported with its shortest failing prefix: the earliest cut of the history (at a
 * return) that is already not linearizable, and the operation whose return made it
 * so. Cuts are monotone (a prefix of a linearizable history is linearizable), so the
 * cut is found by binary search.
 */
import { cutAt, type Operation } from "./history.ts";
import type { Model } from "./model.ts";
import { searchPartition } from "./search.ts";

export interface CheckOptions {
  /** Search steps allowed per partition before answering "unknown" (default 20 million). */
  maxSteps?: number;
}

export type PartitionResult<I, O> =
  | { partition: string; ok: true; /** Ids in linearization order (pending ones that took effect included). */ order: number[] }
  | {
      partition: string;
      ok: false;
      /** The shortest failing prefix of this partition's history. */
      prefix: Operation<I, O>[];
      /** The operation whose return ends that prefix. */
      culprit: Operation<I, O> | undefined;
    }
  | { partition: string; ok: "unknown"; reason: string };

export interface CheckResult<I, O> {
  ok: boolean | "unknown";
  partitions: PartitionResult<I, O>[];
}

export function partitionHistory<S, I, O>(model: Model<S, I, O>, ops: readonly Operation<I, O>[]): Map<string, Operation<I, O>[]> {
  const parts = new Map<string, Operation<I, O>[]>();
  for (const op of ops) {
    const k = model.partitionKey(op.input);
    let list = parts.get(k);
    if (list === undefined) parts.set(k, (list = []));
    list.push(op);
  }
  return parts;
}

function shortestFailingPrefix<S, I, O>(model: Model<S, I, O>, ops: Operation<I, O>[], maxSteps: number): { prefix: Operation<I, O>[]; culprit: Operation<I, O> | undefined } {
  const returns = ops.filter((o) => o.returned !== undefined).sort((a, b) => (a.returned as number) - (b.returned as number));
  let lo = 0;
  let hi = returns.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const r = searchPartition(model, cutAt(ops, returns[mid].returned as number), maxSteps);
    if (r.ok === false) hi = mid;
    else lo = mid + 1;
  }
  const culprit = returns[lo];
  if (culprit === undefined) return { prefix: ops, culprit: undefined };
  return { prefix: cutAt(ops, culprit.returned as number).sort((a, b) => a.called - b.called), culprit };
}

export function checkLinearizable<S, I, O>(model: Model<S, I, O>, ops: readonly Operation<I, O>[], opts: CheckOptions = {}): CheckResult<I, O> {
  const maxSteps = opts.maxSteps ?? 20_000_000;
  const partitions: PartitionResult<I, O>[] = [];
  for (const [partition, part] of partitionHistory(model, ops)) {
    const r = searchPartition(model, part, maxSteps);
    if (r.ok === true) partitions.push({ partition, ok: true, order: r.order });
    else if (r.ok === "unknown") partitions.push({ partition, ok: "unknown", reason: r.reason });
    else partitions.push({ partition, ok: false, ...shortestFailingPrefix(model, part, maxSteps) });
  }
  const ok = partitions.some((p) => p.ok === false) ? false : partitions.some((p) => p.ok === "unknown") ? "unknown" : true;
  return { ok, partitions };
}

/** A readable counterexample: the last `tail` operations of each failing prefix. */
export function describeResult<S, I, O>(model: Model<S, I, O>, result: CheckResult<I, O>, tail = 30): string {
  const lines: string[] = [];
  for (const p of result.partitions) {
    if (p.ok === "unknown") lines.push(`partition ${p.partition}: unknown (${p.reason})`);
    if (p.ok !== false) continue;
    const shown = p.prefix.slice(-tail);
    lines.push(`partition ${p.partition}: not linearizable; shortest failing prefix has ${p.prefix.length} operations, ending at the return of #${p.culprit?.id ?? "?"}`);
    if (shown.length < p.prefix.length) lines.push(`  ... ${p.prefix.length - shown.length} earlier operations`);
    const t0 = shown[0]?.called ?? 0;
    for (const op of shown) {
      const ret = op.returned === undefined ? "pending" : `${(op.returned - t0).toFixed(1)}`;
      lines.push(`  #${op.id} c${op.client} [${(op.called - t0).toFixed(1)}, ${ret}] ${model.describe(op.input, op.output)}${op === p.culprit ? "   <- culprit" : ""}`);
    }
  }
  return lines.join("\n");
}
