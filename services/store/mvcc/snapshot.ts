import { BinaryReader, BinaryWriter, DecodeError } from "./binary.ts";
import { KeyIndex, type Entry, type Generation } from "./key-index.ts";
import { keyId } from "./keys.ts";
import type { AlarmMember, AlarmType, LeaseInfo } from "./types.ts";

/**
 * Snapshot format, version 1 (all integers are varints, see binary.ts):
 *
 *   "MVCS" u8(1)
 *   uvarint revision, uvarint compactRevision
 *   uvarint leaseCount, then per lease in id order:   i64 id, uvarint ttl
 *   uvarint keyCount,   then per key in byte order:   bytes key, uvarint generationCount,
 *     per generation: uvarint entryCount, per entry:  uvarint main, uvarint sub, u8 kind,
 *       kind 1 (put):       uvarint createRevision, uvarint version, i64 lease, bytes value
 *       kind 0 (tombstone): nothing more
 *   version 2 only: uvarint alarmCount, per alarm: i64 member id, u8 type (1 NOSPACE, 2 CORRUPT)
 *
 * Version 1 is written while no alarm is raised, so older binaries read such snapshots.
 *
 * It holds the key index only: lease key sets and the change history are derived
 * from it on restore. Encoding sorted structures makes the bytes a function of the
 * state alone, so replicas that applied the same log produce identical snapshots.
 */

const MAGIC = [0x4d, 0x56, 0x43, 0x53]; // "MVCS"
const FORMAT_VERSION = 1;
const FORMAT_VERSION_ALARMS = 2;
const ALARM_TYPES: readonly AlarmType[] = ["NOSPACE", "CORRUPT"];

export interface SnapshotState {
  revision: number;
  compactRevision: number;
  leases: readonly LeaseInfo[];
  /** In key byte order. */
  keys: readonly KeyIndex[];
  /** Raised alarms (absent: none). */
  alarms?: readonly AlarmMember[];
  /**
   * A view's generations of keys[i] at i, as taken with the state (see key-index.ts,
   * Views); absent: each key's current generations.
   */
  generations?: readonly (readonly Generation[])[];
  /** About how many bytes the encoding takes (a buffer size; absent: grown as needed). */
  sizeHint?: number;
}

/** The sliced encoder yields the event loop after about this many bytes (a few ms of work). */
const SLICE_BYTES = 1 << 20;

export function encodeSnapshot(state: SnapshotState): Uint8Array {
  const w = new BinaryWriter();
  for (const slice of writeSnapshot(w, state)) void slice;
  return w.finish();
}

/**
 * encodeSnapshot in slices of about SLICE_BYTES, with `pause` (by default: the next
 * turn of the event loop) between them, so that a large state never blocks the loop
 * for long. `state` must be a view (MvccStore.snapshotView): writes and compactions
 * that happen between the slices do not change the bytes. `prefix` (written first)
 * saves the caller a copy of the whole when the snapshot is part of a larger record.
 */
export async function encodeSnapshotSliced(state: SnapshotState, pause: () => Promise<void> = nextTurn, prefix?: Uint8Array): Promise<Uint8Array> {
  // Sized for the whole (growing a buffer of many MiB is a long copy in one slice).
  const w = new BinaryWriter((prefix?.byteLength ?? 0) + (state.sizeHint ?? 0) + SLICE_BYTES);
  if (prefix) w.raw(prefix);
  for (const slice of writeSnapshot(w, state)) {
    void slice;
    await pause();
  }
  return w.finish();
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Writes the snapshot into w, yielding after every SLICE_BYTES or so. */
function* writeSnapshot(w: BinaryWriter, state: SnapshotState): Generator<void> {
  const alarms = state.alarms ?? [];
  w.raw(Uint8Array.from(MAGIC)).u8(alarms.length > 0 ? FORMAT_VERSION_ALARMS : FORMAT_VERSION);
  w.uvarint(state.revision).uvarint(state.compactRevision);
  w.uvarint(state.leases.length);
  for (const l of state.leases) w.i64(l.id).uvarint(l.ttl);
  w.uvarint(state.keys.length);
  let sliceEnd = w.length + SLICE_BYTES;
  for (let i = 0; i < state.keys.length; i++) {
    const ki = state.keys[i];
    writeKey(w, ki.key, state.generations?.[i] ?? ki.generations, state.revision);
    if (w.length >= sliceEnd) {
      yield;
      sliceEnd = w.length + SLICE_BYTES;
    }
  }
  if (alarms.length > 0) {
    w.uvarint(alarms.length);
    for (const a of alarms) w.i64(BigInt.asIntN(64, a.memberId)).u8(ALARM_TYPES.indexOf(a.alarm) + 1);
  }
}

/** One key's history up to `revision`: what a view's arrays gained after it was taken is skipped. */
function writeKey(w: BinaryWriter, key: Uint8Array, gens: readonly Generation[], revision: number): void {
  let genCount = gens.length;
  while (genCount > 0 && gens[genCount - 1].entries[0].main > revision) genCount--;
  w.bytes(key).uvarint(genCount);
  for (let g = 0; g < genCount; g++) {
    const entries = gens[g].entries;
    let n = entries.length;
    while (n > 0 && entries[n - 1].main > revision) n--;
    w.uvarint(n);
    for (let j = 0; j < n; j++) {
      const e = entries[j];
      w.uvarint(e.main).uvarint(e.sub);
      if (e.kv === null) {
        w.u8(0);
      } else {
        w.u8(1).uvarint(e.kv.createRevision).uvarint(e.kv.version).i64(e.kv.lease).bytes(e.kv.value);
      }
    }
  }
}

export function decodeSnapshot(bytes: Uint8Array): SnapshotState {
  const r = new BinaryReader(bytes);
  for (const b of MAGIC) if (r.u8() !== b) throw new DecodeError("not an mvcc snapshot");
  const version = r.u8();
  if (version !== FORMAT_VERSION && version !== FORMAT_VERSION_ALARMS) throw new DecodeError(`unsupported snapshot version ${version}`);
  const revision = r.uvarint();
  const compactRevision = r.uvarint();
  if (revision < 1 || compactRevision > revision) throw new DecodeError("bad revisions");

  const leases: LeaseInfo[] = [];
  for (let n = r.uvarint(), i = 0; i < n; i++) {
    const id = r.i64();
    if (id === 0n || (i > 0 && id <= leases[i - 1].id)) throw new DecodeError("leases not in id order");
    leases.push({ id, ttl: r.uvarint() });
  }

  const keys: KeyIndex[] = [];
  for (let n = r.uvarint(), i = 0; i < n; i++) {
    const key = r.bytes();
    const id = keyId(key);
    if (key.length === 0 || (i > 0 && id <= keys[i - 1].id)) throw new DecodeError("keys not in byte order");
    const ki = new KeyIndex(key, id);
    const genCount = r.uvarint();
    if (genCount === 0) throw new DecodeError("key without generations");
    let last: Entry | undefined;
    for (let g = 0; g < genCount; g++) {
      const entries: Entry[] = [];
      const entryCount = r.uvarint();
      if (entryCount === 0) throw new DecodeError("empty generation");
      for (let j = 0; j < entryCount; j++) {
        const main = r.uvarint();
        const sub = r.uvarint();
        if (main > revision || (last !== undefined && (main < last.main || (main === last.main && sub <= last.sub)))) {
          throw new DecodeError("entries out of revision order");
        }
        const kind = r.u8();
        let entry: Entry;
        if (kind === 0) {
          if (j !== entryCount - 1 || j === 0) throw new DecodeError("misplaced tombstone");
          entry = { main, sub, kv: null };
        } else if (kind === 1) {
          const createRevision = r.uvarint();
          const version = r.uvarint();
          const lease = r.i64();
          const value = r.bytes();
          entry = { main, sub, kv: { key, createRevision, modRevision: main, version, value, lease } };
        } else {
          throw new DecodeError(`bad entry kind ${kind}`);
        }
        entries.push(entry);
        last = entry;
      }
      if (g < genCount - 1 && entries[entries.length - 1].kv !== null) throw new DecodeError("open generation before the last");
      ki.generations.push({ entries });
    }
    ki.syncTail();
    keys.push(ki);
  }
  const alarms: AlarmMember[] = [];
  if (version === FORMAT_VERSION_ALARMS) {
    for (let n = r.uvarint(), i = 0; i < n; i++) {
      const memberId = BigInt.asUintN(64, r.i64());
      const alarm = ALARM_TYPES[r.u8() - 1];
      if (alarm === undefined) throw new DecodeError("bad alarm type");
      alarms.push({ memberId, alarm });
    }
  }
  r.end();
  return { revision, compactRevision, leases, keys, alarms };
}
