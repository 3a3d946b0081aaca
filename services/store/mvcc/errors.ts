import type { StoreErrorCode } from "./types.ts";

/**
 * Deterministic request errors. The messages are etcd's, so clients that match on
 * them (etcdctl, client libraries) behave the same against this store.
 */
export class StoreError extends Error {
  readonly code: StoreErrorCode;

  constructor(code: StoreErrorCode, message: string) {
    super(message);
    this.name = "StoreError";
    this.code = code;
  }
}

export class ErrCompacted extends StoreError {
  /** The store's compact revision when the error was raised. */
  readonly compactRevision: number;

  constructor(compactRevision: number) {
    super("compacted", "mvcc: required revision has been compacted");
    this.name = "ErrCompacted";
    this.compactRevision = compactRevision;
  }
}

export class ErrFutureRev extends StoreError {
  readonly currentRevision: number;

  constructor(currentRevision: number) {
    super("future-revision", "mvcc: required revision is a future revision");
    this.name = "ErrFutureRev";
    this.currentRevision = currentRevision;
  }
}

const MESSAGES: Record<Exclude<StoreErrorCode, "compacted" | "future-revision" | "invalid-request">, string> = {
  "empty-key": "etcdserver: key is not provided",
  "key-not-found": "etcdserver: key not found",
  "value-provided": "etcdserver: value is provided",
  "lease-provided": "etcdserver: lease is provided",
  "lease-not-found": "etcdserver: requested lease not found",
  "lease-exists": "etcdserver: lease already exists",
  "lease-ttl-too-large": "etcdserver: too large lease TTL",
  "no-space": "etcdserver: mvcc: database space exceeded",
  corrupt: "etcdserver: corrupt cluster",
};

export function requestError(code: keyof typeof MESSAGES): StoreError {
  return new StoreError(code, MESSAGES[code]);
}

export function invalidRequest(detail: string): StoreError {
  return new StoreError("invalid-request", `mvcc: invalid request: ${detail}`);
}
