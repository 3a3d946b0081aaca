// Data of the node's Raft snapshots: the member list and the MVCC state.
//
//   snapshot data := u8 version(1) uvarint n member{n} mvcc
//   mvcc          := the rest: MvccStore.snapshot() bytes
//
// The member list rides along because it is replicated state too: a node
// installing a snapshot (or restarting from one) learns the members that
// the compacted conf change entries described.

import { CodecError, Reader, Writer } from "../transport/binary.ts";
import { readMember, writeMember, type Member } from "./members.ts";

const VERSION = 1;

export function encodeSnapshotData(members: readonly Member[], mvcc: Uint8Array): Uint8Array {
  const w = new Writer(mvcc.byteLength + 64 * (members.length + 1));
  w.u8(VERSION);
  w.uvarint(members.length);
  for (const m of members) writeMember(w, m);
  w.raw(mvcc);
  return w.finish();
}

export function decodeSnapshotData(data: Uint8Array): { members: Member[]; mvcc: Uint8Array } {
  const r = new Reader(data);
  const version = r.u8();
  if (version !== VERSION) throw new CodecError(`unknown snapshot data version ${version}`);
  const n = r.uvarint();
  if (n > data.byteLength) throw new CodecError("member count longer than the input");
  const members: Member[] = [];
  for (let i = 0; i < n; i++) members.push(readMember(r));
  return { members, mvcc: r.rest() };
}
