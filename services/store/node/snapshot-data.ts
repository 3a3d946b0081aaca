// Data of the node's Raft snapshots: the member list, the removed ids and
// the MVCC state.
//
//   snapshot data := u8 version uvarint n member{n} [removed-ids] mvcc
//   removed-ids   := uvarint r (uvarint id uvarint index uvarint term){r}
//                    (version 2 only)
//   mvcc          := the rest: MvccStore.snapshot() bytes
//
// The member list rides along because it is replicated state too: a node
// installing a snapshot (or restarting from one) learns the members that
// the compacted conf change entries described, and the ids they removed
// (see members.ts). Version 1 (no removed ids) is written while no id was
// ever removed, so binaries that read only version 1 can still install the
// snapshots of such clusters; both versions are read.

import { CodecError, Reader, Writer } from "../transport/binary.ts";
import { readMember, readRemoved, writeMember, writeRemoved, type Member, type RemovedMember } from "./members.ts";

const VERSION_MEMBERS = 1;
const VERSION_REMOVED = 2;

export interface SnapshotData {
  members: Member[];
  removed: RemovedMember[];
  mvcc: Uint8Array;
}

export function encodeSnapshotData(members: readonly Member[], mvcc: Uint8Array, removed: readonly RemovedMember[] = []): Uint8Array {
  const w = new Writer(headerBytes(members, removed) + mvcc.byteLength);
  writeHeader(w, members, removed);
  w.raw(mvcc);
  return w.finish();
}

/** The snapshot data up to its mvcc part, for a caller that writes the mvcc bytes right after it. */
export function encodeSnapshotDataHeader(members: readonly Member[], removed: readonly RemovedMember[] = []): Uint8Array {
  const w = new Writer(headerBytes(members, removed));
  writeHeader(w, members, removed);
  return w.finish();
}

/** A first size for the header's buffer (it grows when the members take more). */
function headerBytes(members: readonly Member[], removed: readonly RemovedMember[]): number {
  return 64 * (members.length + 1) + 24 * removed.length;
}

function writeHeader(w: Writer, members: readonly Member[], removed: readonly RemovedMember[]): void {
  w.u8(removed.length > 0 ? VERSION_REMOVED : VERSION_MEMBERS);
  w.uvarint(members.length);
  for (const m of members) writeMember(w, m);
  if (removed.length > 0) {
    w.uvarint(removed.length);
    for (const r of removed) writeRemoved(w, r);
  }
}

export function decodeSnapshotData(data: Uint8Array): SnapshotData {
  const r = new Reader(data);
  const version = r.u8();
  if (version !== VERSION_MEMBERS && version !== VERSION_REMOVED) throw new CodecError(`unknown snapshot data version ${version}`);
  const n = r.uvarint();
  if (n > data.byteLength) throw new CodecError("member count longer than the input");
  const members: Member[] = [];
  for (let i = 0; i < n; i++) members.push(readMember(r));
  const removed: RemovedMember[] = [];
  if (version === VERSION_REMOVED) {
    const k = r.uvarint();
    if (k > data.byteLength) throw new CodecError("removed id count longer than the input");
    for (let i = 0; i < k; i++) removed.push(readRemoved(r));
  }
  return { members, removed, mvcc: r.rest() };
}
