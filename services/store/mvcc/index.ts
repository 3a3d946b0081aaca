export type * from "./types.ts";
export { StoreError, ErrCompacted, ErrFutureRev } from "./errors.ts";
export { MvccStore, MAX_LEASE_TTL } from "./store.ts";
export { encodeSnapshotSliced, type SnapshotState } from "./snapshot.ts";
export { LeaseDeadlines } from "./lease-expiry.ts";
export { encodeRequest, decodeRequest } from "./request-codec.ts";
export { DecodeError } from "./binary.ts";
export { prefixEnd, compareBytes } from "./keys.ts";
