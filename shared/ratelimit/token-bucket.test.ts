import { describe, expect, it } from "vitest";
import { TokenBucket } from "./token-bucket.ts";

describe("token bucket", () => {
  it.each([
    { qps: 10, burst: 1, takes: [0, 0, 50, 100, 100], waits: [0, 100, 50, 0, 100] },
    { qps: 1, burst: 3, takes: [0, 0, 0, 0, 999, 1000], waits: [0, 0, 0, 1000, 1, 0] },
    { qps: 0.5, burst: 1, takes: [0, 0], waits: [0, 2000] },
    { qps: 0, burst: 1, takes: [0, 0, 60_000], waits: [0, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY] },
  ])("qps $qps, burst $burst: waits $waits", ({ qps, burst, takes, waits }) => {
    const t = new TokenBucket(qps, burst, 0);
    expect(takes.map((at) => t.tryTake(at))).toEqual(waits);
  });

  it("admits its burst, then refills at qps; an earlier clock reading adds nothing", () => {
    const b = new TokenBucket(2, 3, 0);
    expect([0, 0, 0, 0].map((at) => b.tryAccept(at))).toEqual([true, true, true, false]);
    expect(b.tryAccept(499)).toBe(false);
    expect([1000, 1000, 1000].map((at) => b.tryAccept(at))).toEqual([true, true, false]);
    expect(b.tryAccept(900)).toBe(false);
  });
});
