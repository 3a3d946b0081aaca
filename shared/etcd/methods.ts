/**
 * The etcd v3 methods this code base calls or serves, each with its service and its
 * request and response messages: the one table behind the typed client (client.ts)
 * and the store's in-process form, so no call site names a method untyped.
 */
import type {
  PbAlarmRequest,
  PbAlarmResponse,
  PbCompactionRequest,
  PbCompactionResponse,
  PbDeleteRangeRequest,
  PbDeleteRangeResponse,
  PbHashKVResponse,
  PbHashResponse,
  PbLeaseGrantRequest,
  PbLeaseGrantResponse,
  PbLeaseKeepAliveRequest,
  PbLeaseKeepAliveResponse,
  PbLeaseLeasesResponse,
  PbLeaseRevokeRequest,
  PbLeaseTimeToLiveRequest,
  PbLeaseTimeToLiveResponse,
  PbHeader,
  Int64,
  PbMemberAddRequest,
  PbMemberAddResponse,
  PbMemberIdRequest,
  PbMemberListRequest,
  PbMemberListResponse,
  PbMembersResponse,
  PbPutRequest,
  PbPutResponse,
  PbRangeRequest,
  PbRangeResponse,
  PbStatusResponse,
  PbTxnRequest,
  PbTxnResponse,
  PbWatchRequest,
  PbWatchResponse,
} from "./wire.ts";
import type { EtcdServiceName } from "./proto.ts";

interface Method<S extends EtcdServiceName, Req, Res> {
  service: S;
  request: Req;
  response: Res;
}

type Empty = Record<string, never>;

/** Unary methods by name (names are unique across etcd's services). */
export interface EtcdUnaryMethods {
  Range: Method<"KV", PbRangeRequest, PbRangeResponse>;
  Put: Method<"KV", PbPutRequest, PbPutResponse>;
  DeleteRange: Method<"KV", PbDeleteRangeRequest, PbDeleteRangeResponse>;
  Txn: Method<"KV", PbTxnRequest, PbTxnResponse>;
  Compact: Method<"KV", PbCompactionRequest, PbCompactionResponse>;
  LeaseGrant: Method<"Lease", PbLeaseGrantRequest, PbLeaseGrantResponse>;
  LeaseRevoke: Method<"Lease", PbLeaseRevokeRequest, { header?: PbHeader }>;
  LeaseTimeToLive: Method<"Lease", PbLeaseTimeToLiveRequest, PbLeaseTimeToLiveResponse>;
  LeaseLeases: Method<"Lease", Empty, PbLeaseLeasesResponse>;
  MemberList: Method<"Cluster", PbMemberListRequest, PbMemberListResponse>;
  MemberAdd: Method<"Cluster", PbMemberAddRequest, PbMemberAddResponse>;
  MemberRemove: Method<"Cluster", PbMemberIdRequest, PbMembersResponse>;
  MemberPromote: Method<"Cluster", PbMemberIdRequest, PbMembersResponse>;
  Status: Method<"Maintenance", Empty, PbStatusResponse>;
  Alarm: Method<"Maintenance", PbAlarmRequest, PbAlarmResponse>;
  Hash: Method<"Maintenance", Empty, PbHashResponse>;
  HashKV: Method<"Maintenance", { revision?: Int64 }, PbHashKVResponse>;
  Defragment: Method<"Maintenance", Empty, { header?: PbHeader }>;
  MoveLeader: Method<"Maintenance", { targetID: Int64 }, { header?: PbHeader }>;
}

/** Bidirectional streaming methods by name. */
export interface EtcdStreamMethods {
  Watch: Method<"Watch", PbWatchRequest, PbWatchResponse>;
  LeaseKeepAlive: Method<"Lease", PbLeaseKeepAliveRequest, PbLeaseKeepAliveResponse>;
}

export type UnaryName = keyof EtcdUnaryMethods;
export type StreamName = keyof EtcdStreamMethods;
export type UnaryRequest<M extends UnaryName> = EtcdUnaryMethods[M]["request"];
export type UnaryResponse<M extends UnaryName> = EtcdUnaryMethods[M]["response"];
export type StreamRequest<M extends StreamName> = EtcdStreamMethods[M]["request"];
export type StreamResponse<M extends StreamName> = EtcdStreamMethods[M]["response"];

export const METHOD_SERVICES: { [M in UnaryName | StreamName]: EtcdServiceName } = {
  Range: "KV",
  Put: "KV",
  DeleteRange: "KV",
  Txn: "KV",
  Compact: "KV",
  LeaseGrant: "Lease",
  LeaseRevoke: "Lease",
  LeaseTimeToLive: "Lease",
  LeaseLeases: "Lease",
  MemberList: "Cluster",
  MemberAdd: "Cluster",
  MemberRemove: "Cluster",
  MemberPromote: "Cluster",
  Status: "Maintenance",
  Alarm: "Maintenance",
  Hash: "Maintenance",
  HashKV: "Maintenance",
  Defragment: "Maintenance",
  MoveLeader: "Maintenance",
  Watch: "Watch",
  LeaseKeepAlive: "Lease",
};

/**
 * A bidirectional stream as both forms expose it: write requests, read responses
 * through "data", then one "error" (an EtcdCallError) or "end"; cancel() ends it.
 */
export interface EtcdStream<Req, Res> {
  write(req: Req): void;
  on(event: "data", listener: (res: Res) => void): this;
  on(event: "error", listener: (err: Error) => void): this;
  on(event: "end", listener: () => void): this;
  cancel(): void;
}

/** Per-call options. */
export interface EtcdCallOptions {
  /** Absolute deadline in ms since the epoch. */
  deadline?: number;
}

/**
 * The etcd v3 API of one member, typed: implemented by the gRPC client (client.ts)
 * and by the store's request handlers in process (services/store/embedded.ts).
 * Failures reject with EtcdCallError (errors.ts).
 */
export interface EtcdApi {
  unary<M extends UnaryName>(method: M, req: UnaryRequest<M>, opts?: EtcdCallOptions): Promise<UnaryResponse<M>>;
  stream<M extends StreamName>(method: M): EtcdStream<StreamRequest<M>, StreamResponse<M>>;
  close(): void;
}
