/**
 * etcd's client-facing errors (etcdserver/api/v3rpc/rpctypes): the same gRPC status
 * codes and the same messages, so that etcdctl and client libraries recognise them
 * (clientv3 matches on the message text).
 *
 * Every handler turns whatever it throws into a ServiceError through toServiceError;
 * an unexpected exception becomes INTERNAL with its message and never escapes.
 */
import { Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { StoreError, type StoreErrorCode } from "../mvcc/index.ts";

export class GrpcError extends Error {
  constructor(
    readonly code: status,
    message: string,
  ) {
    super(message);
    this.name = "GrpcError";
  }
}

const E = (code: status, message: string) => (): GrpcError => new GrpcError(code, message);

/** The named errors of rpctypes that this server raises. */
export const Errors = {
  emptyKey: E(status.INVALID_ARGUMENT, "etcdserver: key is not provided"),
  keyNotFound: E(status.INVALID_ARGUMENT, "etcdserver: key not found"),
  valueProvided: E(status.INVALID_ARGUMENT, "etcdserver: value is provided"),
  leaseProvided: E(status.INVALID_ARGUMENT, "etcdserver: lease is provided"),
  tooManyOps: E(status.INVALID_ARGUMENT, "etcdserver: too many operations in txn request"),
  duplicateKey: E(status.INVALID_ARGUMENT, "etcdserver: duplicate key given in txn request"),
  requestTooLarge: E(status.INVALID_ARGUMENT, "etcdserver: request is too large"),
  compacted: E(status.OUT_OF_RANGE, "etcdserver: mvcc: required revision has been compacted"),
  futureRev: E(status.OUT_OF_RANGE, "etcdserver: mvcc: required revision is a future revision"),
  leaseNotFound: E(status.NOT_FOUND, "etcdserver: requested lease not found"),
  leaseExist: E(status.FAILED_PRECONDITION, "etcdserver: lease already exists"),
  leaseTTLTooLarge: E(status.OUT_OF_RANGE, "etcdserver: too large lease TTL"),
  memberNotFound: E(status.NOT_FOUND, "etcdserver: member not found"),
  noLeader: E(status.UNAVAILABLE, "etcdserver: no leader"),
  notLeader: E(status.FAILED_PRECONDITION, "etcdserver: not leader"),
  leaderChanged: E(status.UNAVAILABLE, "etcdserver: leader changed"),
  stopped: E(status.UNAVAILABLE, "etcdserver: server stopped"),
  timeout: E(status.UNAVAILABLE, "etcdserver: request timed out"),
};

export function invalidArgument(detail: string): GrpcError {
  return new GrpcError(status.INVALID_ARGUMENT, `etcdserver: ${detail}`);
}

export function unimplemented(what: string): GrpcError {
  return new GrpcError(status.UNIMPLEMENTED, `etcdserver: ${what} is not supported by this store`);
}

const STORE_ERRORS: Record<StoreErrorCode, () => GrpcError> = {
  compacted: Errors.compacted,
  "future-revision": Errors.futureRev,
  "empty-key": Errors.emptyKey,
  "key-not-found": Errors.keyNotFound,
  "value-provided": Errors.valueProvided,
  "lease-provided": Errors.leaseProvided,
  "lease-not-found": Errors.leaseNotFound,
  "lease-exists": Errors.leaseExist,
  "lease-ttl-too-large": Errors.leaseTTLTooLarge,
  "no-space": () => new GrpcError(status.RESOURCE_EXHAUSTED, "etcdserver: mvcc: database space exceeded"),
  corrupt: () => new GrpcError(status.DATA_LOSS, "etcdserver: corrupt cluster"),
  "invalid-request": () => new GrpcError(status.INVALID_ARGUMENT, "etcdserver: invalid request"),
};

/** A deterministic store error (thrown by MvccStore or returned in a StoreResult) as etcd reports it. */
export function fromStoreError(code: StoreErrorCode, message: string): GrpcError {
  if (code === "invalid-request") return new GrpcError(status.INVALID_ARGUMENT, `etcdserver: ${message}`);
  return STORE_ERRORS[code]();
}

/**
 * Messages of errors a replicated backend may throw (by etcd's wording) and the code
 * etcd gives them: UNAVAILABLE ones are what clients fail over on.
 */
const BACKEND_PATTERNS: Array<[RegExp, () => GrpcError]> = [
  [/no leader/i, Errors.noLeader],
  [/not leader|not the leader/i, Errors.noLeader],
  [/leader changed/i, Errors.leaderChanged],
  [/timed? ?out/i, Errors.timeout],
  [/stopped|shutting down|closed/i, Errors.stopped],
];

/** Codes of the Raft node's errors (node/errors.ts), matched structurally. */
const NODE_ERRORS: Record<string, () => GrpcError> = {
  "no-leader": Errors.noLeader,
  timeout: Errors.timeout,
  stopped: Errors.stopped,
  dropped: Errors.leaderChanged,
  "not-leader": Errors.leaderChanged,
};

export function toGrpcError(err: unknown): GrpcError {
  if (err instanceof GrpcError) return err;
  if (err instanceof StoreError) return fromStoreError(err.code, err.message);
  if (err instanceof Error && err.name === "NodeError") {
    const code = (err as Error & { code?: unknown }).code;
    if (typeof code === "string" && NODE_ERRORS[code] !== undefined) return NODE_ERRORS[code]();
    if (code === "invalid-member") return new GrpcError(status.FAILED_PRECONDITION, `etcdserver: ${err.message.replace(/^store: /, "")}`);
  }
  const message = err instanceof Error ? err.message : String(err);
  const known = Object.values(Errors)
    .map((f) => f())
    .find((e) => e.message === message);
  if (known !== undefined) return known;
  for (const [pattern, make] of BACKEND_PATTERNS) if (pattern.test(message)) return make();
  return new GrpcError(status.INTERNAL, message.startsWith("etcdserver: ") ? message : `etcdserver: ${message}`);
}

export function toServiceError(err: unknown): Partial<ServiceError> {
  const e = toGrpcError(err);
  return { code: e.code, details: e.message, message: e.message, metadata: new Metadata() };
}
