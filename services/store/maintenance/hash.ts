/**
 * Hashes for corruption checks, pure over the MVCC state:
 * - hashKV(state, rev): CRC-32C over "key" and then every retained entry's revision key
 *   and encoded KeyValue up to `rev`, in revision order, as etcd hashes its key bucket.
 *   Members that applied the same log hold the same entries, so their hashes at one
 *   revision are equal whatever else they applied since;
 * - hashAll(state): CRC-32C of the whole state's encoding (keys, history, leases).
 * Errors follow etcd: a revision above the current one is a future revision, one at
 * or below the compact revision is compacted (0 means the current revision).
 */
import { ErrCompacted, ErrFutureRev } from "../mvcc/errors.ts";
import { encodeSnapshot, type SnapshotState } from "../mvcc/snapshot.ts";
import { crc32c } from "../wal/crc32c.ts";
import { keyBucketEntries } from "./backup-image.ts";

export interface KvHash {
  hash: number;
  compactRevision: number;
  /** The revision hashed up to. */
  revision: number;
}

export function hashKV(state: SnapshotState, revision: number): KvHash {
  if (revision > 0 && revision <= state.compactRevision) throw new ErrCompacted(state.compactRevision);
  if (revision > state.revision) throw new ErrFutureRev(state.revision);
  const upTo = revision > 0 ? revision : state.revision;
  let crc = crc32c(Buffer.from("key"));
  for (const [k, v] of keyBucketEntries(state.keys, upTo)) crc = crc32c(v, crc32c(k, crc));
  return { hash: crc >>> 0, compactRevision: state.compactRevision, revision: upTo };
}

export function hashAll(state: SnapshotState): number {
  return crc32c(encodeSnapshot(state)) >>> 0;
}
