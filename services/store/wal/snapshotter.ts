// Snapshot files: `<term:16 hex>-<index:16 hex>.snap`, written atomically
// (temporary file, fsync, rename, fsync of the directory) and checksummed.
//
//   file := magic:u32le version:u8 bodyLen:u64le crc:u32le body
//   body := metaLen:u32le meta data
//
// crc is CRC-32C over magic, version, bodyLen and body. Write the snapshot
// file before the WAL's snapshot marker, so that a marker always has its file.

import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { decodeSnapshotMeta, encodeSnapshotMeta } from "./codec.ts";
import { crc32c } from "./crc32c.ts";
import { fsyncDir, hex16, isNotFound, writeFully } from "./fsutil.ts";
import { stderrLogger, type Snapshot, type WalLogger } from "./types.ts";

const MAGIC = 0x504e5352; // "RSNP" little-endian
const VERSION = 1;
const HEADER_SIZE = 17;
const SNAP_RE = /^([0-9a-f]{16})-([0-9a-f]{16})\.snap$/;
const TMP_RE = /\.snap\.tmp-[0-9a-f]+$/;

export interface SnapshotterOptions {
  log?: WalLogger;
  /** How many snapshot files to keep after a save. Default 2. */
  keep?: number;
}

export interface SnapshotFile {
  name: string;
  term: number;
  index: number;
}

export function snapshotName(term: number, index: number): string {
  return `${hex16(term)}-${hex16(index)}.snap`;
}

class BadSnapshot extends Error {}

export class Snapshotter {
  private readonly log: WalLogger;
  private readonly keep: number;
  /** Temporary files of saves in progress in this instance (never cleaned up under them). */
  private readonly inProgress = new Set<string>();

  constructor(
    readonly dir: string,
    opts: SnapshotterOptions = {},
  ) {
    this.log = opts.log ?? stderrLogger;
    this.keep = Math.max(1, opts.keep ?? 2);
  }

  /** Writes `snap` atomically, then prunes older snapshot files. */
  async save(snap: Snapshot): Promise<string> {
    const { index, term } = snap.metadata;
    const name = snapshotName(term, index);
    const meta = encodeSnapshotMeta(snap.metadata);
    const bodyLen = 4 + meta.length + snap.data.length;

    const head = new Uint8Array(HEADER_SIZE + 4 + meta.length);
    const dv = new DataView(head.buffer);
    dv.setUint32(0, MAGIC, true);
    head[4] = VERSION;
    dv.setUint32(5, bodyLen % 0x100000000, true);
    dv.setUint32(9, Math.floor(bodyLen / 0x100000000), true);
    dv.setUint32(HEADER_SIZE, meta.length, true);
    head.set(meta, HEADER_SIZE + 4);
    let crc = crc32c(head, 0, 0, 13);
    crc = crc32c(head, crc, HEADER_SIZE);
    crc = crc32c(snap.data, crc);
    dv.setUint32(13, crc, true);

    await mkdir(this.dir, { recursive: true });
    const tmpName = `${name}.tmp-${randomBytes(6).toString("hex")}`;
    const tmp = join(this.dir, tmpName);
    this.inProgress.add(tmpName);
    try {
      const fh = await open(tmp, "w");
      try {
        await writeFully(fh, head, 0);
        await writeFully(fh, snap.data, head.length);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, join(this.dir, name));
      await fsyncDir(this.dir);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    } finally {
      this.inProgress.delete(tmpName);
    }
    await this.prune();
    return name;
  }

  /** Snapshot files, newest (highest index, then term) first. */
  async list(): Promise<SnapshotFile[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if (isNotFound(err)) return [];
      throw err;
    }
    const files: SnapshotFile[] = [];
    for (const name of names) {
      const m = SNAP_RE.exec(name);
      if (m) files.push({ name, term: parseInt(m[1], 16), index: parseInt(m[2], 16) });
    }
    return files.sort((a, b) => b.index - a.index || b.term - a.term);
  }

  /**
   * The newest valid snapshot, or undefined. A damaged file is reported,
   * renamed to `<name>.broken` and skipped; leftover temporary files are removed.
   */
  async load(): Promise<Snapshot | undefined> {
    await this.removeLeftovers();
    for (const f of await this.list()) {
      const path = join(this.dir, f.name);
      try {
        return decodeSnapshotFile(await readFile(path), f);
      } catch (err) {
        if (!(err instanceof BadSnapshot)) throw err;
        this.log("warn", "snapshot: damaged snapshot file skipped", { file: path, reason: err.message });
        await rename(path, `${path}.broken`);
        await fsyncDir(this.dir);
      }
    }
    return undefined;
  }

  /**
   * Deletes the snapshot files older than `index` (after a defragmentation: once
   * the WAL marks the snapshot at `index`, an older file can no longer be opened
   * with the log, so it only holds space). Returns how many were deleted.
   */
  async pruneBefore(index: number): Promise<number> {
    return this.remove((await this.list()).filter((f) => f.index < index));
  }

  private async removeLeftovers(): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    for (const name of names) {
      if (!TMP_RE.test(name) || this.inProgress.has(name)) continue;
      await unlink(join(this.dir, name));
      this.log("info", "snapshot: removed unfinished temporary file", { file: join(this.dir, name) });
    }
  }

  private async prune(): Promise<void> {
    await this.remove((await this.list()).slice(this.keep));
  }

  private async remove(files: readonly SnapshotFile[]): Promise<number> {
    for (const f of files) await unlink(join(this.dir, f.name));
    if (files.length > 0) await fsyncDir(this.dir);
    return files.length;
  }
}

function decodeSnapshotFile(buf: Uint8Array, f: SnapshotFile): Snapshot {
  if (buf.length < HEADER_SIZE + 4) throw new BadSnapshot("file too short");
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (dv.getUint32(0, true) !== MAGIC) throw new BadSnapshot("bad magic");
  if (buf[4] !== VERSION) throw new BadSnapshot(`unsupported version ${buf[4]}`);
  const bodyLen = dv.getUint32(9, true) * 0x100000000 + dv.getUint32(5, true);
  if (HEADER_SIZE + bodyLen !== buf.length) throw new BadSnapshot("length mismatch (truncated or extended)");
  let crc = crc32c(buf, 0, 0, 13);
  crc = crc32c(buf, crc, HEADER_SIZE);
  if (crc !== dv.getUint32(13, true)) throw new BadSnapshot("checksum mismatch");
  const metaLen = dv.getUint32(HEADER_SIZE, true);
  const metaStart = HEADER_SIZE + 4;
  if (metaStart + metaLen > buf.length) throw new BadSnapshot("metadata overruns the file");
  let metadata;
  try {
    metadata = decodeSnapshotMeta(buf.subarray(metaStart, metaStart + metaLen));
  } catch (err) {
    throw new BadSnapshot(`undecodable metadata: ${String(err)}`);
  }
  if (metadata.index !== f.index || metadata.term !== f.term) {
    throw new BadSnapshot("metadata does not match the file name");
  }
  return { metadata, data: buf.slice(metaStart + metaLen) };
}
