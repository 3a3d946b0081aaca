// Helpers for the WAL tests (not a test file itself).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import type { Entry, HardState, LogLevel, SnapshotMetadata, WalLogger } from "../types.ts";

/** A fresh temporary directory per test, always removed afterwards. */
export function useTempDir(prefix = "wal-test-"): () => string {
  let dir: string | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });
  return () => {
    if (!dir) throw new Error("temp dir used outside a test");
    return dir;
  };
}

export function entry(index: number, term: number, text = `e${index}t${term}`, type: 0 | 1 = 0): Entry {
  return { index, term, type, data: new TextEncoder().encode(text) };
}

export function hs(term: number, vote: number, commit: number): HardState {
  return { term, vote, commit };
}

export function meta(index: number, term: number, voters: number[] = [1, 2, 3]): SnapshotMetadata {
  return { index, term, confState: { voters, learners: [], votersOutgoing: [], learnersNext: [], autoLeave: false } };
}

export interface LogLine {
  level: LogLevel;
  msg: string;
  fields: Record<string, unknown>;
}

export function collectingLogger(): { log: WalLogger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  return { lines, log: (level, msg, fields) => lines.push({ level, msg, fields: fields ?? {} }) };
}

/** Comparable view of entries (Uint8Array → text). */
export function view(entries: readonly Entry[]): Array<[number, number, number, string]> {
  return entries.map((e) => [e.index, e.term, e.type, new TextDecoder().decode(e.data)]);
}
