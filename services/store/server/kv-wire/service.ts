// The etcdserverpb.KV service definition the store's gRPC server registers: the
// generic one (shared/etcd/proto.ts), with the hand-written codecs of this folder
// for the requests it reads and the responses it writes of Range, Put,
// DeleteRange and Txn. Compact keeps the generic codec. Clients are untouched:
// the bytes on the wire are the same.

import type { MethodDefinition, ServiceDefinition } from "@grpc/grpc-js";
import { serviceDefinition } from "../../../../shared/etcd/proto.ts";
import { decodeDeleteRangeRequest, decodePutRequest, decodeRangeRequest, decodeTxnRequest } from "./kv-requests.ts";
import { encodeDeleteRangeResponse, encodePutResponse, encodeRangeResponse, encodeTxnResponse } from "./kv-responses.ts";

type Codec = { decode: (buf: Buffer) => unknown; encode: (res: never) => Buffer };

const CODECS: Record<string, Codec> = {
  Range: { decode: decodeRangeRequest, encode: encodeRangeResponse },
  Put: { decode: decodePutRequest, encode: encodePutResponse },
  DeleteRange: { decode: decodeDeleteRangeRequest, encode: encodeDeleteRangeResponse },
  Txn: { decode: decodeTxnRequest, encode: encodeTxnResponse },
};

let cached: ServiceDefinition | undefined;

export function kvServiceDefinition(): ServiceDefinition {
  if (cached !== undefined) return cached;
  const generic = serviceDefinition("KV");
  const out: Record<string, MethodDefinition<unknown, unknown>> = { ...generic };
  for (const [method, codec] of Object.entries(CODECS)) {
    const def = generic[method] as MethodDefinition<unknown, unknown>;
    out[method] = { ...def, requestDeserialize: codec.decode, responseSerialize: codec.encode as (res: unknown) => Buffer };
  }
  cached = out;
  return out;
}
