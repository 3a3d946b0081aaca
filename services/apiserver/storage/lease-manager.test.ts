/** The lease reuse rule as tables, the manager over a counted grant function and a fake clock, and the flag check. */
import { describe, expect, it } from "vitest";
import { decideLease, LeaseManager, leaseReuseSecondsFrom, reuseSeconds, type HeldLease, type LeaseDecision } from "./lease-manager.ts";

const CONFIG = { reuseDurationSeconds: 60, maxObjectCount: 1000 };

describe("reuseSeconds: min(reuse duration, 5 % of the ttl)", () => {
  const rows: Array<[number, number, number]> = [
    [3600, 60, 60], // 5 % of an hour is 180 s, capped at 60
    [600, 60, 30],
    [2, 60, 0],
    [19, 60, 0],
    [20, 60, 1],
    [3600, 10, 10],
  ];
  it.each(rows)("ttl %i s, reuse duration %i s → %i s", (ttl, cap, want) => expect(reuseSeconds(ttl, { ...CONFIG, reuseDurationSeconds: cap })).toBe(want));
});

describe("decideLease", () => {
  const NOW = 1_000_000;
  const held = (expiresInS: number, attached = 1): HeldLease => ({ id: 7, expiresAtMs: NOW + expiresInS * 1000, attached });
  const rows: Array<[string, HeldLease | undefined, number, LeaseDecision]> = [
    ["nothing held: grant ttl + reuse", undefined, 3600, { reuse: false, grantSeconds: 3660 }],
    ["held lease ends inside (ttl, ttl + reuse): reuse", held(3630), 3600, { reuse: true }],
    ["held lease ends before now + ttl: too short", held(3600), 3600, { reuse: false, grantSeconds: 3660 }],
    ["held lease just granted (ends at now + ttl + reuse): reuse", held(3660), 3600, { reuse: true }],
    ["held lease ends after now + ttl + reuse: too long", held(3661), 3600, { reuse: false, grantSeconds: 3660 }],
    ["held lease full (1000 objects)", held(3630, 1000), 3600, { reuse: false, grantSeconds: 3660 }],
    ["a short ttl never reuses (no reuse window)", held(2), 2, { reuse: false, grantSeconds: 2 }],
  ];
  it.each(rows)("%s", (_label, lease, ttl, want) => expect(decideLease(lease, ttl, NOW, CONFIG)).toEqual(want));
});

describe("LeaseManager", () => {
  function harness(config = {}) {
    let now = 0;
    const grants: number[] = [];
    const manager = new LeaseManager(
      async (ttl) => {
        grants.push(ttl);
        await new Promise((r) => setTimeout(r, 5));
        return grants.length;
      },
      () => now,
      config,
    );
    return { manager, grants, advance: (ms: number) => (now += ms) };
  }

  it("reuses one lease across writes within its window, then grants the next", async () => {
    const { manager, grants, advance } = harness();
    expect(await manager.lease(3600)).toBe(1);
    advance(30_000);
    expect(await manager.lease(3600)).toBe(1);
    advance(30_000); // the held lease now ends exactly at now + ttl: no longer long enough
    expect(await manager.lease(3600)).toBe(2);
    expect(grants).toEqual([3660, 3660]);
  });

  it("concurrent writes share one grant", async () => {
    const { manager, grants } = harness();
    const ids = await Promise.all(Array.from({ length: 10 }, () => manager.lease(3600)));
    expect(new Set(ids)).toEqual(new Set([1]));
    expect(grants).toHaveLength(1);
  });

  it("a lease holds at most maxObjectCount objects", async () => {
    const { manager, grants } = harness({ maxObjectCount: 3 });
    const ids: number[] = [];
    for (let i = 0; i < 7; i++) ids.push(await manager.lease(3600));
    expect(ids).toEqual([1, 1, 1, 2, 2, 2, 3]);
    expect(grants).toHaveLength(3);
  });

  it("a failed grant fails the write and leaves the next write to try again", async () => {
    let fail = true;
    const manager = new LeaseManager(async () => {
      if (fail) throw new Error("store unavailable");
      return 9;
    });
    await expect(manager.lease(60)).rejects.toThrow("store unavailable");
    fail = false;
    expect(await manager.lease(60)).toBe(9);
  });
});

describe("--lease-reuse-duration-seconds", () => {
  it.each([
    [undefined, 60],
    [30, 30],
  ])("%s → %i", (value, want) => expect(leaseReuseSecondsFrom({ "lease-reuse-duration-seconds": value })).toBe(want));
  it.each([0, -5])("%i is refused with the platform's message", (value) => {
    expect(() => leaseReuseSecondsFrom({ "lease-reuse-duration-seconds": value })).toThrow(`--lease-reuse-duration-seconds should be a positive number, but value '${value}' provided`);
  });
});
