import { describe, expect, it } from "vitest";
import { renderHeapSummary, summarizeHeapProfile, type HeapProfile } from "./heap-profile-summary.ts";

// Frames named by repo-relative paths, as profileLocation reports them.
const frame = (functionName: string, file: string, lineNumber = 0) => ({ functionName, url: file, lineNumber });

describe("summarizeHeapProfile", () => {
  // root → a (100 bytes) → b (300) ; root → c (200) → b (100): b allocated 400 in two call paths.
  const profile: HeapProfile = {
    head: {
      callFrame: frame("(root)", ""),
      selfSize: 0,
      children: [
        { callFrame: frame("a", "services/x/a.ts", 9), selfSize: 100, children: [{ callFrame: frame("b", "shared/y/b.ts", 19), selfSize: 300, children: [] }] },
        { callFrame: frame("c", "services/x/a.ts", 29), selfSize: 200, children: [{ callFrame: frame("b", "shared/y/b.ts", 19), selfSize: 100, children: [] }] },
      ],
    },
  };

  it("adds a function's bytes over its call paths and ranks functions and files by them", () => {
    const s = summarizeHeapProfile(profile, 10);
    expect(s.totalBytes).toBe(700);
    expect(s.functions.map((r) => [r.name, r.where, r.bytes])).toEqual([
      ["b", "shared/y/b.ts:20", 400],
      ["c", "services/x/a.ts:30", 200],
      ["a", "services/x/a.ts:10", 100],
    ]);
    expect(s.functions[0].share).toBeCloseTo(400 / 700);
    expect(s.files.map((r) => [r.where, r.bytes])).toEqual([
      ["shared/y/b.ts", 400],
      ["services/x/a.ts", 300],
    ]);
  });

  it("keeps the top n and renders MB with shares", () => {
    const s = summarizeHeapProfile(profile, 1);
    expect(s.functions).toHaveLength(1);
    expect(renderHeapSummary("p", s)).toContain("57.1 %");
  });
});
