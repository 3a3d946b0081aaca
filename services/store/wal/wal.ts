// Durable Raft log and hard state: a segmented write-ahead log.
//
// Why hand-written segment files rather than an embedded store (lmdb is
// installed and is the right tool for the MVCC keyspace and its snapshots):
// - The Raft log is append-only and its hot path is "append a batch, fsync
//   once". A segment file does exactly one write and one fdatasync per group
//   commit; a B-tree commit rewrites pages and syncs twice (data, then meta
//   page), and single-put commits are slow there (see ARCHITECTURE §6).
// - Recovery semantics are ours to define and to report: a crash-torn tail is
//   cut at the last good record and logged, real corruption refuses to start
//   with file and offset. An embedded store either opens or does not.
// - Dropping a conflicting suffix is one overwrite record, and log compaction
//   is unlinking whole files, instead of deleting millions of keys and growing
//   a free list.
//
// Layout: `<seq:16 hex>-<firstIndex:16 hex>.wal` files in one directory, seq
// from 1 without gaps; firstIndex is lastIndex+1 of the log when the segment
// was started. Record framing is in record.ts, the index rules in log-shape.ts.
// Each new segment starts with its crc-seed header followed by a copy of the
// current hard state and snapshot marker, so that releasing older segments
// never loses them. Segments are created as `.tmp`, fsynced, then renamed.
//
// Durability: save() resolves only after the fdatasync covering its records.
// Saves issued while a write+fsync is in flight are queued and all written by
// the next single write+fsync (group commit). The write into the page cache is
// synchronous (microseconds, cheaper than a thread-pool round trip); the
// fdatasync runs in the thread pool, or on the calling thread with
// syncInline (see there). Within a batch, entries precede
// the hard state, so a torn batch never keeps a commit index beyond the
// entries that survived.
//
// Preallocation (WalOptions.preallocateBytes, as etcd preallocates its WAL
// segments): the writer keeps zeros written ahead of the log's end, so that a
// batch overwrites allocated blocks and its fdatasync flushes only data
// pages, without the file-size change (a filesystem journal commit) that an
// append makes every fsync pay. Only the batch that extends the zeros pays it.
// A segment then ends in zeros (record.ts: the clean end of a segment).

import { randomBytes } from "node:crypto";
import { fdatasyncSync } from "node:fs";
import { mkdir, open, readdir, readFile, rename, unlink, type FileHandle } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  cloneSnapshotMeta,
  decodeEntry,
  decodeHardState,
  decodeSnapshotMeta,
  encodeEntry,
  encodeHardState,
  encodeSnapshotMeta,
} from "./codec.ts";
import { DecodeError, WalCorruptError } from "./errors.ts";
import { fsyncDir, hex16, isNotFound, writeFully, writeFullySync } from "./fsutil.ts";
import { LogShape } from "./log-shape.ts";
import {
  encodeSegmentHeader,
  frameBatch,
  PREALLOCATION_ALIGN,
  RecordKind,
  scanSegment,
  type PendingRecord,
  type ScannedRecord,
} from "./record.ts";
import {
  EMPTY_HARD_STATE,
  stderrLogger,
  type Entry,
  type HardState,
  type SnapshotMetadata,
  type WalLogger,
} from "./types.ts";

export const DEFAULT_SEGMENT_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_RECORD_BYTES = 64 * 1024 * 1024;

export interface WalOptions {
  /** A segment is closed and a new one started once it reaches this size. Default 64 MiB. */
  segmentBytes?: number;
  /** Largest payload of one record (one entry). Default 64 MiB. */
  maxRecordBytes?: number;
  /** Receives repair reports; defaults to JSON lines on stderr. */
  log?: WalLogger;
  /**
   * When above 0, the space after the log's end is written with zeros this
   * many bytes at a time (rounded to whole pages), ahead of the batches that
   * will overwrite it. Default 0: every batch appends.
   */
  preallocateBytes?: number;
}

export interface WalState {
  /** Latest hard state (all zero when none was saved). */
  hardState: HardState;
  /** The live log after the latest snapshot marker, in index order without gaps. */
  entries: Entry[];
  /** Latest snapshot marker, if any. */
  snapshotMeta?: SnapshotMetadata;
}

export interface WalStats {
  /** Records written since open (entries, hard states, markers, segment headers). */
  records: number;
  /** Bytes written since open. */
  bytes: number;
  /** fsync/fdatasync calls since open, on segments and on the directory. */
  fsyncs: number;
  /** Group-commit write batches since open. */
  batches: number;
  /** Segment files currently in the directory. */
  segments: number;
}

interface SegmentRef {
  seq: number;
  firstIndex: number;
  name: string;
}

interface Pending {
  records: PendingRecord[];
  /** Last index of the log once this item is written. */
  lastIndexAfter: number;
  hardState?: HardState;
  marker?: SnapshotMetadata;
  /** A cut: resolved once the segment after everything before it is in place. */
  cut?: boolean;
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface OpenSegment {
  ref: SegmentRef;
  fh: FileHandle;
  seed: number;
  size: number;
  /** Bytes of the file: size plus zeros written ahead (preallocation). */
  allocated: number;
  nextBatch: number;
  /** Whether a batch was written since the segment was created (a cut of an unwritten segment does nothing). */
  written: boolean;
}

/** Source of the zeros written ahead (preallocation). */
const ZEROS = new Uint8Array(256 * 1024);

const SEGMENT_RE = /^([0-9a-f]{16})-([0-9a-f]{16})\.wal$/;

export function segmentName(seq: number, firstIndex: number): string {
  return `${hex16(seq)}-${hex16(firstIndex)}.wal`;
}

function sameHardState(a: HardState | undefined, b: HardState): boolean {
  return a !== undefined && a.term === b.term && a.vote === b.vote && a.commit === b.commit;
}

interface Counters {
  records: number;
  bytes: number;
  fsyncs: number;
  batches: number;
}

/** Replays records into the log state; throws WalCorruptError on index violations. */
class Replay {
  readonly shape: LogShape;
  entries: Entry[] = [];
  hardState: HardState = { ...EMPTY_HARD_STATE };
  snapshotMeta?: SnapshotMetadata;
  hardStateSeen = false;

  constructor(base: number) {
    this.shape = new LogShape(base);
  }

  apply(r: ScannedRecord, file: string): void {
    try {
      switch (r.kind) {
        case RecordKind.Entry: {
          const e = decodeEntry(r.payload);
          const why = this.shape.refuse(e.index);
          if (why !== undefined) throw new WalCorruptError(file, r.offset, why);
          const keep = this.shape.append(e.index, e.term);
          this.entries.length = keep;
          this.entries.push(e);
          return;
        }
        case RecordKind.HardState:
          this.hardState = decodeHardState(r.payload);
          this.hardStateSeen = true;
          return;
        case RecordKind.SnapshotMarker: {
          const m = decodeSnapshotMeta(r.payload);
          const oldBase = this.shape.base;
          const effect = this.shape.marker(m.index, m.term);
          if (effect === "compacted") this.entries.splice(0, m.index - oldBase);
          else if (effect === "reset") this.entries = [];
          if (this.snapshotMeta === undefined || m.index >= this.snapshotMeta.index) this.snapshotMeta = m;
          return;
        }
        default:
          throw new WalCorruptError(file, r.offset, `unexpected record kind ${r.kind}`);
      }
    } catch (err) {
      if (err instanceof DecodeError) throw new WalCorruptError(file, r.offset, `undecodable record: ${err.message}`);
      throw err;
    }
  }
}

export class Wal {
  /**
   * When set, a batch's fdatasync blocks the calling thread instead of going
   * to the thread pool. For a writer with nothing to do while it waits (a
   * Raft follower answers only once its entries are durable): it saves the
   * two thread hand-offs of a pooled fsync (to the pool thread and back),
   * each a wake-up that waits for a CPU on a busy machine. Durability and
   * group commit are the same either way.
   */
  syncInline = false;
  private pending: Pending[] = [];
  private writer?: Promise<void>;
  private writing = false;
  /** The writer due on the next microtask, until it starts (writeNow may start it earlier). */
  private due: { started: boolean } | undefined;
  private failure?: unknown;
  private closed = false;
  private readonly counters: Counters = { records: 0, bytes: 0, fsyncs: 0, batches: 0 };
  /** Hard state of the last queued save (to skip unchanged ones). */
  private queuedHardState?: HardState;
  /** Written state, copied into every new segment. */
  private writtenHardState?: HardState;
  private writtenMarker?: SnapshotMetadata;
  private writtenLastIndex: number;

  private constructor(
    /** The directory of the segments. */
    readonly dir: string,
    private readonly segments: SegmentRef[],
    private current: OpenSegment,
    /** Shape of the log including queued saves. */
    private readonly shape: LogShape,
    private readonly segmentBytes: number,
    private readonly maxRecordBytes: number,
    private readonly preallocateBytes: number,
    private readonly log: WalLogger,
    replay: Replay,
    counters: Counters,
  ) {
    Object.assign(this.counters, counters);
    this.writtenHardState = replay.hardStateSeen ? replay.hardState : undefined;
    this.queuedHardState = this.writtenHardState;
    this.writtenMarker = replay.snapshotMeta;
    this.writtenLastIndex = shape.lastIndex();
  }

  /**
   * Opens (creating if needed) the WAL in `dir` and replays it. A torn tail of
   * the last segment is truncated and reported; any other damage throws
   * WalCorruptError.
   */
  static async open(dir: string, opts: WalOptions = {}): Promise<{ wal: Wal; state: WalState }> {
    const log = opts.log ?? stderrLogger;
    const segmentBytes = opts.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    const maxRecordBytes = opts.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
    const preallocateBytes = Math.ceil(Math.max(0, opts.preallocateBytes ?? 0) / PREALLOCATION_ALIGN) * PREALLOCATION_ALIGN;
    const counters: Counters = { records: 0, bytes: 0, fsyncs: 0, batches: 0 };

    await ensureDir(dir, counters);
    const names = await readdir(dir);
    const refs: SegmentRef[] = [];
    for (const name of names) {
      if (name.endsWith(".wal.tmp")) {
        // A segment whose creation did not complete; it was never renamed into place.
        await unlink(join(dir, name));
        log("info", "wal: removed unfinished segment file", { dir, file: name });
        continue;
      }
      const m = SEGMENT_RE.exec(name);
      if (m) refs.push({ seq: parseInt(m[1], 16), firstIndex: parseInt(m[2], 16), name });
    }
    refs.sort((a, b) => a.seq - b.seq);
    for (let i = 1; i < refs.length; i++) {
      if (refs[i].seq !== refs[i - 1].seq + 1) {
        throw new WalCorruptError(join(dir, refs[i].name), 0, `segment ${refs[i - 1].seq + 1} is missing`);
      }
      if (refs[i].firstIndex < refs[i - 1].firstIndex) {
        throw new WalCorruptError(join(dir, refs[i].name), 0, "segment first index goes back");
      }
    }

    if (refs.length === 0) {
      const ref = { seq: 1, firstIndex: 1, name: segmentName(1, 1) };
      const current = await createSegment(dir, ref, undefined, undefined, counters);
      const replay = new Replay(0);
      const wal = new Wal(dir, [ref], current, replay.shape, segmentBytes, maxRecordBytes, preallocateBytes, log, replay, counters);
      return { wal, state: { hardState: replay.hardState, entries: [] } };
    }

    const replay = new Replay(refs[0].firstIndex - 1);
    let current: OpenSegment | undefined;
    for (let i = 0; i < refs.length; i++) {
      const ref = refs[i];
      const file = join(dir, ref.name);
      const isLast = i === refs.length - 1;
      const buf = await readFile(file);
      const scan = scanSegment(buf, file, maxRecordBytes);
      if (scan.header && (scan.header.seq !== ref.seq || scan.header.firstIndex !== ref.firstIndex)) {
        throw new WalCorruptError(file, 0, "segment header does not match the file name");
      }
      if (scan.damage) {
        const d = scan.damage;
        if (!isLast) throw new WalCorruptError(file, d.offset, `${d.reason} in a segment that is not the last`);
        if (d.laterBatchAt !== undefined) {
          throw new WalCorruptError(
            file,
            d.offset,
            `${d.reason}, followed by a valid record of a later write batch at offset ${d.laterBatchAt}`,
          );
        }
      }
      for (const r of scan.records) replay.apply(r, file);
      if (!isLast) continue;

      if (!scan.header) {
        log("warn", "wal: torn segment header, recreating the segment", {
          file,
          bytes: buf.length,
          reason: scan.damage?.reason,
        });
        current = await createSegment(
          dir,
          ref,
          replay.hardStateSeen ? replay.hardState : undefined,
          replay.snapshotMeta,
          counters,
        );
        continue;
      }
      const fh = await open(file, "r+");
      if (scan.damage) {
        log("warn", "wal: torn or corrupt tail truncated at the last good record", {
          file,
          offset: scan.goodEnd,
          droppedBytes: buf.length - scan.goodEnd,
          reason: scan.damage.reason,
        });
        await fh.truncate(scan.goodEnd);
        await fh.sync();
        counters.fsyncs++;
      }
      // Clean: any bytes past goodEnd are preallocated zeros (scanSegment).
      const allocated = scan.damage ? scan.goodEnd : buf.length;
      current = { ref, fh, seed: scan.header.seed, size: scan.goodEnd, allocated, nextBatch: scan.lastBatch + 1, written: true };
    }
    if (current === undefined) throw new Error("unreachable: no last segment");

    const wal = new Wal(dir, refs, current, replay.shape, segmentBytes, maxRecordBytes, preallocateBytes, log, replay, counters);
    const state: WalState = { hardState: replay.hardState, entries: replay.entries };
    if (replay.snapshotMeta) state.snapshotMeta = replay.snapshotMeta;
    return { wal, state };
  }

  /**
   * Appends `entries` (a contiguous run; it may overwrite a held suffix) and
   * the hard state, resolving once they are on disk.
   */
  save(hardState: HardState | undefined, entries: readonly Entry[]): Promise<void> {
    const refused = this.refuseNew();
    if (refused) return Promise.reject(refused);
    const records: PendingRecord[] = [];
    let hs: HardState | undefined;
    try {
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i];
        if (i > 0 && e.index !== entries[i - 1].index + 1) {
          throw new RangeError(`entries are not contiguous: ${entries[i - 1].index} then ${e.index}`);
        }
        const payload = encodeEntry(e);
        if (payload.length > this.maxRecordBytes) throw new RangeError(`entry ${e.index} is too large`);
        records.push({ kind: RecordKind.Entry, payload });
      }
      if (entries.length > 0) {
        const why = this.shape.refuse(entries[0].index);
        if (why !== undefined) throw new RangeError(why);
      }
      if (hardState && !sameHardState(this.queuedHardState, hardState)) {
        hs = { term: hardState.term, vote: hardState.vote, commit: hardState.commit };
        records.push({ kind: RecordKind.HardState, payload: encodeHardState(hs) });
      }
    } catch (err) {
      return Promise.reject(err);
    }
    for (const e of entries) this.shape.append(e.index, e.term);
    if (hs) this.queuedHardState = hs;
    return this.enqueue(records, hs, undefined);
  }

  /**
   * Records that a snapshot at meta.index is durable (write the snapshot file
   * first). Entries up to it are dropped from replay; if the log does not hold
   * meta.index with meta.term, the whole log is discarded (installed snapshot).
   */
  saveSnapshotMarker(meta: SnapshotMetadata): Promise<void> {
    const refused = this.refuseNew();
    if (refused) return Promise.reject(refused);
    let payload: Uint8Array;
    try {
      payload = encodeSnapshotMeta(meta);
    } catch (err) {
      return Promise.reject(err);
    }
    const m = cloneSnapshotMeta(meta);
    this.shape.marker(m.index, m.term);
    return this.enqueue([{ kind: RecordKind.SnapshotMarker, payload }], undefined, m);
  }

  /**
   * Starts a new segment once everything queued before it is written (etcd's
   * cut), so that releaseBefore() can delete the segment that was current
   * when its entries are all covered by a snapshot: what a defragmentation
   * needs to leave only the compacted state on disk. The new segment starts
   * with copies of the hard state and snapshot marker, like any new segment.
   * A segment nothing was written to since it was started is kept.
   */
  cut(): Promise<void> {
    const refused = this.refuseNew();
    if (refused) return Promise.reject(refused);
    return this.enqueue([], undefined, undefined, true);
  }

  /**
   * Deletes whole segments whose entries are all below `index` (never the
   * current segment, never an entry above the latest written snapshot
   * marker, which the marker's snapshot does not cover).
   * Returns the number of segments deleted.
   */
  async releaseBefore(index: number): Promise<number> {
    const limit = Math.min(index, (this.writtenMarker?.index ?? -1) + 1);
    let n = 0;
    while (n < this.segments.length - 1 && this.segments[n + 1].firstIndex <= limit) n++;
    const removed = this.segments.splice(0, n);
    // Oldest first, each made durable before the next, so that a crash leaves
    // a gap-free suffix of segments.
    for (const ref of removed) {
      await unlink(join(this.dir, ref.name));
      await fsyncDir(this.dir);
      this.counters.fsyncs++;
    }
    if (n > 0) this.log("info", "wal: released segments", { dir: this.dir, segments: n, before: limit });
    return n;
  }

  /**
   * Starts the write (and the fsync) of what is queued now, within the
   * caller's step, instead of on the next microtask: for a caller that goes
   * on with other work while its save is in flight (a Raft leader applying
   * entries that are already durable). Saves queued later go into the next
   * batch, as during any write in flight. Does nothing when no writer is due.
   */
  writeNow(): void {
    const due = this.due;
    if (due === undefined) return;
    due.started = true;
    this.due = undefined;
    this.writer = this.runWriter();
  }

  /** Last index of the log, counting saves not yet durable. */
  lastIndex(): number {
    return this.shape.lastIndex();
  }

  stats(): WalStats {
    return { ...this.counters, segments: this.segments.length };
  }

  /** Waits for queued saves, then closes the current segment. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.writing) await this.writer;
    await this.current.fh.close();
  }

  private refuseNew(): Error | undefined {
    if (this.closed) return new Error("wal is closed");
    if (this.failure !== undefined) return new Error("wal failed earlier; reopen it", { cause: this.failure });
    return undefined;
  }

  private enqueue(records: PendingRecord[], hardState: HardState | undefined, marker: SnapshotMetadata | undefined, cut = false) {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ records, lastIndexAfter: this.shape.lastIndex(), hardState, marker, cut, resolve, reject });
      if (!this.writing) {
        // Start on the next microtask: saves issued in the same tick (for
        // example by every writer whose previous save just resolved) then
        // share the first write and fsync instead of trailing behind it.
        this.writing = true;
        const due = { started: false };
        this.due = due;
        this.writer = Promise.resolve().then(() => {
          if (due.started) return; // writeNow started it
          due.started = true;
          this.due = undefined;
          return this.runWriter();
        });
      }
    });
  }

  /** The single writer: takes everything queued, one write + one fdatasync, repeat. */
  private async runWriter(): Promise<void> {
    // `writing` is cleared in the same synchronous step in which the loop sees
    // an empty queue (no await in between), so a save enqueued afterwards
    // always starts a new writer.
    try {
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        try {
          const records = batch.flatMap((p) => p.records);
          if (records.length > 0) {
            const cur = this.current;
            const buf = frameBatch(records, cur.seed, cur.nextBatch);
            writeFullySync(cur.fh.fd, buf, cur.size);
            cur.size += buf.length;
            if (cur.size > cur.allocated) this.preallocate(cur);
            cur.nextBatch++;
            cur.written = true;
            this.counters.records += records.length;
            this.counters.bytes += buf.length;
            if (this.syncInline) fdatasyncSync(cur.fh.fd);
            else await cur.fh.datasync();
            this.counters.fsyncs++;
            this.counters.batches++;
            for (const p of batch) {
              if (p.hardState) this.writtenHardState = p.hardState;
              if (p.marker) this.writtenMarker = p.marker;
            }
            this.writtenLastIndex = batch[batch.length - 1].lastIndexAfter;
          }
          for (const p of batch) if (p.cut !== true) p.resolve();
          const cut = batch.some((p) => p.cut === true) && this.current.written;
          if (cut || this.current.size >= this.segmentBytes) await this.roll();
          for (const p of batch) if (p.cut === true) p.resolve();
        } catch (err) {
          // After a failed write or fsync the file state is unknown: refuse
          // everything from now on; reopening repairs the tail.
          this.failure = err;
          this.log("error", "wal: write failed, the log refuses further writes", {
            dir: this.dir,
            error: String(err),
          });
          for (const p of batch) p.reject(err);
          for (const p of this.pending.splice(0)) p.reject(err);
          return;
        }
      }
    } finally {
      this.writing = false;
    }
  }

  /**
   * Writes zeros from the end of the batch just written (cur.size) to the next
   * multiple of preallocateBytes beyond it; the batch's fsync makes them
   * durable with it. Without preallocation the file simply grew.
   */
  private preallocate(cur: OpenSegment): void {
    const step = this.preallocateBytes;
    if (step === 0) {
      cur.allocated = cur.size;
      return;
    }
    const end = (Math.floor(cur.size / step) + 1) * step;
    for (let at = cur.size; at < end; ) {
      const n = Math.min(end - at, ZEROS.length);
      writeFullySync(cur.fh.fd, ZEROS.subarray(0, n), at);
      at += n;
    }
    this.counters.bytes += end - cur.size;
    cur.allocated = end;
  }

  private async roll(): Promise<void> {
    const prev = this.current;
    const ref = {
      seq: prev.ref.seq + 1,
      firstIndex: this.writtenLastIndex + 1,
      name: segmentName(prev.ref.seq + 1, this.writtenLastIndex + 1),
    };
    this.current = await createSegment(this.dir, ref, this.writtenHardState, this.writtenMarker, this.counters);
    this.segments.push(ref);
    await prev.fh.close();
  }
}

async function ensureDir(dir: string, counters: Counters): Promise<void> {
  try {
    await readdir(dir);
    return;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  await mkdir(dir, { recursive: true });
  await fsyncDir(dirname(dir));
  counters.fsyncs++;
}

/**
 * Creates a segment atomically: header and state copies are written to a
 * temporary file, fsynced, renamed into place, and the directory fsynced.
 */
async function createSegment(
  dir: string,
  ref: SegmentRef,
  hardState: HardState | undefined,
  marker: SnapshotMetadata | undefined,
  counters: Counters,
): Promise<OpenSegment> {
  const seed = randomBytes(4).readUInt32LE(0);
  const header = encodeSegmentHeader({ seed, seq: ref.seq, firstIndex: ref.firstIndex });
  const copies: PendingRecord[] = [];
  if (hardState) copies.push({ kind: RecordKind.HardState, payload: encodeHardState(hardState) });
  if (marker) copies.push({ kind: RecordKind.SnapshotMarker, payload: encodeSnapshotMeta(marker) });
  const body = copies.length > 0 ? frameBatch(copies, seed, 1) : new Uint8Array(0);
  const buf = new Uint8Array(header.length + body.length);
  buf.set(header);
  buf.set(body, header.length);

  const final = join(dir, ref.name);
  const tmp = `${final}.tmp`;
  const fh = await open(tmp, "w+");
  try {
    await writeFully(fh, buf, 0);
    await fh.datasync();
    await rename(tmp, final);
    await fsyncDir(dir);
  } catch (err) {
    await fh.close();
    throw err;
  }
  counters.fsyncs += 2;
  counters.records += 1 + copies.length;
  counters.bytes += buf.length;
  return { ref, fh, seed, size: buf.length, allocated: buf.length, nextBatch: copies.length > 0 ? 2 : 1, written: false };
}
