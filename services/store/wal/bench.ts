// WAL throughput on this disk: group-commit fsyncs per second and durable
// 1 KiB entries per second, with 1 and with 64 concurrent writers. Each
// writer saves one entry at a time and waits for it to be durable.

import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { Wal } from "./wal.ts";

export interface BenchWalOptions {
  /** Measuring time per writer count. Default 3000 ms. */
  durationMs?: number;
  entryBytes?: number;
}

async function run(dir: string, writers: number, durationMs: number, entryBytes: number) {
  const { wal } = await Wal.open(dir, { log: () => undefined });
  const data = randomBytes(entryBytes);
  let next = 1;
  let done = 0;
  const before = wal.stats();
  const start = performance.now();
  const deadline = start + durationMs;
  const writer = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const index = next++;
      await wal.save(undefined, [{ index, term: 1, type: 0, data }]);
      done++;
    }
  };
  await Promise.all(Array.from({ length: writers }, writer));
  const seconds = (performance.now() - start) / 1000;
  const fsyncs = wal.stats().fsyncs - before.fsyncs;
  await wal.close();
  await rm(dir, { recursive: true, force: true });
  return { entriesPerSec: done / seconds, fsyncsPerSec: fsyncs / seconds, entriesPerFsync: done / Math.max(1, fsyncs) };
}

export async function benchWal(dir: string, opts: BenchWalOptions = {}): Promise<Record<string, number>> {
  const durationMs = opts.durationMs ?? 3000;
  const entryBytes = opts.entryBytes ?? 1024;
  const out: Record<string, number> = {};
  for (const writers of [1, 64]) {
    const r = await run(join(dir, `wal-bench-${writers}`), writers, durationMs, entryBytes);
    out[`wal.writers${writers}.fsyncsPerSec`] = Math.round(r.fsyncsPerSec);
    out[`wal.writers${writers}.entriesPerSec`] = Math.round(r.entriesPerSec);
    out[`wal.writers${writers}.entriesPerFsync`] = Math.round(r.entriesPerFsync * 10) / 10;
  }
  return out;
}
