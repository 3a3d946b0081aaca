/** Hand-written histories for the key-value model: linearizable ones and the classic anomalies. */
import { describe, expect, it } from "vitest";
import { bruteForceLinearizable } from "./brute-force.ts";
import { checkLinearizable, describeResult } from "./checker.ts";
import type { Operation } from "./history.ts";
import { kvModel, type KvInput, type KvOutput } from "./kv-model.ts";

type Op = Operation<KvInput, KvOutput>;
let nextId = 0;

/** One operation: [call, return] (return undefined: pending) with its output. */
function op(client: number, times: [number, number?], input: KvInput, output?: KvOutput): Op {
  return { id: nextId++, client, input, called: times[0], returned: times[1], output: times[1] === undefined ? undefined : output };
}
const put = (c: number, t: [number, number?], key: string, value: string, revision?: number) => op(c, t, { kind: "put", key, value }, { kind: "put", revision });
const get = (c: number, t: [number, number?], key: string, value: string | null, modRevision?: number) => op(c, t, { kind: "get", key }, { kind: "get", value, modRevision });
const del = (c: number, t: [number, number?], key: string, deleted?: number) => op(c, t, { kind: "delete", key }, { kind: "delete", deleted });
const casRev = (c: number, t: [number, number?], key: string, modRevision: number, value: string, ok: boolean, revision?: number) =>
  op(c, t, { kind: "cas", key, expect: { modRevision }, value }, { kind: "cas", ok, revision });
const casVal = (c: number, t: [number, number?], key: string, expected: string | null, value: string, ok: boolean) =>
  op(c, t, { kind: "cas", key, expect: { value: expected }, value }, { kind: "cas", ok });

const cases: Array<{ name: string; ok: boolean; history: Op[] }> = [
  { name: "empty history", ok: true, history: [] },
  { name: "sequential put then get", ok: true, history: [put(0, [0, 10], "x", "a", 2), get(1, [20, 30], "x", "a", 2)] },
  { name: "read concurrent with a put sees the old value", ok: true, history: [put(0, [0, 10], "x", "a"), put(0, [20, 40], "x", "b"), get(1, [25, 30], "x", "a")] },
  { name: "read concurrent with a put sees the new value", ok: true, history: [put(0, [0, 10], "x", "a"), put(0, [20, 40], "x", "b"), get(1, [25, 30], "x", "b")] },
  { name: "concurrent puts read in either order", ok: true, history: [put(0, [0, 100], "x", "a"), put(1, [0, 100], "x", "b"), get(2, [10, 20], "x", "b"), get(2, [30, 40], "x", "a")] },
  { name: "stale read after an acknowledged put", ok: false, history: [put(0, [0, 10], "x", "a"), get(1, [20, 30], "x", null)] },
  { name: "stale read of an overwritten value", ok: false, history: [put(0, [0, 10], "x", "a"), put(0, [20, 30], "x", "b"), get(1, [40, 50], "x", "a")] },
  {
    name: "lost write: an acknowledged put is not seen by a later read",
    ok: false,
    history: [put(0, [0, 5], "x", "1"), put(1, [20, 25], "x", "2"), get(2, [30, 35], "x", "1")],
  },
  { name: "read of a value never written", ok: false, history: [put(0, [0, 10], "x", "a"), get(1, [5, 30], "x", "zzz")] },
  { name: "non-monotonic reads: a value seen, then the absence before it", ok: false, history: [put(0, [0, 100], "x", "1"), get(1, [10, 20], "x", "1"), get(1, [30, 40], "x", null)] },
  {
    name: "non-monotonic reads across two readers",
    ok: false,
    history: [put(0, [0, 10], "x", "1"), put(0, [10, 100], "x", "2"), get(1, [20, 30], "x", "2"), get(2, [40, 50], "x", "1")],
  },
  { name: "pending put observed later", ok: true, history: [put(0, [0], "x", "a"), get(1, [50, 60], "x", "a")] },
  { name: "pending put never observed", ok: true, history: [put(0, [0, 10], "x", "a"), put(1, [20], "x", "b"), get(2, [30, 40], "x", "a")] },
  { name: "pending put cannot act before its call", ok: false, history: [get(1, [0, 10], "x", "a"), put(0, [20], "x", "a")] },
  { name: "pending put may act late", ok: true, history: [put(1, [0], "x", "b"), put(0, [10, 20], "x", "a"), get(2, [30, 40], "x", "a"), get(2, [50, 60], "x", "b")] },
  { name: "cas by mod revision succeeds", ok: true, history: [put(0, [0, 1], "x", "a", 5), casRev(1, [2, 3], "x", 5, "b", true, 6), get(2, [4, 5], "x", "b", 6)] },
  { name: "cas by mod revision fails although it matched", ok: false, history: [put(0, [0, 1], "x", "a", 5), casRev(1, [2, 3], "x", 5, "b", false)] },
  { name: "cas succeeds although the revision had moved on", ok: false, history: [put(0, [0, 1], "x", "a", 5), put(0, [2, 3], "x", "c", 7), casRev(1, [4, 5], "x", 5, "b", true, 8)] },
  { name: "cas on absence (mod revision 0) creates", ok: true, history: [casRev(0, [0, 1], "x", 0, "a", true, 2), get(1, [2, 3], "x", "a", 2)] },
  { name: "two creates both succeed", ok: false, history: [casRev(0, [0, 10], "x", 0, "a", true), casRev(1, [0, 10], "x", 0, "b", true)] },
  { name: "cas by value", ok: true, history: [put(0, [0, 1], "x", "a"), casVal(1, [2, 3], "x", "a", "b", true), casVal(2, [4, 5], "x", "a", "c", false), get(0, [6, 7], "x", "b")] },
  { name: "pending cas took effect", ok: true, history: [put(0, [0, 1], "x", "a"), casVal(1, [2], "x", "a", "b", false), get(0, [6, 7], "x", "b")] },
  { name: "read revision disagrees with the put's", ok: false, history: [put(0, [0, 1], "x", "a", 5), get(1, [2, 3], "x", "a", 7)] },
  { name: "unknown revision of a pending put learned from a read", ok: true, history: [put(0, [0], "x", "a"), get(1, [10, 11], "x", "a", 9), casRev(1, [12, 13], "x", 9, "b", true, 10)] },
  { name: "delete then read absent", ok: true, history: [put(0, [0, 1], "x", "a"), del(0, [2, 3], "x", 1), get(1, [4, 5], "x", null), del(1, [6, 7], "x", 0)] },
  { name: "read after delete sees the deleted value", ok: false, history: [put(0, [0, 1], "x", "a"), del(0, [2, 3], "x", 1), get(1, [4, 5], "x", "a")] },
  { name: "delete reports a key that was absent", ok: false, history: [del(0, [0, 1], "x", 1)] },
  {
    name: "keys are independent",
    ok: true,
    history: [put(0, [0, 10], "x", "a"), put(1, [0, 10], "y", "b"), get(2, [20, 30], "x", "a"), get(2, [20, 30], "y", "b")],
  },
];

describe("kv model histories", () => {
  for (const c of cases) {
    it(`${c.name}: ${c.ok ? "linearizable" : "not linearizable"}`, () => {
      const res = checkLinearizable(kvModel, c.history);
      expect(res.ok, describeResult(kvModel, res)).toBe(c.ok);
      expect(bruteForceLinearizable(kvModel, c.history)).toBe(c.ok);
    });
  }

  it("the pending cas case really is one", () => {
    const h = cases.find((c) => c.name === "pending cas took effect")?.history ?? [];
    expect(h[1].returned).toBeUndefined();
    expect(h[1].output).toBeUndefined();
  });

  it("reports the shortest failing prefix of the failing key only", () => {
    const h: Op[] = [];
    for (let i = 0; i < 20; i++) h.push(put(0, [i * 10, i * 10 + 5], "x", `v${i}`), get(1, [i * 10 + 6, i * 10 + 8], "x", `v${i}`));
    const stale = get(2, [300, 310], "x", "v3");
    h.push(stale, put(0, [320, 330], "x", "after"), get(1, [340, 350], "x", "after"), put(3, [0, 1], "y", "fine"));
    const res = checkLinearizable(kvModel, h);
    expect(res.ok).toBe(false);
    const x = res.partitions.find((p) => p.partition === "x");
    const y = res.partitions.find((p) => p.partition === "y");
    expect(y?.ok).toBe(true);
    if (x?.ok !== false) throw new Error("x should fail");
    expect(x.culprit).toBe(stale);
    expect(x.prefix.length).toBe(41);
    expect(x.prefix.some((o) => o.input.kind === "put" && o.input.value === "after")).toBe(false);
    expect(describeResult(kvModel, res)).toMatch(/culprit/);
  });

  it("returns the linearization order of a linearizable key", () => {
    const a = put(0, [0, 100], "x", "a");
    const b = put(1, [0, 100], "x", "b");
    const r1 = get(2, [10, 20], "x", "b");
    const r2 = get(2, [30, 40], "x", "a");
    const res = checkLinearizable(kvModel, [a, b, r1, r2]);
    expect(res.partitions[0]).toEqual({ partition: "x", ok: true, order: [b.id, r1.id, a.id, r2.id] });
  });

  it("answers unknown when the step budget runs out", () => {
    const h: Op[] = [];
    for (let i = 0; i < 12; i++) h.push(put(i, [0, 100], "x", `v${i}`));
    h.push(get(0, [200, 210], "x", "nope"));
    expect(checkLinearizable(kvModel, h, { maxSteps: 50 }).ok).toBe("unknown");
  });
});
