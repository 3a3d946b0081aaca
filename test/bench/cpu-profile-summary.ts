/**
 * Summary of a V8 CPU profile (`node --cpu-prof` output): the functions with the most
 * self time, as share of the sampled time, each with its file and line; and the same
 * grouped by file. Used by the benches that profile a server (BENCH_CPU_PROF) and runnable
 * on its own: `tsx test/bench/cpu-profile-summary.ts <file.cpuprofile> [top]`.
 * Self time of a node = its hit count × the mean sampling interval (V8's `timeDeltas`).
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
}

export interface SelfTimeRow {
  name: string;
  where: string;
  selfMs: number;
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  idleShare: number;
  functions: SelfTimeRow[];
  files: SelfTimeRow[];
}

const ROOT = process.cwd();

/** A file's path relative to its tree (this checkout or a bench worktree), so two builds' profiles compare by file. */
export function profileLocation(url: string): string {
  if (!url) return "(native)";
  const path = url.startsWith("file://") ? new URL(url).pathname : url;
  const inTree = /\/((?:services|shared|node_modules|test)\/.*)$/.exec(path);
  if (inTree) return inTree[1];
  const rel = relative(ROOT, path);
  return rel.startsWith("..") ? path : rel;
}

function top(map: Map<string, { name: string; where: string; hits: number }>, msPerHit: number, totalMs: number, n: number): SelfTimeRow[] {
  return [...map.values()]
    .sort((a, b) => b.hits - a.hits)
    .slice(0, n)
    .map((r) => ({ name: r.name, where: r.where, selfMs: r.hits * msPerHit, share: (r.hits * msPerHit) / totalMs }));
}

/** Top `n` functions and files by self time; `(idle)` and `(program)` are counted in the total. */
export function summarizeProfile(profile: CpuProfile, n = 20): ProfileSummary {
  const totalMs = (profile.endTime - profile.startTime) / 1000;
  const hitsTotal = profile.nodes.reduce((s, node) => s + (node.hitCount ?? 0), 0);
  const msPerHit = hitsTotal > 0 ? totalMs / hitsTotal : 0;
  const byFunction = new Map<string, { name: string; where: string; hits: number }>();
  const byFile = new Map<string, { name: string; where: string; hits: number }>();
  let idleHits = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === "(idle)") idleHits += hits;
    const where = url ? `${profileLocation(url)}:${lineNumber + 1}` : "";
    const name = functionName || "(anonymous)";
    const fkey = `${name}@${where}`;
    const f = byFunction.get(fkey) ?? { name, where, hits: 0 };
    f.hits += hits;
    byFunction.set(fkey, f);
    const file = url ? profileLocation(url) : name;
    const g = byFile.get(file) ?? { name: file, where: "", hits: 0 };
    g.hits += hits;
    byFile.set(file, g);
  }
  return {
    totalMs,
    idleShare: hitsTotal > 0 ? idleHits / hitsTotal : 0,
    functions: top(byFunction, msPerHit, totalMs, n),
    files: top(byFile, msPerHit, totalMs, n),
  };
}

export function renderSummary(title: string, s: ProfileSummary): string {
  const row = (r: SelfTimeRow) => `  ${(r.share * 100).toFixed(1).padStart(5)} %  ${r.selfMs.toFixed(0).padStart(7)} ms  ${r.name}${r.where ? `  ${r.where}` : ""}\n`;
  return (
    `${title}: ${(s.totalMs / 1000).toFixed(1)} s profiled, idle ${(s.idleShare * 100).toFixed(1)} %\n` +
    `top functions by self time:\n${s.functions.map(row).join("")}` +
    `top files by self time:\n${s.files.map(row).join("")}`
  );
}

/** Rows of `a` and `b` keyed by name and place: `b`'s self time minus `a`'s, largest differences first. */
export function diffRows(a: readonly SelfTimeRow[], b: readonly SelfTimeRow[], n: number): string {
  const key = (r: SelfTimeRow) => `${r.name}  ${r.where}`;
  const ms = new Map<string, [number, number]>();
  for (const r of a) ms.set(key(r), [r.selfMs, 0]);
  for (const r of b) ms.set(key(r), [ms.get(key(r))?.[0] ?? 0, r.selfMs]);
  return [...ms.entries()]
    .filter(([k]) => !k.startsWith("(idle)"))
    .sort((x, y) => Math.abs(y[1][1] - y[1][0]) - Math.abs(x[1][1] - x[1][0]))
    .slice(0, n)
    .map(([k, [x, y]]) => `  ${(y - x >= 0 ? "+" : "") + (y - x).toFixed(0).padStart(6)} ms  (${x.toFixed(0)} → ${y.toFixed(0)})  ${k}\n`)
    .join("");
}

function load(file: string): CpuProfile {
  return JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const [, , first, second, topArg] = process.argv;
  if (!first) {
    process.stderr.write("usage: tsx test/bench/cpu-profile-summary.ts <file.cpuprofile> [<other.cpuprofile>] [top]\n");
    process.exit(2);
  }
  const isFile = second !== undefined && Number.isNaN(Number(second));
  const n = Number((isFile ? topArg : second) ?? 25);
  if (!isFile) {
    process.stdout.write(renderSummary(first, summarizeProfile(load(first), n)));
  } else {
    const a = summarizeProfile(load(first), 100_000);
    const b = summarizeProfile(load(second), 100_000);
    process.stdout.write(`self time, second minus first (busy ${(a.totalMs * (1 - a.idleShare)).toFixed(0)} → ${(b.totalMs * (1 - b.idleShare)).toFixed(0)} ms)\nby file:\n${diffRows(a.files, b.files, n)}by function:\n${diffRows(a.functions, b.functions, n)}`);
  }
}
