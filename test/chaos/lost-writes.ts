/**
 * No acknowledged write is lost: with the final reads in the history, every
 * acknowledged put (or successful cas) of a key is either the value the final read
 * saw or followed, in the checker's linearization of that key, by another write.
 */
import type { PartitionResult } from "../support/linearizability/checker.ts";
import type { KvInput, KvOutput } from "../support/linearizability/kv-model.ts";
import type { KvOp } from "./recorder.ts";

export function lostWrites(ops: readonly KvOp[], partitions: PartitionResult<KvInput, KvOutput>[]): string[] {
  const byId = new Map(ops.map((o) => [o.id, o]));
  const problems: string[] = [];
  for (const p of partitions) {
    if (p.ok !== true) continue;
    const order = p.order.map((id) => byId.get(id) as KvOp);
    const finalRead = [...order].reverse().find((o) => o.input.kind === "get" && o.output?.kind === "get");
    const finalValue = finalRead?.output?.kind === "get" ? finalRead.output.value : null;
    order.forEach((op, i) => {
      const acked = op.output !== undefined && (op.input.kind === "put" || (op.input.kind === "cas" && op.output.kind === "cas" && op.output.ok));
      if (!acked || op.input.kind === "get" || op.input.kind === "delete") return;
      if (op.input.value === finalValue) return;
      const overwritten = order.slice(i + 1).some((w) => w.input.kind === "put" || w.input.kind === "delete" || (w.input.kind === "cas" && !(w.output?.kind === "cas" && !w.output.ok)));
      if (!overwritten) problems.push(`key ${p.partition}: acknowledged write #${op.id} (${op.input.value}) neither read at the end (${finalValue ?? "absent"}) nor overwritten`);
    });
  }
  return problems;
}
