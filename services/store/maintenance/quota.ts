/**
 * The space quota (etcd's --quota-backend-bytes), checked before a write is proposed as
 * etcd's quota KV and lease servers do: a put, a txn that puts, or a lease grant whose
 * cost would take the state's allocated size (dbSize) to the quota or beyond raises the
 * NOSPACE alarm for this member through the log and is refused with "etcdserver: mvcc:
 * database space exceeded". Deletes, read-only and delete-only txns, compaction and
 * lease revocations pass. Once NOSPACE is raised every member refuses such writes when
 * applying them (MvccStore), until `etcdctl alarm disarm`.
 */
import type { StoreRequest, TxnRequest } from "../mvcc/types.ts";

/** etcd's per-put overhead in the quota cost, and a lease grant's cost. */
const KV_OVERHEAD = 256;
const LEASE_OVERHEAD = 64;

/** The bytes one branch of a txn may add. */
function branchCost(ops: TxnRequest["success"]): number {
  let n = 0;
  for (const op of ops ?? []) {
    if (op.type === "put") n += KV_OVERHEAD + op.request.key.length + (op.request.value?.length ?? 0);
    else if (op.type === "txn") n += txnCost(op.request);
  }
  return n;
}

/** Module functions, no named closure per call (see responseOf in mvcc/store.ts). */
function txnCost(t: TxnRequest): number {
  return Math.max(branchCost(t.success), branchCost(t.failure));
}

/** The bytes a write may add, as etcd's quota counts them; 0 for writes the quota lets through. */
export function quotaCost(request: StoreRequest): number {
  switch (request.type) {
    case "put":
      return KV_OVERHEAD + request.request.key.length + (request.request.value?.length ?? 0);
    case "txn":
      return txnCost(request.request);
    case "leaseGrant":
      return LEASE_OVERHEAD;
    default:
      return 0;
  }
}

/** Whether a write of this cost fits: etcd's `size + cost < quota`. */
export function fitsQuota(allocatedBytes: number, cost: number, quotaBytes: number): boolean {
  return cost === 0 || allocatedBytes + cost < quotaBytes;
}
