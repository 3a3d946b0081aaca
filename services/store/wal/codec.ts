// Compact binary encoding of WAL payloads (encoding/binary.ts): unsigned
// LEB128 varints for integers (exact up to 2^53 - 1), length-prefixed byte
// strings.

import { BinaryReader, BinaryWriter } from "../encoding/binary.ts";
import { DecodeError } from "./errors.ts";
import type { ConfState, Entry, HardState, SnapshotMetadata } from "./types.ts";

/** A reader of WAL payloads: malformed input throws the WAL's DecodeError. */
function reader(b: Uint8Array): BinaryReader {
  return new BinaryReader(b, (message) => new DecodeError(message));
}

export function encodeEntry(e: Entry): Uint8Array {
  if (e.type !== 0 && e.type !== 1) throw new RangeError(`entry type must be 0 or 1, got ${String(e.type)}`);
  return new BinaryWriter(e.data.length + 24)
    .uvarint(e.index, "entry index")
    .uvarint(e.term, "entry term")
    .u8(e.type)
    .bytes(e.data)
    .finish();
}

export function decodeEntry(b: Uint8Array): Entry {
  const r = reader(b);
  const index = r.uvarint();
  const term = r.uvarint();
  const type = r.u8();
  if (type !== 0 && type !== 1) throw new DecodeError(`unknown entry type ${type}`);
  const data = r.bytes();
  r.end();
  return { term, index, type, data };
}

export function encodeHardState(h: HardState): Uint8Array {
  return new BinaryWriter(16)
    .uvarint(h.term, "term")
    .uvarint(h.vote, "vote")
    .uvarint(h.commit, "commit")
    .finish();
}

export function decodeHardState(b: Uint8Array): HardState {
  const r = reader(b);
  const h = { term: r.uvarint(), vote: r.uvarint(), commit: r.uvarint() };
  r.end();
  return h;
}

function writeConfState(w: BinaryWriter, c: ConfState): void {
  w.uvarints(c.voters, "voter id")
    .uvarints(c.learners, "learner id")
    .uvarints(c.votersOutgoing, "outgoing voter id")
    .uvarints(c.learnersNext, "next learner id")
    .u8(c.autoLeave ? 1 : 0);
}

function readConfState(r: BinaryReader): ConfState {
  const voters = r.uvarints();
  const learners = r.uvarints();
  const votersOutgoing = r.uvarints();
  const learnersNext = r.uvarints();
  const flag = r.u8();
  if (flag > 1) throw new DecodeError(`bad autoLeave flag ${flag}`);
  return { voters, learners, votersOutgoing, learnersNext, autoLeave: flag === 1 };
}

export function writeSnapshotMeta(w: BinaryWriter, m: SnapshotMetadata): BinaryWriter {
  w.uvarint(m.index, "snapshot index").uvarint(m.term, "snapshot term");
  writeConfState(w, m.confState);
  return w;
}

export function readSnapshotMeta(r: BinaryReader): SnapshotMetadata {
  const index = r.uvarint();
  const term = r.uvarint();
  return { index, term, confState: readConfState(r) };
}

export function encodeSnapshotMeta(m: SnapshotMetadata): Uint8Array {
  return writeSnapshotMeta(new BinaryWriter(32), m).finish();
}

export function decodeSnapshotMeta(b: Uint8Array): SnapshotMetadata {
  const r = reader(b);
  const m = readSnapshotMeta(r);
  r.end();
  return m;
}

export function cloneSnapshotMeta(m: SnapshotMetadata): SnapshotMetadata {
  const c = m.confState;
  return {
    index: m.index,
    term: m.term,
    confState: {
      voters: [...c.voters],
      learners: [...c.learners],
      votersOutgoing: [...c.votersOutgoing],
      learnersNext: [...c.learnersNext],
      autoLeave: c.autoLeave,
    },
  };
}
