import { EMPTY_BYTES, compareBytes } from "./keys.ts";
import type { Compare, KeyValue, RangeRequest } from "./types.ts";

/**
 * Pure pieces of Range and Txn evaluation, with etcd's semantics
 * (etcdserver apply: Range post-processing, compareKV).
 */

function sign(n: number): number {
  return n > 0 ? 1 : n < 0 ? -1 : 0;
}

/** Compares one key's state with a Compare's target; kv null stands for an absent key (all zero). */
export function compareKv(c: Compare, kv: KeyValue | null): boolean {
  let result: number;
  switch (c.target) {
    case "VALUE":
      result = sign(compareBytes(kv?.value ?? EMPTY_BYTES, c.value));
      break;
    case "VERSION":
      result = sign((kv?.version ?? 0) - c.version);
      break;
    case "CREATE":
      result = sign((kv?.createRevision ?? 0) - c.createRevision);
      break;
    case "MOD":
      result = sign((kv?.modRevision ?? 0) - c.modRevision);
      break;
    case "LEASE": {
      const lease = kv?.lease ?? 0n;
      result = lease > c.lease ? 1 : lease < c.lease ? -1 : 0;
      break;
    }
  }
  switch (c.result) {
    case "EQUAL":
      return result === 0;
    case "NOT_EQUAL":
      return result !== 0;
    case "GREATER":
      return result > 0;
    case "LESS":
      return result < 0;
  }
}

/**
 * A Compare holds when every key of its range satisfies it. With no key in the
 * range, a VALUE compare fails (a missing value cannot be compared) and the others
 * compare against zero.
 */
export function compareHolds(c: Compare, kvs: readonly KeyValue[]): boolean {
  if (kvs.length === 0) return c.target === "VALUE" ? false : compareKv(c, null);
  return kvs.every((kv) => compareKv(c, kv));
}

/** Whether the request needs every key of the range before the limit is applied. */
export function needsFullRange(req: RangeRequest): boolean {
  return (
    (req.sortOrder ?? "NONE") !== "NONE" ||
    (req.minModRevision ?? 0) !== 0 ||
    (req.maxModRevision ?? 0) !== 0 ||
    (req.minCreateRevision ?? 0) !== 0 ||
    (req.maxCreateRevision ?? 0) !== 0
  );
}

/**
 * Applies mod/create revision filters, sorting, the limit and keysOnly to the kvs of
 * a range (given in key order). Returns the kvs to send and whether the limit cut.
 */
export function finishRange(req: RangeRequest, inKeyOrder: KeyValue[]): { kvs: KeyValue[]; more: boolean } {
  let kvs = inKeyOrder;
  const { minModRevision = 0, maxModRevision = 0, minCreateRevision = 0, maxCreateRevision = 0 } = req;
  if (maxModRevision !== 0) kvs = kvs.filter((kv) => kv.modRevision <= maxModRevision);
  if (minModRevision !== 0) kvs = kvs.filter((kv) => kv.modRevision >= minModRevision);
  if (maxCreateRevision !== 0) kvs = kvs.filter((kv) => kv.createRevision <= maxCreateRevision);
  if (minCreateRevision !== 0) kvs = kvs.filter((kv) => kv.createRevision >= minCreateRevision);

  const target = req.sortTarget ?? "KEY";
  let order = req.sortOrder ?? "NONE";
  // Results come in ascending key order: sort by a non-key target ascending by
  // default, and skip the no-op ascending key sort (etcd does the same).
  if (target !== "KEY" && order === "NONE") order = "ASCEND";
  else if (target === "KEY" && order === "ASCEND") order = "NONE";
  if (order !== "NONE") {
    const cmp = sortComparator(target);
    // Array.prototype.sort is stable: ties keep ascending key order.
    kvs = [...kvs].sort(order === "DESCEND" ? (a, b) => cmp(b, a) : cmp);
  }

  const limit = req.limit ?? 0;
  let more = false;
  if (limit > 0 && kvs.length > limit) {
    kvs = kvs.slice(0, limit);
    more = true;
  }
  if (req.keysOnly === true) kvs = kvs.map((kv) => ({ ...kv, value: EMPTY_BYTES }));
  return { kvs, more };
}

function sortComparator(target: NonNullable<RangeRequest["sortTarget"]>): (a: KeyValue, b: KeyValue) => number {
  switch (target) {
    case "KEY":
      return (a, b) => compareBytes(a.key, b.key);
    case "VERSION":
      return (a, b) => a.version - b.version;
    case "CREATE":
      return (a, b) => a.createRevision - b.createRevision;
    case "MOD":
      return (a, b) => a.modRevision - b.modRevision;
    case "VALUE":
      return (a, b) => compareBytes(a.value, b.value);
  }
}
