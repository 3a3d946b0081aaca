import { readdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WalCorruptError } from "./errors.ts";
import { collectingLogger, entry, hs, meta, useTempDir, view } from "./testing/support.ts";
import { segmentName, Wal, type WalOptions } from "./wal.ts";

const dir = useTempDir();

async function reopen(opts: WalOptions = {}) {
  const r = await Wal.open(dir(), opts);
  await r.wal.close();
  return r.state;
}

function range(from: number, to: number, term: number, size = 0) {
  const out = [];
  for (let i = from; i <= to; i++) out.push(entry(i, term, size ? `${i}:`.padEnd(size, "x") : undefined));
  return out;
}

async function segmentFiles(): Promise<string[]> {
  return (await readdir(dir())).filter((n) => n.endsWith(".wal")).sort();
}

describe("Wal", () => {
  it("creates an empty log with its first segment", async () => {
    const { wal, state } = await Wal.open(join(dir(), "nested", "wal"));
    expect(state).toEqual({ hardState: hs(0, 0, 0), entries: [] });
    expect(await readdir(join(dir(), "nested", "wal"))).toEqual(["0000000000000001-0000000000000001.wal"]);
    expect(segmentName(1, 255)).toBe("0000000000000001-00000000000000ff.wal");
    await wal.close();
  });

  it("round-trips hard state and entries across reopen", async () => {
    const { wal } = await Wal.open(dir());
    await wal.save(hs(1, 1, 0), [entry(1, 1), entry(2, 1, "conf", 1)]);
    await wal.save(hs(1, 1, 2), []);
    await wal.save(undefined, [entry(3, 1, "")]);
    expect(wal.lastIndex()).toBe(3);
    await wal.close();
    const state = await reopen();
    expect(state.hardState).toEqual(hs(1, 1, 2));
    expect(view(state.entries)).toEqual([
      [1, 1, 0, "e1t1"],
      [2, 1, 1, "conf"],
      [3, 1, 0, ""],
    ]);
    expect(state.snapshotMeta).toBeUndefined();

    // and keeps appending after a reopen
    const again = await Wal.open(dir());
    await again.wal.save(hs(2, 3, 3), [entry(4, 2)]);
    await again.wal.close();
    const s2 = await reopen();
    expect(s2.entries.map((e) => e.index)).toEqual([1, 2, 3, 4]);
    expect(s2.hardState).toEqual(hs(2, 3, 3));
  });

  it("resolves a save only after an fsync and counts records and bytes", async () => {
    const { wal } = await Wal.open(dir());
    const before = wal.stats();
    await wal.save(hs(1, 0, 0), [entry(1, 1)]);
    const after = wal.stats();
    expect(after.fsyncs).toBe(before.fsyncs + 1);
    expect(after.records).toBe(before.records + 2);
    expect(after.batches).toBe(before.batches + 1);
    expect(after.bytes).toBeGreaterThan(before.bytes + 2 * 13);
    // an unchanged hard state is not written again
    await wal.save(hs(1, 0, 0), [entry(2, 1)]);
    expect(wal.stats().records).toBe(after.records + 1);
    await wal.close();
  });

  it.each([
    ["in the thread pool", false],
    ["inline (syncInline)", true],
  ])("group-commits 100 concurrent saves into far fewer fsyncs, all durable: fsync %s", async (_how, inline) => {
    const { wal } = await Wal.open(dir());
    wal.syncInline = inline;
    const base = wal.stats();
    const order: number[] = [];
    const saves = Array.from({ length: 100 }, (_, i) => {
      const fsyncsAtCall = wal.stats().fsyncs;
      return wal.save(hs(1, 1, i + 1), [entry(i + 1, 1)]).then(() => {
        expect(wal.stats().fsyncs).toBeGreaterThan(fsyncsAtCall);
        order.push(i + 1);
      });
    });
    await Promise.all(saves);
    const s = wal.stats();
    expect(s.fsyncs - base.fsyncs).toBeLessThanOrEqual(3);
    expect(s.batches - base.batches).toBe(s.fsyncs - base.fsyncs);
    expect(order).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    await wal.close();
    const state = await reopen();
    expect(state.entries.map((e) => e.index)).toEqual(order);
    expect(state.hardState).toEqual(hs(1, 1, 100));
  });

  it("syncInline: the fsync blocks the caller, so a save resolves before the event loop turns; else it waits for the thread pool", async () => {
    const { wal } = await Wal.open(dir());
    // Inline: resolved before the loop reaches its check phase (setImmediate).
    wal.syncInline = true;
    const inline: string[] = [];
    const turned = new Promise<void>((resolve) => setImmediate(() => resolve(void inline.push("loop turned"))));
    await Promise.all([wal.save(undefined, [entry(1, 1)]).then(() => inline.push("saved")), turned]);
    expect(inline).toEqual(["saved", "loop turned"]);
    // Pooled: the fsync's completion is an I/O callback, so the save cannot resolve within the
    // current tick (process.nextTick and microtasks); whether it beats setImmediate is up to the pool.
    wal.syncInline = false;
    const pooled: string[] = [];
    const saved = wal.save(undefined, [entry(2, 1)]).then(() => pooled.push("saved"));
    await new Promise<void>((resolve) => process.nextTick(resolve));
    pooled.push("tick drained");
    await saved;
    expect(pooled).toEqual(["tick drained", "saved"]);
    expect(wal.stats().fsyncs).toBeGreaterThanOrEqual(2);
    await wal.close();
    expect((await reopen()).entries.map((e) => e.index)).toEqual([1, 2]);
  });

  it.each([
    ["in the thread pool", false],
    ["inline (syncInline)", true],
  ])("writeNow writes what is queued within the caller's step, once; later saves still group-commit: fsync %s", async (_how, inline) => {
    const { wal } = await Wal.open(dir());
    wal.syncInline = inline;
    const b0 = wal.stats();
    const first = wal.save(undefined, [entry(1, 1)]);
    expect(wal.stats().bytes).toBe(b0.bytes); // not before the next microtask
    wal.writeNow();
    const b1 = wal.stats();
    expect(b1.bytes).toBeGreaterThan(b0.bytes);
    expect(b1.records).toBe(b0.records + 1);
    wal.writeNow(); // nothing is due: no second write
    expect(wal.stats().bytes).toBe(b1.bytes);
    // Saved in the same step as writeNow: the next batch, written by the writer due then.
    const rest = [2, 3].map((i) => wal.save(undefined, [entry(i, 1)]));
    await Promise.all([first, ...rest]);
    const b2 = wal.stats();
    expect(b2.batches - b0.batches).toBe(2);
    expect(b2.records - b0.records).toBe(3);
    await wal.close();
    expect((await reopen()).entries.map((e) => e.index)).toEqual([1, 2, 3]);
  });

  it("a save issued during an in-flight fsync goes into the next batch", async () => {
    const { wal } = await Wal.open(dir());
    const f0 = wal.stats().fsyncs;
    const first = wal.save(undefined, [entry(1, 1)]);
    await Promise.resolve(); // the writer has started: its write+fsync is in flight
    const rest = [2, 3, 4].map((i) => wal.save(undefined, [entry(i, 1)]));
    await first;
    expect(wal.stats().fsyncs).toBe(f0 + 1);
    await Promise.all(rest);
    expect(wal.stats().fsyncs).toBe(f0 + 2);
    // an empty save just waits for what was issued before it
    const a = wal.save(undefined, [entry(5, 1)]);
    await wal.save(undefined, []);
    await a;
    expect(wal.stats().fsyncs).toBe(f0 + 3);
    // saves issued in the same tick share the first write
    await Promise.all([6, 7, 8].map((i) => wal.save(undefined, [entry(i, 1)])));
    expect(wal.stats().fsyncs).toBe(f0 + 4);
    await wal.close();
  });

  it("refuses gaps, non-contiguous runs, writes below a snapshot, and use after close", async () => {
    const { wal } = await Wal.open(dir());
    await wal.save(undefined, range(1, 3, 1));
    await expect(wal.save(undefined, [entry(5, 1)])).rejects.toThrow(/gap/);
    await expect(wal.save(undefined, [entry(4, 1), entry(6, 1)])).rejects.toThrow(/contiguous/);
    await wal.saveSnapshotMarker(meta(2, 1));
    await expect(wal.save(undefined, [entry(2, 2)])).rejects.toThrow(/below the snapshot/);
    // refused saves changed nothing
    await wal.save(undefined, [entry(4, 1)]);
    await wal.close();
    await expect(wal.save(undefined, [entry(5, 1)])).rejects.toThrow(/closed/);
    const state = await reopen();
    expect(state.entries.map((e) => e.index)).toEqual([3, 4]);
    expect(state.snapshotMeta).toEqual(meta(2, 1));
  });

  describe("overwrites", () => {
    it("the last write of an index wins and drops everything after it", async () => {
      const { wal } = await Wal.open(dir());
      await wal.save(hs(1, 1, 2), range(1, 5, 1));
      await wal.save(hs(2, 2, 2), [entry(3, 2, "new3"), entry(4, 2, "new4")]);
      await wal.close();
      let state = await reopen();
      expect(view(state.entries)).toEqual([
        [1, 1, 0, "e1t1"],
        [2, 1, 0, "e2t1"],
        [3, 2, 0, "new3"],
        [4, 2, 0, "new4"],
      ]);
      expect(state.hardState).toEqual(hs(2, 2, 2));

      const { wal: w2 } = await Wal.open(dir());
      expect(w2.lastIndex()).toBe(4);
      await w2.save(undefined, [entry(2, 3, "newest2")]);
      await w2.save(undefined, [entry(3, 3)]);
      await w2.close();
      state = await reopen();
      expect(view(state.entries)).toEqual([
        [1, 1, 0, "e1t1"],
        [2, 3, 0, "newest2"],
        [3, 3, 0, "e3t3"],
      ]);
    });

    it("works across segments", async () => {
      const { wal } = await Wal.open(dir(), { segmentBytes: 300 });
      for (let i = 1; i <= 20; i++) await wal.save(undefined, [entry(i, 1, "x".repeat(40))]);
      expect((await segmentFiles()).length).toBeGreaterThan(3);
      await wal.save(undefined, [entry(3, 2, "after leader change")]);
      await wal.close();
      const state = await reopen({ segmentBytes: 300 });
      expect(state.entries.map((e) => [e.index, e.term])).toEqual([
        [1, 1],
        [2, 1],
        [3, 2],
      ]);
    });
  });

  describe("snapshot markers", () => {
    it("a marker on a held entry compacts the replayed log", async () => {
      const { wal } = await Wal.open(dir());
      await wal.save(hs(1, 1, 5), range(1, 6, 1));
      await wal.saveSnapshotMarker(meta(4, 1));
      await wal.close();
      const state = await reopen();
      expect(state.snapshotMeta).toEqual(meta(4, 1));
      expect(state.entries.map((e) => e.index)).toEqual([5, 6]);
    });

    it("an installed snapshot (index not held, or held with another term) discards the log", async () => {
      const { wal } = await Wal.open(dir());
      await wal.save(hs(1, 1, 1), range(1, 6, 1));
      await wal.saveSnapshotMarker(meta(4, 2)); // entry 4 has term 1: the log diverged
      await wal.save(undefined, [entry(5, 2)]);
      await wal.close();
      let state = await reopen();
      expect(state.entries.map((e) => [e.index, e.term])).toEqual([[5, 2]]);

      const { wal: w2 } = await Wal.open(dir());
      await w2.saveSnapshotMarker(meta(100, 3, [1, 2]));
      await expect(w2.save(undefined, [entry(100, 3)])).rejects.toThrow(/below/);
      await w2.save(undefined, [entry(101, 3)]);
      await w2.close();
      state = await reopen();
      expect(state.snapshotMeta).toEqual(meta(100, 3, [1, 2]));
      expect(state.entries.map((e) => e.index)).toEqual([101]);
    });
  });

  describe("segments", () => {
    it("roll by size, are named <seq>-<firstIndex>, and replay in order", async () => {
      const { wal } = await Wal.open(dir(), { segmentBytes: 1024 });
      await wal.save(hs(1, 2, 0), []);
      for (let i = 1; i <= 60; i += 3) await wal.save(hs(1, 2, i), range(i, i + 2, 1, 90));
      await wal.close();
      const names = await segmentFiles();
      expect(names.length).toBeGreaterThan(5);
      const parsed = names.map((n) => n.slice(0, -4).split("-").map((h) => parseInt(h, 16)));
      parsed.forEach(([seq], i) => expect(seq).toBe(i + 1));
      expect(parsed[0][1]).toBe(1);
      for (let i = 1; i < parsed.length; i++) {
        // every save wrote 3 entries, so each segment starts right after a save
        expect((parsed[i][1] - 1) % 3).toBe(0);
        expect(parsed[i][1]).toBeGreaterThan(parsed[i - 1][1]);
      }
      const state = await reopen({ segmentBytes: 1024 });
      expect(state.entries.map((e) => e.index)).toEqual(range(1, 60, 1).map((e) => e.index));
      expect(state.entries[59].data.length).toBe(90);
      expect(state.hardState).toEqual(hs(1, 2, 58));
    });

    it("releaseBefore deletes whole segments below the snapshot and keeps state", async () => {
      const { wal } = await Wal.open(dir(), { segmentBytes: 512 });
      await wal.save(hs(7, 3, 1), [entry(1, 7)]); // the only hard state, in segment 1
      for (let i = 2; i <= 50; i++) await wal.save(undefined, [entry(i, 7, "y".repeat(60))]);
      const before = await segmentFiles();
      expect(before.length).toBeGreaterThan(5);
      const firstIndexes = before.map((n) => parseInt(n.slice(17, 33), 16));

      // nothing is released beyond the latest snapshot marker
      expect(await wal.releaseBefore(40)).toBe(0);
      await wal.saveSnapshotMarker(meta(30, 7));
      const released = await wal.releaseBefore(40); // clamped to 31: entries up to the marker's 30 may go
      const expected = firstIndexes.filter((_, i) => i + 1 < firstIndexes.length && firstIndexes[i + 1] <= 31);
      expect(released).toBe(expected.length);
      expect(released).toBeGreaterThan(0);
      const after = await segmentFiles();
      expect(after).toEqual(before.slice(released));
      expect(parseInt(after[0].slice(17, 33), 16)).toBeLessThanOrEqual(30);
      expect(wal.stats().segments).toBe(after.length);
      await wal.save(undefined, [entry(51, 7)]);
      await wal.close();

      const state = await reopen({ segmentBytes: 512 });
      expect(state.hardState).toEqual(hs(7, 3, 1));
      expect(state.snapshotMeta).toEqual(meta(30, 7));
      expect(state.entries.map((e) => e.index)).toEqual(range(31, 51, 7).map((e) => e.index));
    });

    it("cut starts a new segment after the queued saves, so the one holding a snapshot's entries can be released", async () => {
      const { wal } = await Wal.open(dir());
      await wal.save(hs(2, 1, 20), range(1, 20, 2, 1000));
      await wal.saveSnapshotMarker(meta(20, 2));
      // Without a cut the current segment stays, however far the snapshot reaches.
      expect(await wal.releaseBefore(21)).toBe(0);
      const cut = wal.cut();
      const saved = wal.save(hs(2, 1, 20), []);
      await Promise.all([cut, saved]);
      expect(await segmentFiles()).toEqual([segmentName(1, 1), segmentName(2, 21)]);
      // A cut of a segment nothing was written to keeps it.
      await wal.cut();
      expect(await segmentFiles()).toHaveLength(2);
      expect(await wal.releaseBefore(21)).toBe(1);
      expect(await segmentFiles()).toEqual([segmentName(2, 21)]);
      await wal.save(hs(3, 1, 21), [entry(21, 3)]);
      await wal.close();

      const state = await reopen();
      expect(state.snapshotMeta).toEqual(meta(20, 2));
      expect(state.hardState).toEqual(hs(3, 1, 21));
      expect(state.entries.map((e) => e.index)).toEqual([21]);
    });

    it("refuses to start when a middle segment is missing", async () => {
      const { wal } = await Wal.open(dir(), { segmentBytes: 256 });
      for (let i = 1; i <= 30; i++) await wal.save(undefined, [entry(i, 1, "z".repeat(50))]);
      await wal.close();
      const names = await segmentFiles();
      expect(names.length).toBeGreaterThan(3);
      await rename(join(dir(), names[1]), join(dir(), `${names[1]}.moved`));
      const err = await Wal.open(dir()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WalCorruptError);
      expect((err as WalCorruptError).reason).toMatch(/segment 2 is missing/);
      expect((err as WalCorruptError).file).toBe(join(dir(), names[2]));
    });

    it("removes an unfinished segment file and reports it", async () => {
      const { wal } = await Wal.open(dir());
      await wal.save(undefined, [entry(1, 1)]);
      await wal.close();
      await writeFile(join(dir(), `${segmentName(2, 2)}.tmp`), "partial");
      const { log, lines } = collectingLogger();
      const state = await reopen({ log });
      expect(state.entries.length).toBe(1);
      expect(await readdir(dir())).toEqual([segmentName(1, 1)]);
      expect(lines.map((l) => l.msg)).toEqual(["wal: removed unfinished segment file"]);
    });
  });
});
