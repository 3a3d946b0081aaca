/**
 * Public types of the revisioned key space. They mirror the etcd v3 messages
 * (`mvccpb.KeyValue`, `etcdserverpb.RangeRequest`, ...) field for field, in
 * camelCase, so the gRPC shell maps them one to one.
 *
 * Revisions, versions, limits and TTLs are JS numbers (exact up to 2^53);
 * lease ids are bigint because clients may choose any int64 id.
 * Returned objects are shared with the store's history: treat them as read-only.
 */

export type LeaseId = bigint;

/** `mvccpb.KeyValue`. */
export interface KeyValue {
  readonly key: Uint8Array;
  readonly createRevision: number;
  readonly modRevision: number;
  /** Number of puts in the key's current generation; 0 in a DELETE event. */
  readonly version: number;
  readonly value: Uint8Array;
  /** 0n = no lease. */
  readonly lease: LeaseId;
}

export type EventType = "PUT" | "DELETE";

/** `mvccpb.Event`. A DELETE event's kv has only key and modRevision set. */
export interface KvEvent {
  readonly type: EventType;
  readonly kv: KeyValue;
  readonly prevKv?: KeyValue;
}

/** Everything one write revision changed, in sub-revision order. */
export interface RevisionChange {
  readonly revision: number;
  readonly events: readonly KvEvent[];
}

/** A key range in etcd's convention. */
export interface KeyRange {
  key: Uint8Array;
  /** Absent or empty: the single key. `[0]`: every key >= key. Otherwise [key, rangeEnd). */
  rangeEnd?: Uint8Array;
}

export type SortOrder = "NONE" | "ASCEND" | "DESCEND";
export type SortTarget = "KEY" | "VERSION" | "CREATE" | "MOD" | "VALUE";

export interface RangeRequest extends KeyRange {
  /** 0 or absent: no limit. */
  limit?: number;
  /** <= 0 or absent: the current revision. */
  revision?: number;
  sortOrder?: SortOrder;
  sortTarget?: SortTarget;
  keysOnly?: boolean;
  countOnly?: boolean;
  minModRevision?: number;
  maxModRevision?: number;
  minCreateRevision?: number;
  maxCreateRevision?: number;
}

export interface RangeResponse {
  /** The store's revision when the range was served (etcd's header.revision). */
  revision: number;
  kvs: KeyValue[];
  /** True when the limit cut the result short. */
  more: boolean;
  /** Number of keys in the range at the read revision, unaffected by limit and filters. */
  count: number;
}

export interface PutRequest {
  key: Uint8Array;
  value?: Uint8Array;
  lease?: LeaseId;
  prevKv?: boolean;
  ignoreValue?: boolean;
  ignoreLease?: boolean;
}

export interface PutResponse {
  prevKv?: KeyValue;
}

export interface DeleteRangeRequest extends KeyRange {
  prevKv?: boolean;
}

export interface DeleteRangeResponse {
  deleted: number;
  /** Filled only when the request asked for prevKv. */
  prevKvs: KeyValue[];
}

export type CompareResult = "EQUAL" | "GREATER" | "LESS" | "NOT_EQUAL";

export type CompareTargetValue =
  | { target: "VERSION"; version: number }
  | { target: "CREATE"; createRevision: number }
  | { target: "MOD"; modRevision: number }
  | { target: "VALUE"; value: Uint8Array }
  | { target: "LEASE"; lease: LeaseId };

export type CompareTarget = CompareTargetValue["target"];

/** `etcdserverpb.Compare`: holds when every key in the range satisfies it. */
export type Compare = KeyRange & { result: CompareResult } & CompareTargetValue;

export type RequestOp =
  | { type: "range"; request: RangeRequest }
  | { type: "put"; request: PutRequest }
  | { type: "deleteRange"; request: DeleteRangeRequest }
  | { type: "txn"; request: TxnRequest };

export type ResponseOp =
  | { type: "range"; response: RangeResponse }
  | { type: "put"; response: PutResponse }
  | { type: "deleteRange"; response: DeleteRangeResponse }
  | { type: "txn"; response: TxnResponse };

export interface TxnRequest {
  compare?: Compare[];
  success?: RequestOp[];
  failure?: RequestOp[];
}

export interface TxnResponse {
  succeeded: boolean;
  responses: ResponseOp[];
}

export interface CompactRequest {
  revision: number;
}

export type CompactResponse = Record<string, never>;

export interface LeaseGrantRequest {
  /** Must be non-zero: the leader chooses an id before proposing. */
  id: LeaseId;
  /** Seconds. */
  ttl: number;
}

export interface LeaseGrantResponse {
  id: LeaseId;
  ttl: number;
}

export interface LeaseRevokeRequest {
  id: LeaseId;
}

export type LeaseRevokeResponse = Record<string, never>;

export interface LeaseInfo {
  id: LeaseId;
  /** Granted TTL in seconds. */
  ttl: number;
}

export interface LeaseKeys extends LeaseInfo {
  /** Attached keys in byte order. */
  keys: Uint8Array[];
}

/** Result of a write: the store revision after it and the change it made (null: none). */
export interface Applied<T> {
  revision: number;
  change: RevisionChange | null;
  response: T;
}

/** etcd's alarm types (etcdserverpb.AlarmType). */
export type AlarmType = "NOSPACE" | "CORRUPT";

/** A raised alarm: its type and the member it concerns. */
export interface AlarmMember {
  memberId: bigint;
  alarm: AlarmType;
}

/** Raises or clears one alarm; replicated, so every member refuses the same writes. */
export interface AlarmRequest extends AlarmMember {
  action: "activate" | "deactivate";
}

/** The alarms the request changed (none when it was already in that state). */
export interface AlarmResponse {
  alarms: AlarmMember[];
}

/** A replicated command: the data of one Raft log entry. */
export type StoreRequest =
  | { type: "put"; request: PutRequest }
  | { type: "deleteRange"; request: DeleteRangeRequest }
  | { type: "txn"; request: TxnRequest }
  | { type: "compact"; request: CompactRequest }
  | { type: "leaseGrant"; request: LeaseGrantRequest }
  | { type: "leaseRevoke"; request: LeaseRevokeRequest }
  | { type: "alarm"; request: AlarmRequest };

export type StoreErrorCode =
  | "compacted"
  | "future-revision"
  | "empty-key"
  | "key-not-found"
  | "value-provided"
  | "lease-provided"
  | "lease-not-found"
  | "lease-exists"
  | "lease-ttl-too-large"
  | "no-space"
  | "corrupt"
  | "invalid-request";

export type StoreResult =
  | { type: "put"; response: PutResponse }
  | { type: "deleteRange"; response: DeleteRangeResponse }
  | { type: "txn"; response: TxnResponse }
  | { type: "compact"; response: CompactResponse }
  | { type: "leaseGrant"; response: LeaseGrantResponse }
  | { type: "leaseRevoke"; response: LeaseRevokeResponse }
  | { type: "alarm"; response: AlarmResponse }
  | { type: "error"; error: { code: StoreErrorCode; message: string } };

/** What applying one log entry produced; an error result changed nothing. */
export interface StoreResponse {
  revision: number;
  change: RevisionChange | null;
  result: StoreResult;
}
