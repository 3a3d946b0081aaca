/**
 * The bbolt file format (etcd's backend database), written and read by hand so that
 * the store's backups are files etcd's tools accept: `etcdctl snapshot status` opens
 * them with bbolt and checks every page, `etcdctl snapshot restore` turns them into an
 * etcd member. Pure: bytes in, bytes out.
 *
 * Layout written (page size 4096, little-endian as bbolt on amd64/arm64):
 *   page 0, 1   meta pages (magic 0xED0CDAED, version 2, FNV-1a 64 checksum of the
 *               meta fields before it); meta 1 has the higher txid;
 *   page 2      an empty freelist;
 *   page 3..    for each bucket its leaf pages, then branch levels up to its root,
 *               then the root bucket's leaf listing the buckets (never inline).
 * A page whose elements do not fit spans overflow pages, as bbolt's do.
 *
 * Page header: id u64, flags u16, count u16, overflow u32. Leaf element: flags u32,
 * pos u32, ksize u32, vsize u32 (pos counts from the element itself); branch element:
 * pos u32, ksize u32, pgid u64. A bucket's value is its header (root pgid u64,
 * sequence u64), followed by an inline page when the root is 0 (read, never written).
 */

export const BOLT_PAGE_SIZE = 4096;
const MAGIC = 0xed0cdaed;
const VERSION = 2;
const PAGE_HEADER = 16;
const ELEMENT = 16;
const BRANCH = 0x01;
const LEAF = 0x02;
const META = 0x04;
const FREELIST = 0x10;
const BUCKET_LEAF = 0x01;
const META_CHECKSUMMED = 56;

export type BoltEntry = readonly [key: Uint8Array, value: Uint8Array];

/** One top-level bucket: its name and its entries in key byte order. */
export interface BoltBucket {
  name: string;
  entries: readonly BoltEntry[];
}

export class BoltFormatError extends Error {}

/** FNV-1a 64 (Go's hash/fnv New64a), as bbolt checksums its meta pages. */
export function fnv1a64(bytes: Uint8Array): bigint {
  let h = 0xcbf29ce484222325n;
  for (const b of bytes) {
    h ^= BigInt(b);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h;
}

function compare(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

/** Pages written so far, each a multiple of the page size, with ids from their position. */
class PageWriter {
  private readonly chunks: Uint8Array[] = [];
  private next = 0;

  constructor(readonly pageSize: number) {}

  get pageCount(): number {
    return this.next;
  }

  /** Allocates a page of at least `bytes` bytes; returns its id and a zeroed buffer with the header written. */
  page(bytes: number, flags: number, count: number): { id: number; buf: Buffer } {
    const pages = Math.max(1, Math.ceil(bytes / this.pageSize));
    const buf = Buffer.alloc(pages * this.pageSize);
    const id = this.next;
    this.next += pages;
    buf.writeBigUInt64LE(BigInt(id), 0);
    buf.writeUInt16LE(flags, 8);
    buf.writeUInt16LE(count, 10);
    buf.writeUInt32LE(pages - 1, 12);
    this.chunks.push(buf);
    return { id, buf };
  }

  finish(): Uint8Array {
    return Buffer.concat(this.chunks);
  }
}

interface Child {
  firstKey: Uint8Array;
  id: number;
}

function leafPage(w: PageWriter, entries: readonly (BoltEntry & { flags?: number })[], flagsOf: (i: number) => number): Child {
  const size = PAGE_HEADER + entries.reduce((n, [k, v]) => n + ELEMENT + k.length + v.length, 0);
  const { id, buf } = w.page(size, LEAF, entries.length);
  let data = PAGE_HEADER + entries.length * ELEMENT;
  entries.forEach(([k, v], i) => {
    const at = PAGE_HEADER + i * ELEMENT;
    buf.writeUInt32LE(flagsOf(i), at);
    buf.writeUInt32LE(data - at, at + 4);
    buf.writeUInt32LE(k.length, at + 8);
    buf.writeUInt32LE(v.length, at + 12);
    buf.set(k, data);
    buf.set(v, data + k.length);
    data += k.length + v.length;
  });
  return { firstKey: entries[0]?.[0] ?? new Uint8Array(0), id };
}

function branchPage(w: PageWriter, children: readonly Child[]): Child {
  const size = PAGE_HEADER + children.reduce((n, c) => n + ELEMENT + c.firstKey.length, 0);
  const { id, buf } = w.page(size, BRANCH, children.length);
  let data = PAGE_HEADER + children.length * ELEMENT;
  children.forEach((c, i) => {
    const at = PAGE_HEADER + i * ELEMENT;
    buf.writeUInt32LE(data - at, at);
    buf.writeUInt32LE(c.firstKey.length, at + 4);
    buf.writeBigUInt64LE(BigInt(c.id), at + 8);
    buf.set(c.firstKey, data);
    data += c.firstKey.length;
  });
  return { firstKey: children[0].firstKey, id };
}

/** Splits items into runs that fit one page (at least one item and at most 65,535 per run). */
function runs<T>(items: readonly T[], sizeOf: (item: T) => number, pageSize: number): T[][] {
  const out: T[][] = [];
  let run: T[] = [];
  let used = PAGE_HEADER;
  for (const item of items) {
    const size = ELEMENT + sizeOf(item);
    if (run.length > 0 && (used + size > pageSize || run.length === 0xffff)) {
      out.push(run);
      run = [];
      used = PAGE_HEADER;
    }
    run.push(item);
    used += size;
  }
  if (run.length > 0 || out.length === 0) out.push(run);
  return out;
}

/** Writes one bucket's tree; returns its root page id. */
function writeTree(w: PageWriter, entries: readonly BoltEntry[]): number {
  let level = runs(entries, ([k, v]) => k.length + v.length, w.pageSize).map((run) => leafPage(w, run, () => 0));
  while (level.length > 1) {
    level = runs(level, (c) => c.firstKey.length, w.pageSize).map((run) => branchPage(w, run));
  }
  return level[0].id;
}

function writeMeta(buf: Buffer, pageSize: number, root: number, pageCount: number, txid: number): void {
  const m = PAGE_HEADER;
  buf.writeUInt32LE(MAGIC, m);
  buf.writeUInt32LE(VERSION, m + 4);
  buf.writeUInt32LE(pageSize, m + 8);
  buf.writeUInt32LE(0, m + 12);
  buf.writeBigUInt64LE(BigInt(root), m + 16);
  buf.writeBigUInt64LE(0n, m + 24);
  buf.writeBigUInt64LE(2n, m + 32);
  buf.writeBigUInt64LE(BigInt(pageCount), m + 40);
  buf.writeBigUInt64LE(BigInt(txid), m + 48);
  buf.writeBigUInt64LE(fnv1a64(buf.subarray(m, m + META_CHECKSUMMED)), m + META_CHECKSUMMED);
}

/** A bbolt database file holding the given top-level buckets (names unique; entries in key order). */
export function writeBolt(buckets: readonly BoltBucket[], pageSize = BOLT_PAGE_SIZE): Uint8Array {
  const w = new PageWriter(pageSize);
  const meta0 = w.page(pageSize, META, 0).buf;
  const meta1 = w.page(pageSize, META, 0).buf;
  w.page(pageSize, FREELIST, 0);
  const sorted = [...buckets].sort((a, b) => compare(Buffer.from(a.name), Buffer.from(b.name)));
  const rootEntries: BoltEntry[] = sorted.map((b) => {
    for (let i = 1; i < b.entries.length; i++) {
      if (compare(b.entries[i - 1][0], b.entries[i][0]) >= 0) throw new BoltFormatError(`bucket ${b.name}: keys not in order`);
    }
    const header = Buffer.alloc(16);
    header.writeBigUInt64LE(BigInt(writeTree(w, b.entries)), 0);
    return [Buffer.from(b.name), header];
  });
  const root = leafPage(w, rootEntries, () => BUCKET_LEAF).id;
  writeMeta(meta0, pageSize, root, w.pageCount, 0);
  writeMeta(meta1, pageSize, root, w.pageCount, 1);
  return w.finish();
}

// ---- reading ------------------------------------------------------------------

interface Meta {
  pageSize: number;
  root: number;
  pageCount: number;
  txid: bigint;
}

function readMeta(file: Buffer, offset: number): Meta | undefined {
  const m = offset + PAGE_HEADER;
  if (file.length < m + META_CHECKSUMMED + 8) return undefined;
  if (file.readUInt32LE(m) !== MAGIC || file.readUInt32LE(m + 4) !== VERSION) return undefined;
  if (fnv1a64(file.subarray(m, m + META_CHECKSUMMED)) !== file.readBigUInt64LE(m + META_CHECKSUMMED)) return undefined;
  return {
    pageSize: file.readUInt32LE(m + 8),
    root: Number(file.readBigUInt64LE(m + 16)),
    pageCount: Number(file.readBigUInt64LE(m + 40)),
    txid: file.readBigUInt64LE(m + 48),
  };
}

class BoltReader {
  constructor(
    private readonly file: Buffer,
    private readonly meta: Meta,
  ) {}

  private pageAt(id: number): number {
    if (id < 3 || id >= this.meta.pageCount) throw new BoltFormatError(`page ${id} out of bounds`);
    const offset = id * this.meta.pageSize;
    if (offset + PAGE_HEADER > this.file.length) throw new BoltFormatError(`page ${id} beyond the end of the file`);
    return offset;
  }

  /** Calls fn for every leaf element under the page at `offset` (a page id's offset, or an inline page). */
  walk(offset: number, fn: (flags: number, key: Buffer, value: Buffer) => void, depth = 0): void {
    if (depth > 64) throw new BoltFormatError("tree too deep");
    const f = this.file;
    const flags = f.readUInt16LE(offset + 8);
    const count = f.readUInt16LE(offset + 10);
    for (let i = 0; i < count; i++) {
      const at = offset + PAGE_HEADER + i * ELEMENT;
      if (at + ELEMENT > f.length) throw new BoltFormatError("element beyond the end of the file");
      if (flags & BRANCH) {
        this.walk(this.pageAt(Number(f.readBigUInt64LE(at + 8))), fn, depth + 1);
      } else if (flags & LEAF) {
        const k = at + f.readUInt32LE(at + 4);
        const ksize = f.readUInt32LE(at + 8);
        const vsize = f.readUInt32LE(at + 12);
        if (k + ksize + vsize > f.length) throw new BoltFormatError("element data beyond the end of the file");
        fn(f.readUInt32LE(at), f.subarray(k, k + ksize), f.subarray(k + ksize, k + ksize + vsize));
      } else {
        throw new BoltFormatError(`page at byte ${offset}: not a branch or leaf page (flags ${flags})`);
      }
    }
  }

  /** The entries of a bucket given its header value (root page, or an inline page after the header). */
  bucketEntries(header: Buffer): BoltEntry[] {
    if (header.length < 16) throw new BoltFormatError("bucket header too short");
    const root = Number(header.readBigUInt64LE(0));
    const out: BoltEntry[] = [];
    const collect = (flags: number, k: Buffer, v: Buffer) => {
      if ((flags & BUCKET_LEAF) === 0) out.push([k, v]);
    };
    if (root !== 0) {
      this.walk(this.pageAt(root), collect);
    } else {
      // An inline bucket: its page follows the header inside the value.
      const inline = Buffer.from(header.subarray(16));
      if (inline.length >= PAGE_HEADER) new BoltReader(inline, this.meta).walk(0, collect);
    }
    return out;
  }

  topLevel(): Map<string, BoltEntry[]> {
    const buckets = new Map<string, BoltEntry[]>();
    this.walk(this.pageAt(this.meta.root), (flags, key, value) => {
      if (flags & BUCKET_LEAF) buckets.set(key.toString("latin1"), this.bucketEntries(value));
    });
    return buckets;
  }
}

/** The top-level buckets of a bbolt file (by name, entries in key order); nested buckets are skipped. */
export function readBolt(bytes: Uint8Array): Map<string, BoltEntry[]> {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const m0 = readMeta(file, 0);
  const m1 = m0 === undefined ? readMeta(file, BOLT_PAGE_SIZE) : readMeta(file, m0.pageSize);
  const metas = [m0, m1].filter((m): m is Meta => m !== undefined);
  if (metas.length === 0) throw new BoltFormatError("not a bbolt database (no valid meta page)");
  const meta = metas.reduce((a, b) => (b.txid > a.txid ? b : a));
  if (meta.pageSize < 512 || meta.pageSize > 65536) throw new BoltFormatError(`bad page size ${meta.pageSize}`);
  return new BoltReader(file, meta).topLevel();
}
