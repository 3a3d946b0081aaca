import { describe, expect, it } from "vitest";
import { benchWal } from "./bench.ts";
import { useTempDir } from "./testing/support.ts";

const dir = useTempDir("wal-bench-");

describe("benchWal", () => {
  it("reports throughput, and 64 writers share fsyncs", async () => {
    const r = await benchWal(dir(), { durationMs: 300 });
    expect(Object.keys(r).sort()).toEqual([
      "wal.writers1.entriesPerFsync",
      "wal.writers1.entriesPerSec",
      "wal.writers1.fsyncsPerSec",
      "wal.writers64.entriesPerFsync",
      "wal.writers64.entriesPerSec",
      "wal.writers64.fsyncsPerSec",
    ]);
    expect(r["wal.writers1.entriesPerSec"]).toBeGreaterThan(0);
    expect(r["wal.writers1.entriesPerFsync"]).toBe(1);
    expect(r["wal.writers64.entriesPerFsync"]).toBeGreaterThan(8);
  });
});
