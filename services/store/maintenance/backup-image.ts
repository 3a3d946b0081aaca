/**
 * The store's backup image: the MVCC state laid out as etcd lays out its backend
 * database, in a bbolt file (bolt-file.ts), so `etcdctl snapshot status` reads it and
 * `etcdctl snapshot restore` can seed an etcd member from it.
 *
 * Buckets (etcd's names and encodings):
 *   key    revision bytes (main u64 BE, '_', sub u64 BE, then 't' for a tombstone) ->
 *          mvccpb.KeyValue (a tombstone holds only the key), every retained entry;
 *   lease  lease id i64 BE -> leasepb.Lease{ID, TTL};
 *   meta   consistent_index u64 BE, finishedCompactRev and scheduledCompactRev (revision
 *          bytes) once compacted;
 *   alarm, auth, authRoles, authUsers, cluster, members, members_removed: present, empty
 *          (membership comes from the restore's flags, as with etcd).
 * Decoding rebuilds the key index (a tombstone closes a generation) and takes the
 * revision etcd's way: the newest entry's, or the compact revision if higher.
 *
 * A snapshot as streamed ends with the sha256 of the image (withChecksum); etcdctl's
 * restore and ours verify it when the file is the image plus 32 bytes.
 */
import { createHash } from "node:crypto";
import { KeyIndex, type Entry } from "../mvcc/key-index.ts";
import { keyId } from "../mvcc/keys.ts";
import type { SnapshotState } from "../mvcc/snapshot.ts";
import type { KeyValue, LeaseInfo } from "../mvcc/types.ts";
import { BoltFormatError, readBolt, writeBolt, type BoltEntry } from "./bolt-file.ts";

const SHA256_BYTES = 32;
const REVISION_BYTES = 17;
const TOMBSTONE = 0x74; // 't'
const EMPTY_BUCKETS = ["alarm", "auth", "authRoles", "authUsers", "cluster", "members", "members_removed"];

export class BackupFormatError extends Error {}

// ---- protobuf, the few fields etcd's buckets use -------------------------------

function varint(out: number[], value: bigint): void {
  let v = BigInt.asUintN(64, value);
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
}

function intField(out: number[], field: number, value: bigint | number): void {
  if (value === 0 || value === 0n) return;
  out.push(field << 3);
  varint(out, BigInt(value));
}

function bytesField(out: number[], field: number, value: Uint8Array): void {
  if (value.length === 0) return;
  out.push((field << 3) | 2);
  varint(out, BigInt(value.length));
  for (const b of value) out.push(b);
}

/** Fields of a message: varints as bigint (two's complement int64), length-delimited as bytes. */
function fields(bytes: Uint8Array): Map<number, bigint | Uint8Array> {
  const out = new Map<number, bigint | Uint8Array>();
  let i = 0;
  const readVarint = (): bigint => {
    let v = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (i >= bytes.length || shift > 63n) throw new BackupFormatError("malformed protobuf varint");
      const b = bytes[i++];
      v |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return v;
    }
  };
  while (i < bytes.length) {
    const tag = Number(readVarint());
    const wire = tag & 7;
    if (wire === 0) out.set(tag >> 3, readVarint());
    else if (wire === 2) {
      const len = Number(readVarint());
      if (i + len > bytes.length) throw new BackupFormatError("protobuf field beyond the end");
      out.set(tag >> 3, bytes.subarray(i, i + len));
      i += len;
    } else throw new BackupFormatError(`unexpected protobuf wire type ${wire}`);
  }
  return out;
}

const int = (f: Map<number, bigint | Uint8Array>, n: number): bigint => {
  const v = f.get(n);
  return typeof v === "bigint" ? BigInt.asIntN(64, v) : 0n;
};
const bytesOf = (f: Map<number, bigint | Uint8Array>, n: number): Uint8Array => {
  const v = f.get(n);
  return v instanceof Uint8Array ? Uint8Array.from(v) : new Uint8Array(0);
};

export function encodeKeyValue(kv: KeyValue): Uint8Array {
  const out: number[] = [];
  bytesField(out, 1, kv.key);
  intField(out, 2, kv.createRevision);
  intField(out, 3, kv.modRevision);
  intField(out, 4, kv.version);
  bytesField(out, 5, kv.value);
  intField(out, 6, kv.lease);
  return Uint8Array.from(out);
}

// ---- revision keys -----------------------------------------------------------------

export function revisionKey(main: number, sub: number, tombstone = false): Uint8Array {
  const b = Buffer.alloc(tombstone ? REVISION_BYTES + 1 : REVISION_BYTES);
  b.writeBigUInt64BE(BigInt(main), 0);
  b[8] = 0x5f; // '_'
  b.writeBigUInt64BE(BigInt(sub), 9);
  if (tombstone) b[REVISION_BYTES] = TOMBSTONE;
  return b;
}

function parseRevisionKey(k: Uint8Array): { main: number; sub: number; tombstone: boolean } {
  if ((k.length !== REVISION_BYTES && k.length !== REVISION_BYTES + 1) || k[8] !== 0x5f) throw new BackupFormatError("malformed revision key");
  const b = Buffer.from(k.buffer, k.byteOffset, k.byteLength);
  return { main: Number(b.readBigUInt64BE(0)), sub: Number(b.readBigUInt64BE(9)), tombstone: k.length === REVISION_BYTES + 1 && k[REVISION_BYTES] === TOMBSTONE };
}

function u64(n: number): Uint8Array {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}

// ---- the image ----------------------------------------------------------------------

/** Every retained entry of the key index in revision order, as etcd's key bucket holds them. */
export function keyBucketEntries(keys: readonly KeyIndex[], upTo = Number.MAX_SAFE_INTEGER): BoltEntry[] {
  const all: { main: number; sub: number; key: Uint8Array; kv: KeyValue | null }[] = [];
  for (const ki of keys) {
    for (const gen of ki.generations) for (const e of gen.entries) if (e.main <= upTo) all.push({ main: e.main, sub: e.sub, key: ki.key, kv: e.kv });
  }
  all.sort((a, b) => a.main - b.main || a.sub - b.sub);
  return all.map((e) => [
    revisionKey(e.main, e.sub, e.kv === null),
    encodeKeyValue(e.kv ?? { key: e.key, createRevision: 0, modRevision: 0, version: 0, value: new Uint8Array(0), lease: 0n }),
  ]);
}

/** The bbolt image of an MVCC state; `consistentIndex` is the Raft index it was taken at. */
export function encodeBackupImage(state: SnapshotState, consistentIndex: number): Uint8Array {
  const lease: BoltEntry[] = state.leases
    .map((l): BoltEntry => {
      const id = Buffer.alloc(8);
      id.writeBigInt64BE(l.id);
      const out: number[] = [];
      intField(out, 1, l.id);
      intField(out, 2, l.ttl);
      return [id, Uint8Array.from(out)];
    })
    .sort((a, b) => Buffer.compare(a[0], b[0]));
  const meta: BoltEntry[] = [[Buffer.from("consistent_index"), u64(consistentIndex)]];
  if (state.compactRevision > 0) {
    const rev = revisionKey(state.compactRevision, 0);
    meta.push([Buffer.from("finishedCompactRev"), rev], [Buffer.from("scheduledCompactRev"), rev]);
  }
  meta.sort((a, b) => Buffer.compare(a[0], b[0]));
  return writeBolt([
    { name: "key", entries: keyBucketEntries(state.keys) },
    { name: "lease", entries: lease },
    { name: "meta", entries: meta },
    ...EMPTY_BUCKETS.map((name) => ({ name, entries: [] })),
  ]);
}

/** The image followed by its sha256, as the Snapshot stream carries it. */
export function withChecksum(image: Uint8Array): Uint8Array {
  return Buffer.concat([image, createHash("sha256").update(image).digest()]);
}

/**
 * The image of a snapshot file: when the file is a whole number of 512-byte blocks plus
 * 32 bytes (etcd's test), the trailing sha256 must match and is cut off; otherwise the
 * file is taken as a bare image (a copied member database), as etcdctl does.
 */
export function verifiedImage(file: Uint8Array): Uint8Array {
  if (file.length % 512 !== SHA256_BYTES) return file;
  const image = file.subarray(0, file.length - SHA256_BYTES);
  const expected = Buffer.from(file.subarray(file.length - SHA256_BYTES)).toString("hex");
  const got = createHash("sha256").update(image).digest("hex");
  if (got !== expected) throw new BackupFormatError(`expected sha256 ${expected}, got ${got}`);
  return image;
}

export interface DecodedBackup {
  state: SnapshotState;
  consistentIndex: number;
}

/** Rebuilds the MVCC state from an image (without its checksum). */
export function decodeBackupImage(image: Uint8Array): DecodedBackup {
  let buckets: Map<string, BoltEntry[]>;
  try {
    buckets = readBolt(image);
  } catch (err) {
    if (err instanceof BoltFormatError) throw new BackupFormatError(`not a snapshot database: ${err.message}`);
    throw err;
  }
  const metaOf = (name: string): Uint8Array | undefined => buckets.get("meta")?.find(([k]) => Buffer.from(k).toString() === name)?.[1];
  const compactKey = metaOf("finishedCompactRev");
  const compactRevision = compactKey === undefined ? 0 : parseRevisionKey(compactKey).main;
  const ci = metaOf("consistent_index");
  const consistentIndex = ci !== undefined && ci.length === 8 ? Number(Buffer.from(ci).readBigUInt64BE(0)) : 0;

  const byKey = new Map<string, KeyIndex>();
  let revision = Math.max(1, compactRevision);
  let last: { main: number; sub: number } | undefined;
  for (const [k, v] of buckets.get("key") ?? []) {
    const { main, sub, tombstone } = parseRevisionKey(k);
    if (last !== undefined && (main < last.main || (main === last.main && sub <= last.sub))) throw new BackupFormatError("key bucket out of revision order");
    last = { main, sub };
    revision = Math.max(revision, main);
    const f = fields(v);
    const key = bytesOf(f, 1);
    if (key.length === 0) throw new BackupFormatError(`empty key at revision ${main}`);
    const id = keyId(key);
    let ki = byKey.get(id);
    if (ki === undefined) byKey.set(id, (ki = new KeyIndex(key, id)));
    const gens = ki.generations;
    const open = gens.length > 0 && gens[gens.length - 1].entries[gens[gens.length - 1].entries.length - 1].kv !== null;
    if (tombstone) {
      if (!open) throw new BackupFormatError(`tombstone of an absent key at revision ${main}`);
      gens[gens.length - 1].entries.push({ main, sub, kv: null });
      continue;
    }
    const entry: Entry = {
      main,
      sub,
      kv: { key: ki.key, createRevision: Number(int(f, 2)), modRevision: main, version: Number(int(f, 4)), value: bytesOf(f, 5), lease: int(f, 6) },
    };
    if (open) gens[gens.length - 1].entries.push(entry);
    else gens.push({ entries: [entry] });
  }
  const keys = [...byKey.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const ki of keys) ki.syncTail();
  const leases: LeaseInfo[] = (buckets.get("lease") ?? [])
    .map(([, v]) => {
      const f = fields(v);
      return { id: int(f, 1), ttl: Number(int(f, 2)) };
    })
    .filter((l) => l.id !== 0n)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { state: { revision, compactRevision, leases, keys }, consistentIndex };
}
