/**
 * What every comparison of the benchmarks shares:
 * - `interleave`: A and B measured in alternating rounds (A, B, A, B, …), so both see
 *   the same machine load; at least 3 rounds;
 * - `ratioStats`: min / median / max of the per-round ratios A/B (never a ratio of
 *   totals, which one noisy round would dominate);
 * - `RatioTable`: the printed table of those ratios, and the figures it returns;
 * - `machineLoad`: the 1/5/15-minute load averages, printed before and after a bench
 *   (the machine is shared: a ratio is only as good as the load it was measured under);
 * - `alternate`: like `interleave`, but each side goes first in every other round;
 * - `cpuSeconds`: a process's CPU time, from /proc;
 * - `cpuProfiled`: a function run under this process's V8 CPU profiler, the profile
 *   written to a file.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { cpus, loadavg } from "node:os";
import { dirname } from "node:path";
import type { summarizeProfile } from "./cpu-profile-summary.ts";

export const MIN_ROUNDS = 3;

export interface RatioStats {
  min: number;
  median: number;
  max: number;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** min / median / max of `a[i] / b[i]` over the rounds. */
export function ratioStats(a: readonly number[], b: readonly number[]): RatioStats {
  if (a.length !== b.length || a.length === 0) throw new Error(`ratioStats: ${a.length} values against ${b.length}`);
  const ratios = a.map((x, i) => x / b[i]);
  return { min: Math.min(...ratios), median: median(ratios), max: Math.max(...ratios) };
}

/** Runs `a` then `b`, `rounds` times (≥ 3), and returns each side's per-round results. */
export async function interleave<T>(rounds: number, a: (round: number) => Promise<T>, b: (round: number) => Promise<T>): Promise<{ a: T[]; b: T[] }> {
  if (rounds < MIN_ROUNDS) throw new Error(`a comparison needs at least ${MIN_ROUNDS} interleaved rounds, got ${rounds}`);
  const out = { a: [] as T[], b: [] as T[] };
  for (let r = 0; r < rounds; r++) {
    out.a.push(await a(r));
    out.b.push(await b(r));
  }
  return out;
}

/**
 * Like `interleave`, but A goes first in even rounds and B in odd ones: the side
 * measured second runs beside the first one's tail of work (watch events, garbage
 * collection, controllers), and alternating spreads that over both sides.
 */
export async function alternate<T>(rounds: number, a: (round: number) => Promise<T>, b: (round: number) => Promise<T>): Promise<{ a: T[]; b: T[] }> {
  const out = { a: [] as T[], b: [] as T[] };
  const runA = async (round: number) => void out.a.push(await a(round));
  const runB = async (round: number) => void out.b.push(await b(round));
  await interleave(
    rounds,
    (round) => (round % 2 === 0 ? runA(round) : runB(round)),
    (round) => (round % 2 === 0 ? runB(round) : runA(round)),
  );
  return out;
}

/** A V8 CPU profile as the inspector returns it (the summarizer's input). */
export type CpuProfile = Parameters<typeof summarizeProfile>[0];

/**
 * Runs `fn` under this process's V8 CPU profiler (which samples servers and clients
 * alike when both live here) and writes the profile to `file` (its directory made);
 * the profile is written even when `fn` throws.
 */
export async function cpuProfiled<T>(file: string, fn: () => Promise<T>): Promise<{ result: T; profile: CpuProfile }> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  let profile: CpuProfile | undefined;
  try {
    const result = await fn();
    ({ profile } = await session.post("Profiler.stop"));
    return { result, profile };
  } finally {
    if (!profile) ({ profile } = await session.post("Profiler.stop"));
    session.disconnect();
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(profile));
  }
}

/** CPU seconds (user + system) of a process, from /proc; 0 when unknown. */
export function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** "load 1.52 1.31 1.10 (2 cores)". */
export function machineLoad(): string {
  const [one, five, fifteen] = loadavg();
  return `load ${one.toFixed(2)} ${five.toFixed(2)} ${fifteen.toFixed(2)} (${cpus().length} cores)`;
}

interface Row {
  key: string;
  label: string;
  aName: string;
  bName: string;
  a: number[];
  b: number[];
  unit: string;
  better: "higher" | "lower";
}

const LABEL_WIDTH = 92;

function fmt(v: number): string {
  if (!Number.isFinite(v)) return "-";
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2);
}

export class RatioTable {
  private readonly rows: Row[] = [];

  constructor(private readonly title: string) {}

  /**
   * One comparison: `a` and `b` hold one value per round (same length); `key` names the
   * figures returned (`<key>_a`, `<key>_b` medians, `<key>_ratio_min|median|max`).
   */
  add(row: Row): RatioStats {
    this.rows.push(row);
    return ratioStats(row.a, row.b);
  }

  get size(): number {
    return this.rows.length;
  }

  figures(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const r of this.rows) {
      const s = ratioStats(r.a, r.b);
      out[`${r.key}_a`] = median(r.a);
      out[`${r.key}_b`] = median(r.b);
      out[`${r.key}_ratio_min`] = s.min;
      out[`${r.key}_ratio_median`] = s.median;
      out[`${r.key}_ratio_max`] = s.max;
      out[`${r.key}_rounds`] = r.a.length;
    }
    return out;
  }

  /** The table as text: one line a comparison, medians of each side and the per-round ratio A/B. */
  render(): string {
    const head = `${"comparison (A vs B, unit, which is better)".padEnd(LABEL_WIDTH)}${"A med".padStart(10)}${"B med".padStart(10)}${"A/B min".padStart(9)}${"med".padStart(7)}${"max".padStart(7)}  rounds`;
    const lines = [`${this.title}: per-round ratios of A and B measured interleaved`, head];
    for (const r of this.rows) {
      const s = ratioStats(r.a, r.b);
      const label = `${r.label} (${r.aName} vs ${r.bName}, ${r.unit}, ${r.better})`;
      lines.push(`${label.padEnd(LABEL_WIDTH)}${fmt(median(r.a)).padStart(10)}${fmt(median(r.b)).padStart(10)}${fmt(s.min).padStart(9)}${fmt(s.median).padStart(7)}${fmt(s.max).padStart(7)}  ${r.a.length}`);
    }
    return `${lines.join("\n")}\n`;
  }
}
