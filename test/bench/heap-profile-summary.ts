/**
 * Summary of a V8 sampling heap profile (`HeapProfiler.stopSampling`, DevTools'
 * `.heapprofile`): the functions that allocated the most bytes (self: allocated in the
 * function itself, builtins it calls inline counted in it), as shares of all sampled
 * bytes, and the same grouped by file. Used by `bench -- nodes` (NODES_HEAP_PROF) and
 * runnable on its own: `tsx test/bench/heap-profile-summary.ts <file.heapprofile> [top]`.
 */
import { readFileSync } from "node:fs";
import { profileLocation, type SelfTimeRow } from "./cpu-profile-summary.ts";

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

export interface HeapProfile {
  head: HeapNode;
}

export interface HeapSummary {
  totalBytes: number;
  functions: Array<{ name: string; where: string; bytes: number; share: number }>;
  files: Array<{ where: string; bytes: number; share: number }>;
}

/** Top `n` allocating functions and files by self bytes. */
export function summarizeHeapProfile(profile: HeapProfile, n = 20): HeapSummary {
  const byFunction = new Map<string, { name: string; where: string; bytes: number }>();
  const byFile = new Map<string, number>();
  let totalBytes = 0;
  const stack: HeapNode[] = [profile.head];
  while (stack.length > 0) {
    const node = stack.pop()!;
    stack.push(...node.children);
    if (node.selfSize === 0) continue;
    totalBytes += node.selfSize;
    const where = profileLocation(node.callFrame.url);
    const name = node.callFrame.functionName || "(anonymous)";
    const key = `${name} ${where}:${node.callFrame.lineNumber + 1}`;
    const row = byFunction.get(key) ?? { name, where: `${where}:${node.callFrame.lineNumber + 1}`, bytes: 0 };
    row.bytes += node.selfSize;
    byFunction.set(key, row);
    byFile.set(where, (byFile.get(where) ?? 0) + node.selfSize);
  }
  const share = (bytes: number) => (totalBytes > 0 ? bytes / totalBytes : 0);
  return {
    totalBytes,
    functions: [...byFunction.values()].sort((a, b) => b.bytes - a.bytes).slice(0, n).map((r) => ({ ...r, share: share(r.bytes) })),
    files: [...byFile].sort((a, b) => b[1] - a[1]).slice(0, n).map(([where, bytes]) => ({ where, bytes, share: share(bytes) })),
  };
}

export function renderHeapSummary(title: string, s: HeapSummary): string {
  const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
  const lines = [`${title}: ${mb(s.totalBytes)} allocated (sampled)`, "top functions by allocated bytes:"];
  for (const r of s.functions) lines.push(`  ${(r.share * 100).toFixed(1).padStart(5)} %  ${mb(r.bytes).padStart(9)}  ${r.name}  ${r.where}`);
  lines.push("top files by allocated bytes:");
  for (const r of s.files) lines.push(`  ${(r.share * 100).toFixed(1).padStart(5)} %  ${mb(r.bytes).padStart(9)}  ${r.where}`);
  return `${lines.join("\n")}\n`;
}

export type { SelfTimeRow };

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write("usage: tsx test/bench/heap-profile-summary.ts <file.heapprofile> [top]\n");
    process.exit(2);
  }
  process.stdout.write(renderHeapSummary(file, summarizeHeapProfile(JSON.parse(readFileSync(file, "utf8")) as HeapProfile, Number(top ?? 30))));
}
