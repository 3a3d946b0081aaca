/**
 * Which unary calls may share the call multiplexer (call-mux-client.ts): those whose
 * answer is known to be small, so that no large answer holds up the others on the one
 * stream. Small: a count, one key (a Range or DeleteRange without range_end, a Put),
 * a Txn made only of such operations, and the lease and compaction calls. Anything
 * that may answer many keys (a range, a list of leases or members) takes its own stream.
 */
import type { UnaryName, UnaryRequest } from "./methods.ts";
import type { PbDeleteRangeRequest, PbRangeRequest, PbRequestOp, PbTxnRequest } from "./wire.ts";

function oneKey(req: { range_end?: Uint8Array }): boolean {
  return req.range_end === undefined || req.range_end.length === 0;
}

function smallRange(req: PbRangeRequest): boolean {
  return req.count_only === true || oneKey(req);
}

function smallDelete(req: PbDeleteRangeRequest): boolean {
  return oneKey(req);
}

function smallOp(op: PbRequestOp): boolean {
  if (op.request_range) return smallRange(op.request_range);
  if (op.request_put) return true;
  if (op.request_delete_range) return smallDelete(op.request_delete_range);
  if (op.request_txn) return smallTxn(op.request_txn);
  return true;
}

function smallTxn(req: PbTxnRequest): boolean {
  return (req.success ?? []).every(smallOp) && (req.failure ?? []).every(smallOp);
}

export function multiplexable<M extends UnaryName>(method: M, req: UnaryRequest<M>): boolean {
  switch (method) {
    case "Range":
      return smallRange(req as PbRangeRequest);
    case "DeleteRange":
      return smallDelete(req as PbDeleteRangeRequest);
    case "Txn":
      return smallTxn(req as PbTxnRequest);
    case "Put":
    case "Compact":
    case "LeaseGrant":
    case "LeaseRevoke":
      return true;
    default:
      return false;
  }
}
