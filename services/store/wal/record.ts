// Record framing of a WAL segment file.
//
//   record := len:u32le kind:u8 batch:u32le crc:u32le payload[len]
//
// `kind` low 7 bits: 1 entry, 2 hard state, 3 snapshot marker, 4 crc seed
// (segment header, always the first record of a file); bit 0x80 marks the
// last record of a write batch. `batch` numbers the write batches of one
// segment (0 is the header batch). `crc` is CRC-32C over len, kind, batch and
// payload, seeded with the segment's random seed (the crc-seed record itself
// is seeded with 0). A per-segment seed means bytes of another segment, or of
// an older file that had the same name, never validate here.
//
// A crash can only damage the last write batch (every batch is fsynced before
// the next one is written), and inside that batch any subset of pages may have
// reached the disk. Hence: damage followed only by valid records of the same
// batch is a torn tail; damage followed by a valid record of a later batch is
// corruption in the middle.

import { crc32c } from "./crc32c.ts";
import { WalCorruptError } from "./errors.ts";

export const RecordKind = {
  Entry: 1,
  HardState: 2,
  SnapshotMarker: 3,
  CrcSeed: 4,
} as const;
export type RecordKind = (typeof RecordKind)[keyof typeof RecordKind];

const BATCH_END = 0x80;
export const RECORD_HEADER_SIZE = 13;
const MAGIC = 0x4c415752; // "RWAL" little-endian
const FORMAT_VERSION = 1;
const SEED_PAYLOAD_SIZE = 25;
/** Preallocated space ends on a multiple of this (see isPreallocatedTail). */
export const PREALLOCATION_ALIGN = 4096;
/** Size of the crc-seed record that starts every segment. */
export const SEGMENT_HEADER_SIZE = RECORD_HEADER_SIZE + SEED_PAYLOAD_SIZE;

export interface PendingRecord {
  kind: RecordKind;
  payload: Uint8Array;
}

export interface ScannedRecord {
  kind: RecordKind;
  batch: number;
  batchEnd: boolean;
  payload: Uint8Array;
  offset: number;
  end: number;
}

export interface SegmentHeader {
  seed: number;
  seq: number;
  firstIndex: number;
}

function putU64(dv: DataView, off: number, n: number): void {
  dv.setUint32(off, n % 0x100000000, true);
  dv.setUint32(off + 4, Math.floor(n / 0x100000000), true);
}

function getU64(dv: DataView, off: number): number {
  return dv.getUint32(off + 4, true) * 0x100000000 + dv.getUint32(off, true);
}

export function recordsSize(records: readonly PendingRecord[]): number {
  let n = 0;
  for (const r of records) n += RECORD_HEADER_SIZE + r.payload.length;
  return n;
}

/** Frames `records` as one write batch (the last one carries the batch-end flag). */
export function frameBatch(records: readonly PendingRecord[], seed: number, batch: number): Uint8Array {
  const out = new Uint8Array(recordsSize(records));
  const dv = new DataView(out.buffer, out.byteOffset, out.byteLength);
  let pos = 0;
  records.forEach((r, i) => {
    const kind = r.kind | (i === records.length - 1 ? BATCH_END : 0);
    dv.setUint32(pos, r.payload.length, true);
    out[pos + 4] = kind;
    dv.setUint32(pos + 5, batch, true);
    out.set(r.payload, pos + RECORD_HEADER_SIZE);
    let crc = crc32c(out, seed, pos, pos + 9);
    crc = crc32c(r.payload, crc);
    dv.setUint32(pos + 9, crc, true);
    pos += RECORD_HEADER_SIZE + r.payload.length;
  });
  return out;
}

export function encodeSegmentHeader(h: SegmentHeader): Uint8Array {
  const payload = new Uint8Array(SEED_PAYLOAD_SIZE);
  const dv = new DataView(payload.buffer);
  dv.setUint32(0, MAGIC, true);
  payload[4] = FORMAT_VERSION;
  dv.setUint32(5, h.seed, true);
  putU64(dv, 9, h.seq);
  putU64(dv, 17, h.firstIndex);
  return frameBatch([{ kind: RecordKind.CrcSeed, payload }], 0, 0);
}

/** Parses the record at `off`; returns the reason as a string when it is not a valid record. */
function parseAt(buf: Uint8Array, dv: DataView, off: number, seed: number, maxPayload: number): ScannedRecord | string {
  if (buf.length - off < RECORD_HEADER_SIZE) return "partial record header";
  const len = dv.getUint32(off, true);
  const rawKind = buf[off + 4];
  const kind = rawKind & ~BATCH_END;
  if (kind !== RecordKind.Entry && kind !== RecordKind.HardState && kind !== RecordKind.SnapshotMarker) {
    return `bad record kind ${rawKind}`;
  }
  if (len > maxPayload) return `record length ${len} exceeds the limit`;
  const end = off + RECORD_HEADER_SIZE + len;
  if (end > buf.length) return "partial record";
  let crc = crc32c(buf, seed, off, off + 9);
  crc = crc32c(buf, crc, off + RECORD_HEADER_SIZE, end);
  if (crc !== dv.getUint32(off + 9, true)) return "checksum mismatch";
  return {
    kind: kind as RecordKind,
    batch: dv.getUint32(off + 5, true),
    batchEnd: (rawKind & BATCH_END) !== 0,
    payload: buf.subarray(off + RECORD_HEADER_SIZE, end),
    offset: off,
    end,
  };
}

export interface Damage {
  offset: number;
  reason: string;
  /** Offset of a valid record of a later batch found after the damage (proof of mid-log corruption). */
  laterBatchAt?: number;
}

export interface SegmentScan {
  /** Undefined when the file is shorter than a segment header (a torn creation). */
  header?: SegmentHeader;
  records: ScannedRecord[];
  /** End of the last good record before any damage. */
  goodEnd: number;
  /** Highest batch number among the good records. */
  lastBatch: number;
  damage?: Damage;
}

function parseHeader(buf: Uint8Array, dv: DataView, file: string): SegmentHeader {
  const bad = (why: string): never => {
    throw new WalCorruptError(file, 0, `bad segment header: ${why}`);
  };
  if (dv.getUint32(0, true) !== SEED_PAYLOAD_SIZE) bad("length");
  if (buf[4] !== (RecordKind.CrcSeed | BATCH_END)) bad("kind");
  let crc = crc32c(buf, 0, 0, 9);
  crc = crc32c(buf, crc, RECORD_HEADER_SIZE, SEGMENT_HEADER_SIZE);
  if (crc !== dv.getUint32(9, true)) bad("checksum mismatch");
  const p = RECORD_HEADER_SIZE;
  if (dv.getUint32(p, true) !== MAGIC) bad("magic");
  if (buf[p + 4] !== FORMAT_VERSION) bad(`unsupported version ${buf[p + 4]}`);
  return { seed: dv.getUint32(p + 5, true), seq: getU64(dv, p + 9), firstIndex: getU64(dv, p + 17) };
}

/**
 * Reads every valid record of a segment up to the first damage and, when there
 * is damage, looks past it for valid records of a later batch.
 */
export function scanSegment(buf: Uint8Array, file: string, maxPayload: number): SegmentScan {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (buf.length < SEGMENT_HEADER_SIZE) {
    return { records: [], goodEnd: 0, lastBatch: 0, damage: { offset: 0, reason: "partial segment header" } };
  }
  const header = parseHeader(buf, dv, file);
  const records: ScannedRecord[] = [];
  let off = SEGMENT_HEADER_SIZE;
  let lastBatch = 0;
  let lastEnded = true;
  while (off < buf.length) {
    const r = parseAt(buf, dv, off, header.seed, maxPayload);
    if (typeof r === "string" && lastEnded && isPreallocatedTail(buf, off)) break;
    if (typeof r === "string") {
      // The damaged record belongs to the batch of the last good record, or to
      // the next one if that record closed its batch.
      const damagedBatch = lastEnded ? lastBatch + 1 : lastBatch;
      const damage: Damage = { offset: off, reason: r };
      for (let q = off + 1; q + RECORD_HEADER_SIZE <= buf.length; ) {
        const later = parseAt(buf, dv, q, header.seed, maxPayload);
        if (typeof later === "string") {
          q++;
          continue;
        }
        if (later.batch !== damagedBatch) {
          damage.laterBatchAt = q;
          break;
        }
        q = later.end;
      }
      return { header, records, goodEnd: off, lastBatch, damage };
    }
    if (r.batch < lastBatch) {
      throw new WalCorruptError(file, off, `batch number ${r.batch} goes back (after ${lastBatch})`);
    }
    records.push(r);
    lastBatch = r.batch;
    lastEnded = r.batchEnd;
    off = r.end;
  }
  return { header, records, goodEnd: off, lastBatch };
}

/** Whether buf holds only zeros from `off` and ends on a preallocation boundary. */
function isPreallocatedTail(buf: Uint8Array, off: number): boolean {
  if (buf.length % PREALLOCATION_ALIGN !== 0) return false;
  for (let i = off; i < buf.length; i++) if (buf[i] !== 0) return false;
  return true;
}
