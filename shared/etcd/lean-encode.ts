/**
 * Request encoding of the hot KV calls (Range, Txn) straight from the request object
 * (txn-writer.ts: sizes worked out, fields written into one buffer), without
 * proto-loader's `fromObject` (a message instance of every nested message) and
 * protobufjs's writer. The request keeps the typed form of wire.ts (a compare's enums
 * as names, as the in-process store reads them).
 *
 * Contract: `leanEncode` gives the bytes proto-loader's serializer gives, or undefined
 * when the request holds something only `fromObject` converts (a bytes field as a
 * base64 string, a sort order or an enum given by an unknown name, a nested txn); the
 * caller then uses proto-loader's serializer.
 */
import type { UnaryName, UnaryRequest } from "./methods.ts";
import { encodeRange, encodeTxn } from "./txn-writer.ts";
import type { PbRangeRequest, PbTxnRequest } from "./wire.ts";

/** The encoded request of `method`, or undefined when proto-loader's serializer must encode it. */
export function leanEncode<M extends UnaryName>(method: M, req: UnaryRequest<M>): Uint8Array | undefined {
  if (method === "Txn") return encodeTxn(req as PbTxnRequest);
  if (method === "Range") return encodeRange(req as PbRangeRequest);
  return undefined;
}
