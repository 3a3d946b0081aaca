import { randomBytes } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { snapshotName, Snapshotter } from "./snapshotter.ts";
import { collectingLogger, meta, useTempDir } from "./testing/support.ts";
import type { Snapshot } from "./types.ts";

const dir = useTempDir("wal-snap-");

function snap(index: number, term: number, size = 100): Snapshot {
  return { metadata: meta(index, term, [1, 2, index]), data: randomBytes(size) };
}

async function snapFiles(): Promise<string[]> {
  return (await readdir(dir())).sort();
}

describe("Snapshotter", () => {
  it("returns undefined when there is no snapshot (or no directory)", async () => {
    expect(await new Snapshotter(join(dir(), "missing")).load()).toBeUndefined();
    expect(await new Snapshotter(dir()).load()).toBeUndefined();
  });

  it("round-trips metadata and data under <term>-<index>.snap", async () => {
    const s = new Snapshotter(dir());
    const original = snap(42, 3, 200_000);
    original.metadata.confState = {
      voters: [1, 2],
      learners: [9],
      votersOutgoing: [1, 2, 3],
      learnersNext: [3],
      autoLeave: true,
    };
    expect(await s.save(original)).toBe(snapshotName(3, 42));
    expect(await snapFiles()).toEqual(["0000000000000003-000000000000002a.snap"]);
    const loaded = await new Snapshotter(dir()).load();
    expect(loaded?.metadata).toEqual(original.metadata);
    expect(Buffer.compare(Buffer.from(loaded?.data ?? []), Buffer.from(original.data))).toBe(0);
  });

  it("keeps the newest two files and loads the newest", async () => {
    const s = new Snapshotter(dir());
    for (const [index, term] of [
      [10, 1],
      [20, 1],
      [30, 2],
      [40, 2],
    ]) {
      await s.save(snap(index, term));
    }
    expect(await snapFiles()).toEqual([snapshotName(2, 30), snapshotName(2, 40)]);
    expect((await s.load())?.metadata.index).toBe(40);
    const keep3 = new Snapshotter(dir(), { keep: 3 });
    await keep3.save(snap(50, 3));
    await keep3.save(snap(60, 3));
    expect((await keep3.list()).map((f) => f.index)).toEqual([60, 50, 40]);
  });

  it("pruneBefore deletes only the files older than an index", async () => {
    const s = new Snapshotter(dir(), { keep: 3 });
    for (const [index, term] of [[10, 1], [20, 1], [30, 2]]) await s.save(snap(index, term));
    expect(await s.pruneBefore(30)).toBe(2);
    expect(await snapFiles()).toEqual([snapshotName(2, 30)]);
    expect(await s.pruneBefore(30)).toBe(0);
    expect((await s.load())?.metadata.index).toBe(30);
  });

  it("ignores and removes a leftover temporary file", async () => {
    const { log, lines } = collectingLogger();
    const s = new Snapshotter(dir(), { log });
    await s.save(snap(5, 1));
    // a crash between the write and the rename of a newer snapshot
    const leftover = `${snapshotName(1, 9)}.tmp-abcdef012345`;
    await writeFile(join(dir(), leftover), (await readFile(join(dir(), snapshotName(1, 5)))).subarray(0, 50));
    expect((await s.load())?.metadata.index).toBe(5);
    expect(await snapFiles()).toEqual([snapshotName(1, 5)]);
    expect(lines.map((l) => l.msg)).toEqual(["snapshot: removed unfinished temporary file"]);
  });

  it.each([
    ["a flipped data byte", (b: Buffer) => ((b[b.length - 7] ^= 0x20), b)],
    ["a flipped metadata byte", (b: Buffer) => ((b[22] ^= 0x01), b)],
    ["a truncated file", (b: Buffer) => b.subarray(0, b.length - 1)],
    ["an extended file", (b: Buffer) => Buffer.concat([b, Buffer.from([0])])],
    ["an empty file", () => Buffer.alloc(0)],
  ])("falls back to the previous snapshot on %s, and reports it", async (_what, damage) => {
    const { log, lines } = collectingLogger();
    const s = new Snapshotter(dir(), { log });
    const older = snap(10, 1);
    await s.save(older);
    await s.save(snap(20, 2));
    const newest = join(dir(), snapshotName(2, 20));
    await writeFile(newest, damage(await readFile(newest)));
    const loaded = await s.load();
    expect(loaded?.metadata).toEqual(older.metadata);
    expect(Buffer.compare(Buffer.from(loaded?.data ?? []), Buffer.from(older.data))).toBe(0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "warn", fields: { file: newest } });
    // the damaged file is set aside, not deleted, and not tried again
    expect(await snapFiles()).toEqual([snapshotName(1, 10), `${snapshotName(2, 20)}.broken`]);
    expect((await s.load())?.metadata.index).toBe(10);
    expect(lines).toHaveLength(1);
  });

  it("rejects a valid file whose name does not match its metadata", async () => {
    const { log, lines } = collectingLogger();
    const s = new Snapshotter(dir(), { log });
    await s.save(snap(10, 1));
    const bytes = await readFile(join(dir(), snapshotName(1, 10)));
    await writeFile(join(dir(), snapshotName(1, 11)), bytes);
    expect((await s.load())?.metadata.index).toBe(10);
    expect(String(lines[0].fields.reason)).toMatch(/name/);
  });
});
