/**
 * The pure core of `npm run bench -- idle`: per-process CPU shares from two samples of
 * the processes' CPU time (/proc/<pid>/stat, user + system), the settle rule, and the
 * printed table. A share is CPU time over wall time: 1.0 is one core fully used.
 */

export interface CpuSample {
  /** CPU seconds (user + system) of each process, by name. */
  cpu: Record<string, number>;
  /** Wall clock (ms, monotonic) when the sample was taken. */
  atMs: number;
}

/** The share of one core each process used between `a` and `b` (0.02 = 2 %); a process missing in either is left out. */
export function cpuShares(a: CpuSample, b: CpuSample): Record<string, number> {
  const wallSeconds = (b.atMs - a.atMs) / 1000;
  if (!(wallSeconds > 0)) throw new Error(`cpuShares: samples ${a.atMs} → ${b.atMs} ms span no time`);
  const out: Record<string, number> = {};
  for (const [name, before] of Object.entries(a.cpu)) {
    const after = b.cpu[name];
    if (after === undefined) continue;
    out[name] = Math.max(0, after - before) / wallSeconds;
  }
  return out;
}

/** Settled: every process's share over the last window is at most `limit`. */
export function settled(shares: Record<string, number>, limit: number): boolean {
  return Object.values(shares).every((s) => s <= limit);
}

/** One line a process: its share in % of one core and whether it keeps within `limit`. */
export function renderShares(shares: Record<string, number>, limit: number, seconds: number): string {
  const width = Math.max(8, ...Object.keys(shares).map((n) => n.length));
  const lines = Object.entries(shares).map(
    ([name, s]) => `  ${name.padEnd(width)} ${(s * 100).toFixed(2).padStart(7)} %  ${s <= limit ? "ok" : `OVER ${(limit * 100).toFixed(0)} %`}`,
  );
  return `CPU over ${seconds.toFixed(0)} s, % of one core (limit ${(limit * 100).toFixed(0)} %):\n${lines.join("\n")}\n`;
}
