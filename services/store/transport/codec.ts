// Binary codec of Raft messages for the peer transport.
//
//   message  := u8 version(1) u8 type uvarint to uvarint from uvarint term
//               uvarint logTerm uvarint index uvarint commit uvarint rejectHint
//               u8 flags [bytes context] uvarint n entry{n} [snapshot]
//   flags    := 1 reject | 2 context present | 4 snapshot present
//   entry    := svarint indexDelta svarint termDelta u8 type bytes data
//               (deltas from the previous entry of the message; the first from 0)
//   snapshot := uvarint index uvarint term confState bytes data
//   confState:= list voters, list learners, list votersOutgoing,
//               list learnersNext (each uvarint n, uvarint{n}), u8 autoLeave
//
// Integers are unsigned LEB128 varints, signed ones zigzag; byte strings are
// length-prefixed. Consecutive entries of one term cost 2 bytes of framing
// plus the data length prefix. Indices and terms must be below 2^52.
// Decoded byte fields are copies, never views into the input.

import type { ConfState, Entry, EntryType, Message, MessageType, Snapshot } from "../raft/index.ts";
import { CodecError, Reader, Writer } from "./binary.ts";

export { CodecError } from "./binary.ts";

const VERSION = 1;
const FLAG_REJECT = 1;
const FLAG_CONTEXT = 2;
const FLAG_SNAPSHOT = 4;
const MAX_TYPE = 18;
const LIMIT = 2 ** 52;

function writeConfState(w: Writer, cs: ConfState): void {
  w.uvarints(cs.voters);
  w.uvarints(cs.learners);
  w.uvarints(cs.votersOutgoing);
  w.uvarints(cs.learnersNext);
  w.u8(cs.autoLeave ? 1 : 0);
}

function readConfState(r: Reader): ConfState {
  const voters = r.uvarints();
  const learners = r.uvarints();
  const votersOutgoing = r.uvarints();
  const learnersNext = r.uvarints();
  const b = r.u8();
  if (b > 1) throw new CodecError(`bad boolean ${b}`);
  return { voters, learners, votersOutgoing, learnersNext, autoLeave: b === 1 };
}

function checkIndex(v: number, what: string): void {
  if (!(v >= 0 && v < LIMIT)) throw new RangeError(`peer codec: ${what} out of range: ${v}`);
}

/** Encodes one Raft message. Throws RangeError on values outside the format. */
export function encodeMessage(m: Message): Uint8Array {
  let size = 64;
  for (const e of m.entries) size += e.data.byteLength + 8;
  if (m.snapshot) size += m.snapshot.data.byteLength + 64;
  const w = new Writer(size);
  w.u8(VERSION);
  w.u8(m.type);
  w.uvarint(m.to);
  w.uvarint(m.from);
  w.uvarint(m.term);
  w.uvarint(m.logTerm);
  w.uvarint(m.index);
  w.uvarint(m.commit);
  w.uvarint(m.rejectHint);
  w.u8((m.reject ? FLAG_REJECT : 0) | (m.context ? FLAG_CONTEXT : 0) | (m.snapshot ? FLAG_SNAPSHOT : 0));
  if (m.context) w.bytes(m.context);
  w.uvarint(m.entries.length);
  let prevIndex = 0;
  let prevTerm = 0;
  for (const e of m.entries) {
    checkIndex(e.index, "entry index");
    checkIndex(e.term, "entry term");
    w.svarint(e.index - prevIndex);
    w.svarint(e.term - prevTerm);
    w.u8(e.type);
    w.bytes(e.data);
    prevIndex = e.index;
    prevTerm = e.term;
  }
  if (m.snapshot) {
    const s = m.snapshot;
    w.uvarint(s.metadata.index);
    w.uvarint(s.metadata.term);
    writeConfState(w, s.metadata.confState);
    w.bytes(s.data);
  }
  return w.finish();
}

/** Decodes one Raft message; throws CodecError on malformed input. */
export function decodeMessage(buf: Uint8Array): Message {
  const r = new Reader(buf);
  const version = r.u8();
  if (version !== VERSION) throw new CodecError(`unknown version ${version}`);
  const type = r.u8();
  if (type > MAX_TYPE) throw new CodecError(`unknown message type ${type}`);
  const to = r.uvarint();
  const from = r.uvarint();
  const term = r.uvarint();
  const logTerm = r.uvarint();
  const index = r.uvarint();
  const commit = r.uvarint();
  const rejectHint = r.uvarint();
  const flags = r.u8();
  if (flags > 7) throw new CodecError(`unknown flags ${flags}`);
  const context = flags & FLAG_CONTEXT ? r.bytes() : undefined;
  const n = r.uvarint();
  if (n > buf.length) throw new CodecError("entry count longer than the input");
  const entries: Entry[] = [];
  let prevIndex = 0;
  let prevTerm = 0;
  for (let i = 0; i < n; i++) {
    const idx = prevIndex + r.svarint();
    const t = prevTerm + r.svarint();
    if (idx < 0 || t < 0) throw new CodecError("negative entry index or term");
    const et = r.u8();
    if (et > 1) throw new CodecError(`unknown entry type ${et}`);
    entries.push({ index: idx, term: t, type: et as EntryType, data: r.bytes() });
    prevIndex = idx;
    prevTerm = t;
  }
  let snapshot: Snapshot | undefined;
  if (flags & FLAG_SNAPSHOT) {
    const sIndex = r.uvarint();
    const sTerm = r.uvarint();
    const confState = readConfState(r);
    snapshot = { metadata: { index: sIndex, term: sTerm, confState }, data: r.bytes() };
  }
  r.end();
  return { type: type as MessageType, to, from, term, logTerm, index, entries, commit, snapshot, reject: (flags & FLAG_REJECT) !== 0, rejectHint, context };
}
