/**
 * The etcd v3 messages (etcdserverpb, mvccpb) shared by the store's client API, its
 * in-process form and every client: as @grpc/proto-loader hands them over
 * (PROTO_LOADER_OPTIONS: original field names, int64 as decimal strings, enums as
 * names — an enum number unknown to the .proto stays a number —, defaults filled in
 * except for oneof members, the set oneof member named in a virtual field).
 *
 * Requests are typed with every field optional: proto3 lets any field be absent,
 * and an in-process call passes what the caller wrote, without filled defaults. A
 * request with a oneof names its member in the virtual field (`request`,
 * `request_union`), which the server reads. 64-bit fields may be numbers or strings
 * when sent; protobufjs encodes both. Only the fields in use are declared.
 */

/** An int64/uint64 as received (decimal string) or as we send it. */
export type Int64 = string | number;
export type WireEnum = string | number;

export interface PbHeader {
  cluster_id: string;
  member_id: string;
  revision: Int64;
  raft_term: Int64;
}

export interface PbKeyValue {
  key: Uint8Array;
  create_revision: Int64;
  mod_revision: Int64;
  version: Int64;
  value: Uint8Array;
  lease: Int64;
}

export interface PbEvent {
  type: "PUT" | "DELETE";
  kv: PbKeyValue;
  prev_kv?: PbKeyValue;
}

export interface PbRangeRequest {
  key?: Uint8Array;
  range_end?: Uint8Array;
  limit?: Int64;
  revision?: Int64;
  sort_order?: WireEnum;
  sort_target?: WireEnum;
  serializable?: boolean;
  keys_only?: boolean;
  count_only?: boolean;
  min_mod_revision?: Int64;
  max_mod_revision?: Int64;
  min_create_revision?: Int64;
  max_create_revision?: Int64;
}

export interface PbRangeResponse {
  header?: PbHeader;
  kvs: PbKeyValue[];
  more: boolean;
  count: Int64;
}

export interface PbPutRequest {
  key?: Uint8Array;
  value?: Uint8Array;
  lease?: Int64;
  prev_kv?: boolean;
  ignore_value?: boolean;
  ignore_lease?: boolean;
}

export interface PbPutResponse {
  header?: PbHeader;
  prev_kv?: PbKeyValue;
}

export interface PbDeleteRangeRequest {
  key?: Uint8Array;
  range_end?: Uint8Array;
  prev_kv?: boolean;
}

export interface PbDeleteRangeResponse {
  header?: PbHeader;
  deleted: Int64;
  prev_kvs: PbKeyValue[];
}

export interface PbRequestOp {
  request?: "request_range" | "request_put" | "request_delete_range" | "request_txn";
  request_range?: PbRangeRequest;
  request_put?: PbPutRequest;
  request_delete_range?: PbDeleteRangeRequest;
  request_txn?: PbTxnRequest;
}

export interface PbResponseOp {
  response_range?: PbRangeResponse;
  response_put?: PbPutResponse;
  response_delete_range?: PbDeleteRangeResponse;
  response_txn?: PbTxnResponse;
}

export interface PbCompare {
  result?: WireEnum;
  target?: WireEnum;
  key?: Uint8Array;
  target_union?: string;
  version?: Int64;
  create_revision?: Int64;
  mod_revision?: Int64;
  value?: Uint8Array;
  lease?: Int64;
  range_end?: Uint8Array;
}

export interface PbTxnRequest {
  compare?: PbCompare[];
  success?: PbRequestOp[];
  failure?: PbRequestOp[];
}

export interface PbTxnResponse {
  header?: PbHeader;
  succeeded: boolean;
  responses: PbResponseOp[];
}

export interface PbCompactionRequest {
  revision?: Int64;
  physical?: boolean;
}

export interface PbWatchCreateRequest {
  key?: Uint8Array;
  range_end?: Uint8Array;
  start_revision?: Int64;
  progress_notify?: boolean;
  filters?: WireEnum[];
  prev_kv?: boolean;
  watch_id?: Int64;
  fragment?: boolean;
}

export interface PbWatchRequest {
  request_union?: "create_request" | "cancel_request" | "progress_request";
  create_request?: PbWatchCreateRequest;
  cancel_request?: { watch_id: Int64 };
  progress_request?: Record<string, never>;
}

export interface PbWatchResponse {
  header: PbHeader;
  watch_id: Int64;
  created?: boolean;
  canceled?: boolean;
  compact_revision?: Int64;
  cancel_reason?: string;
  fragment?: boolean;
  events?: PbEvent[];
}

export interface PbMember {
  ID: string;
  name: string;
  peerURLs: string[];
  clientURLs: string[];
  isLearner: boolean;
}

export interface PbCompactionResponse {
  header?: PbHeader;
}

export interface PbLeaseGrantRequest {
  TTL?: Int64;
  ID?: Int64;
}

export interface PbLeaseGrantResponse {
  header?: PbHeader;
  ID: Int64;
  TTL: Int64;
  error: string;
}

export interface PbLeaseRevokeRequest {
  ID?: Int64;
}

export interface PbLeaseKeepAliveRequest {
  ID?: Int64;
}

export interface PbLeaseKeepAliveResponse {
  header?: PbHeader;
  ID: Int64;
  TTL: Int64;
}

export interface PbLeaseTimeToLiveRequest {
  ID?: Int64;
  keys?: boolean;
}

export interface PbLeaseTimeToLiveResponse {
  header?: PbHeader;
  ID: Int64;
  TTL: Int64;
  grantedTTL: Int64;
  keys: Uint8Array[];
}

export interface PbLeaseLeasesResponse {
  header?: PbHeader;
  leases: Array<{ ID: Int64 }>;
}

export interface PbMemberListRequest {
  linearizable?: boolean;
}

export interface PbMemberListResponse {
  header?: PbHeader;
  members: PbMember[];
}

export interface PbMemberAddRequest {
  peerURLs?: string[];
  isLearner?: boolean;
}

export interface PbMemberAddResponse {
  header?: PbHeader;
  member?: PbMember;
  members: PbMember[];
}

export interface PbMemberIdRequest {
  ID?: Int64;
}

export interface PbMembersResponse {
  header?: PbHeader;
  members: PbMember[];
}

export interface PbStatusResponse {
  header?: PbHeader;
  version: string;
  dbSize: Int64;
  leader: Int64;
  raftIndex: Int64;
  raftTerm: Int64;
  raftAppliedIndex: Int64;
  errors: string[];
  dbSizeInUse: Int64;
  isLearner: boolean;
  storageVersion?: string;
  dbSizeQuota?: Int64;
}

export interface PbAlarmRequest {
  /** GET (0), ACTIVATE (1) or DEACTIVATE (2). */
  action?: WireEnum;
  /** 0: every member. */
  memberID?: Int64;
  alarm?: WireEnum;
}

export interface PbHashKVResponse {
  header?: PbHeader;
  hash: number;
  compact_revision: Int64;
  hash_revision?: Int64;
}

export interface PbHashResponse {
  header?: PbHeader;
  hash: number;
}

export interface PbSnapshotResponse {
  header?: PbHeader;
  remaining_bytes: Int64;
  blob: Uint8Array;
  version?: string;
}

export interface PbAlarmResponse {
  header?: PbHeader;
  alarms: Array<{ memberID: Int64; alarm: WireEnum }>;
}
