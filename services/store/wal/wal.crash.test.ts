import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WalCorruptError } from "./errors.ts";
import { SEGMENT_HEADER_SIZE } from "./record.ts";
import { payloadFor } from "./testdata/crash-writer.ts";
import { collectingLogger, entry, hs, meta, useTempDir, view } from "./testing/support.ts";
import type { Entry, HardState, SnapshotMetadata } from "./types.ts";
import { segmentName, Wal, type WalState } from "./wal.ts";

const dir = useTempDir("wal-crash-");
const REPO_ROOT = join(import.meta.dirname, "..", "..", "..");

interface Op {
  hs?: HardState;
  entries?: Entry[];
  marker?: SnapshotMetadata;
}

/** Every op writes exactly one record as its own batch. */
const OPS: Op[] = [
  { entries: [entry(1, 1)] },
  { entries: [entry(2, 1, "two")] },
  { hs: hs(1, 1, 1) },
  { entries: [entry(3, 1, "x".repeat(40))] },
  { entries: [entry(2, 2, "over")] }, // leader change: drops 3
  { hs: hs(2, 1, 2) },
  { marker: meta(1, 1) }, // compaction at 1
  { entries: [entry(3, 2, "three")] },
];

/** Independent model of the replayed state, op by op. */
function modelStates(ops: Op[]): WalState[] {
  let s: WalState = { hardState: hs(0, 0, 0), entries: [] };
  const out = [s];
  for (const op of ops) {
    s = { ...s, entries: [...s.entries] };
    for (const e of op.entries ?? []) s.entries = [...s.entries.filter((x) => x.index < e.index), e];
    if (op.hs) s.hardState = op.hs;
    if (op.marker) {
      const m = op.marker;
      s.entries = s.entries.filter((x) => x.index > m.index);
      s.snapshotMeta = m;
    }
    out.push(s);
  }
  return out;
}

async function apply(wal: Wal, op: Op): Promise<void> {
  if (op.marker) await wal.saveSnapshotMarker(op.marker);
  else await wal.save(op.hs, op.entries ?? []);
}

/** Writes OPS one by one; returns the single segment's bytes and the end offset after each op. */
async function buildLog(ops: Op[]): Promise<{ bytes: Buffer; ends: number[] }> {
  const src = join(dir(), "src");
  const { wal } = await Wal.open(src);
  const file = join(src, segmentName(1, 1));
  const ends = [(await stat(file)).size];
  for (const op of ops) {
    await apply(wal, op);
    ends.push((await stat(file)).size);
  }
  await wal.close();
  return { bytes: await readFile(file), ends };
}

function expectState(actual: WalState, expected: WalState): void {
  expect(actual.hardState).toEqual(expected.hardState);
  expect(view(actual.entries)).toEqual(view(expected.entries));
  expect(actual.snapshotMeta).toEqual(expected.snapshotMeta);
}

function nextIndex(s: WalState): number {
  return (s.entries.at(-1)?.index ?? s.snapshotMeta?.index ?? 0) + 1;
}

describe("crash recovery", () => {
  it("a cut at every byte offset keeps all records before it, cuts the rest, and accepts appends", async () => {
    const { bytes, ends } = await buildLog(OPS);
    const states = modelStates(OPS);
    expect(ends[0]).toBe(SEGMENT_HEADER_SIZE);
    const work = join(dir(), "cut");
    const file = join(work, segmentName(1, 1));
    for (let cut = 0; cut <= bytes.length; cut++) {
      await rm(work, { recursive: true, force: true });
      await mkdir(work);
      await writeFile(file, bytes.subarray(0, cut));
      const { log, lines } = collectingLogger();
      const { wal, state } = await Wal.open(work, { log });
      let k = 0;
      while (k + 1 < ends.length && ends[k + 1] <= cut) k++;
      expectState(state, states[k]);
      expect((await stat(file)).size).toBe(ends[k]);
      const clean = ends.includes(cut);
      expect(lines.filter((l) => l.level === "warn").length, `cut at ${cut}`).toBe(clean ? 0 : 1);
      if (!clean) expect(lines[0].fields.file).toBe(file);

      const added = entry(nextIndex(state), 9, "after-repair");
      await wal.save(hs(9, 9, 0), [added]);
      await wal.close();
      const again = await Wal.open(work, { log });
      await again.wal.close();
      expectState(again.state, {
        hardState: hs(9, 9, 0),
        entries: [...states[k].entries, added],
        snapshotMeta: states[k].snapshotMeta,
      });
      expect(lines.length, `cut at ${cut}: reopen after repair is clean`).toBe(clean ? 0 : 1);
    }
  });

  it("a flipped byte before the last batch refuses to start, naming file and record offset", async () => {
    const { bytes, ends } = await buildLog(OPS);
    const work = join(dir(), "flip");
    const file = join(work, segmentName(1, 1));
    const lastStart = ends[ends.length - 2];
    for (let pos = 0; pos < lastStart; pos++) {
      await rm(work, { recursive: true, force: true });
      await mkdir(work);
      const damaged = Buffer.from(bytes);
      damaged[pos] ^= 0xff;
      await writeFile(file, damaged);
      const err = await Wal.open(work, { log: () => undefined }).then(
        async ({ wal }) => {
          await wal.close();
          return undefined;
        },
        (e: unknown) => e,
      );
      expect(err, `flip at ${pos}`).toBeInstanceOf(WalCorruptError);
      const recordStart = pos < ends[0] ? 0 : ends.filter((e) => e <= pos).at(-1);
      expect((err as WalCorruptError).file).toBe(file);
      expect((err as WalCorruptError).offset, `flip at ${pos}`).toBe(recordStart);
      // refusing must not have modified the file
      expect(Buffer.compare(await readFile(file), damaged)).toBe(0);
    }
  });

  it("a flipped byte in the last batch is cut at the last good record and reported", async () => {
    const { bytes, ends } = await buildLog(OPS);
    const states = modelStates(OPS);
    const work = join(dir(), "tail");
    const file = join(work, segmentName(1, 1));
    const lastStart = ends[ends.length - 2];
    for (let pos = lastStart; pos < bytes.length; pos++) {
      await rm(work, { recursive: true, force: true });
      await mkdir(work);
      const damaged = Buffer.from(bytes);
      damaged[pos] ^= 0x01;
      await writeFile(file, damaged);
      const { log, lines } = collectingLogger();
      const { wal, state } = await Wal.open(work, { log });
      expectState(state, states[states.length - 2]);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: "warn", fields: { file, offset: lastStart } });
      expect((await stat(file)).size).toBe(lastStart);
      await wal.save(undefined, [entry(3, 3, "replacement")]);
      await wal.close();
    }
  });

  it("damage inside a multi-record last batch is a torn write; damage before it is not", async () => {
    const src = join(dir(), "src");
    const file = join(src, segmentName(1, 1));
    const { wal } = await Wal.open(src);
    await wal.save(undefined, [entry(1, 1), entry(2, 1)]);
    const batchStart = (await stat(file)).size;
    await wal.save(hs(1, 1, 4), [entry(3, 1, "a"), entry(4, 1, "b"), entry(5, 1, "c")]);
    await wal.close();
    const bytes = await readFile(file);

    // pages of the last batch may reach the disk in any order: a bad first
    // record followed by good records of the same batch is a torn tail
    const torn = Buffer.from(bytes);
    torn[batchStart + 14] ^= 0x10;
    await writeFile(file, torn);
    const { log, lines } = collectingLogger();
    const r = await Wal.open(src, { log });
    await r.wal.close();
    expect(r.state.entries.map((e) => e.index)).toEqual([1, 2]);
    expect(r.state.hardState).toEqual(hs(0, 0, 0));
    expect(lines[0].fields.offset).toBe(batchStart);

    // the same damage one batch earlier is followed by a later batch: refuse
    const mid = Buffer.from(bytes);
    mid[SEGMENT_HEADER_SIZE + 14] ^= 0x10;
    await writeFile(file, mid);
    await expect(Wal.open(src, { log })).rejects.toThrow(/later write batch/);
  });

  it("damage in a segment that is not the last refuses to start, even at its end", async () => {
    const src = join(dir(), "src");
    const { wal } = await Wal.open(src, { segmentBytes: 200 });
    for (let i = 1; i <= 12; i++) await wal.save(undefined, [entry(i, 1, "q".repeat(30))]);
    await wal.close();
    const names = (await readdir(src)).sort();
    expect(names.length).toBeGreaterThan(2);
    const first = join(src, names[0]);
    const bytes = await readFile(first);

    const flipped = Buffer.from(bytes);
    flipped[bytes.length - 1] ^= 0x01;
    await writeFile(first, flipped);
    const err = await Wal.open(src, { log: () => undefined }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WalCorruptError);
    expect((err as WalCorruptError).file).toBe(first);
    expect((err as WalCorruptError).reason).toMatch(/not the last/);

    await writeFile(first, bytes.subarray(0, bytes.length - 3));
    await expect(Wal.open(src, { log: () => undefined })).rejects.toThrow(WalCorruptError);

    await writeFile(first, bytes);
    const ok = await Wal.open(src);
    await ok.wal.close();
    expect(ok.state.entries).toHaveLength(12);
  });

  it.each([
    ["appending", 0],
    ["into preallocated zeros", 16 * 1024],
  ])("keeps every acknowledged entry when a writer process is SIGKILLed mid-write, %s", async (_how, preallocateBytes) => {
    const walDir = join(dir(), "wal");
    const acked = new Set<number>();
    for (let round = 0; round < 4; round++) {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", join(import.meta.dirname, "testdata", "crash-writer.ts"), walDir, "8", String(preallocateBytes)],
        { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
      );
      const killAfter = 150 + Math.floor(Math.random() * 400);
      let roundAcks = 0;
      let partial = "";
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
      });
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) => {
        child.on("exit", (code, signal) => resolve(signal ?? code));
      });
      child.stdout.on("data", (d: Buffer) => {
        const lines = (partial + d.toString()).split("\n");
        partial = lines.pop() ?? "";
        for (const l of lines) {
          acked.add(Number(l));
          if (++roundAcks === killAfter) child.kill("SIGKILL");
        }
      });
      const how = await exited;
      expect(how, stderr).toBe("SIGKILL");
      expect(roundAcks).toBeGreaterThanOrEqual(killAfter);
    }

    const { wal, state } = await Wal.open(walDir, { log: () => undefined });
    await wal.close();
    const byIndex = new Map(state.entries.map((e) => [e.index, e]));
    expect(state.entries.map((e, i) => e.index - i)).toEqual(state.entries.map(() => 1));
    for (const index of acked) {
      const e = byIndex.get(index);
      expect(e, `acknowledged entry ${index}`).toBeDefined();
      expect(Buffer.compare(Buffer.from(e?.data ?? []), Buffer.from(payloadFor(index))), `entry ${index}`).toBe(0);
    }
    expect(state.hardState.commit).toBeLessThanOrEqual(state.entries.length);
    expect(state.hardState.commit).toBeGreaterThanOrEqual(Math.max(...acked));
  });
});
