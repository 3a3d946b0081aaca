import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collectingLogger, entry, hs, useTempDir, view } from "./testing/support.ts";
import { RECORD_HEADER_SIZE } from "./record.ts";
import { segmentName, Wal } from "./wal.ts";

const dir = useTempDir("wal-prealloc-");
const STEP = 8192;

function segmentFile(): string {
  return join(dir(), segmentName(1, 1));
}

/**
 * Where the last record that ends a batch starts, found by walking the records from the
 * segment's start (record.ts framing) up to the zeros ahead. Not by searching for its kind
 * byte: the crc of a record is random (seeded per segment) and may hold the same byte.
 */
function lastBatchEndRecord(bytes: Buffer): number {
  let last = -1;
  for (let pos = 0; pos + RECORD_HEADER_SIZE <= bytes.length; ) {
    const len = bytes.readUInt32LE(pos);
    const kind = bytes[pos + 4];
    if (len === 0 && kind === 0) break;
    if (kind & 0x80) last = pos;
    pos += RECORD_HEADER_SIZE + len;
  }
  return last;
}

describe("Wal preallocation (preallocateBytes)", () => {
  it("writes zeros ahead of the log's end, overwrites them with later batches, and reopens clean", async () => {
    const { wal } = await Wal.open(dir(), { preallocateBytes: STEP });
    await wal.save(hs(1, 1, 0), [entry(1, 1)]);
    expect((await stat(segmentFile())).size).toBe(STEP);
    await wal.save(hs(1, 1, 1), [entry(2, 1, "two")]);
    expect((await stat(segmentFile())).size, "the second batch overwrote zeros").toBe(STEP);
    await wal.save(undefined, [entry(3, 1, "x".repeat(STEP))]);
    expect((await stat(segmentFile())).size, "a batch past the zeros extends them to the next step beyond its end").toBe(2 * STEP);
    await wal.close();

    const { log, lines } = collectingLogger();
    const again = await Wal.open(dir(), { log, preallocateBytes: STEP });
    expect(lines).toEqual([]);
    expect(view(again.state.entries).map(([i, t]) => [i, t])).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
    ]);
    expect(again.state.hardState).toEqual(hs(1, 1, 1));
    // appends continue at the log's end, inside the zeros
    await again.wal.save(undefined, [entry(4, 1)]);
    await again.wal.close();
    expect((await stat(segmentFile())).size).toBe(2 * STEP);
    const third = await Wal.open(dir(), { log });
    await third.wal.close();
    expect(third.state.entries.map((e) => e.index)).toEqual([1, 2, 3, 4]);
    expect(lines).toEqual([]);
  });

  it("a last batch that reached the disk only in part is still a torn tail, cut and reported", async () => {
    const { wal } = await Wal.open(dir(), { preallocateBytes: STEP });
    await wal.save(undefined, [entry(1, 1)]);
    const { size: allocated } = await stat(segmentFile());
    const bytes = await readFile(segmentFile());
    const lastStart = lastBatchEndRecord(bytes); // the batch-end entry record
    await wal.close();
    // of the only batch, the first page's tail is lost: zeros from the middle of the record
    const torn = Buffer.from(bytes);
    torn.fill(0, lastStart + 20);
    await writeFile(segmentFile(), torn);
    const { log, lines } = collectingLogger();
    const r = await Wal.open(dir(), { log, preallocateBytes: STEP });
    await r.wal.close();
    expect(r.state.entries).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "warn", fields: { offset: lastStart } });
    expect((await stat(segmentFile())).size).toBeLessThan(allocated);
  });

  it("zeros after a record that did not end its batch are a torn tail", async () => {
    const { wal } = await Wal.open(dir(), { preallocateBytes: STEP });
    await wal.save(undefined, [entry(1, 1, "first"), entry(2, 1, "second")]);
    await wal.close();
    const bytes = await readFile(segmentFile());
    const second = bytes.indexOf(Buffer.from("first")) + "first".length;
    const torn = Buffer.from(bytes);
    torn.fill(0, second);
    await writeFile(segmentFile(), torn);
    const { log, lines } = collectingLogger();
    const r = await Wal.open(dir(), { log });
    await r.wal.close();
    expect(lines.filter((l) => l.level === "warn")).toHaveLength(1);
    expect(lines[0].fields.offset).toBe(second);
  });

  it("segments that rolled keep their zeros and replay in order", async () => {
    const { wal } = await Wal.open(dir(), { preallocateBytes: STEP, segmentBytes: 1024 });
    for (let i = 1; i <= 12; i++) await wal.save(hs(1, 1, i - 1), [entry(i, 1, "q".repeat(300))]);
    await wal.close();
    const names = (await readdir(dir())).filter((n) => n.endsWith(".wal")).sort();
    expect(names.length).toBeGreaterThan(2);
    expect((await stat(join(dir(), names[0]))).size).toBe(STEP);
    const { log, lines } = collectingLogger();
    const r = await Wal.open(dir(), { log, segmentBytes: 1024 });
    await r.wal.close();
    expect(lines).toEqual([]);
    expect(r.state.entries.map((e) => e.index)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(r.state.hardState).toEqual(hs(1, 1, 11));
  });
});
