import { join } from "node:path";
import type { Options } from "@grpc/proto-loader";

/**
 * Where the .proto files live and how to load them. Import paths inside the files
 * are relative to PROTO_ROOT (the etcd files keep etcd's own import path).
 */
export const PROTO_ROOT: string = import.meta.dirname;

/** Relative to PROTO_ROOT. */
export const ETCD_KV_PROTO = "etcd/api/mvccpb/kv.proto";
export const ETCD_RPC_PROTO = "etcd/api/etcdserverpb/rpc.proto";
export const STORE_PEER_PROTO = "store/peer.proto";
/** The container runtime interface (runtime.v1) subset the node agent calls. */
export const CRI_RUNTIME_PROTO = "cri/api.proto";

export const ALL_PROTOS: readonly string[] = [ETCD_KV_PROTO, ETCD_RPC_PROTO, STORE_PEER_PROTO, CRI_RUNTIME_PROTO];

/**
 * @grpc/proto-loader options for these files: original field names (etcd mixes
 * snake_case with `ID`, `TTL`, `peerURLs`), int64 as decimal strings (exact; lease
 * ids use all 64 bits), enums as names, defaults filled in, and the set oneof member
 * named in a virtual field.
 */
export const PROTO_LOADER_OPTIONS: Options = {
  includeDirs: [PROTO_ROOT],
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

export function protoPath(relative: string): string {
  return join(PROTO_ROOT, relative);
}
