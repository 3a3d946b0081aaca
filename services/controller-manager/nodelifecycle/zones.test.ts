/** Zone states, eviction rates and the burst-1 token bucket of node lifecycle, as tables. */
import { describe, expect, it } from "vitest";
import { allZonesFullyDisrupted, DEFAULT_EVICTION_SETTINGS as S, TokenBucket, zoneEvictionRate, zoneKey, zoneState, type ZoneState } from "./zones.ts";

describe("zoneState", () => {
  const rows: Array<[number, number, ZoneState]> = [
    [3, 0, "Normal"],
    [0, 0, "Normal"],
    [0, 1, "FullDisruption"],
    [1, 2, "Normal"], // at most 2 not ready never disrupts a zone partially
    [2, 3, "PartialDisruption"], // 3/5 = 0.6 ≥ 0.55
    [3, 3, "Normal"], // 0.5 < 0.55
    [9, 11, "PartialDisruption"], // 0.55 exactly
  ];
  for (const [ready, notReady, want] of rows) it(`${ready} ready, ${notReady} not: ${want}`, () => expect(zoneState(ready, notReady, S.unhealthyZoneThreshold)).toBe(want));
});

describe("zoneEvictionRate", () => {
  const rows: Array<[ZoneState, number, number]> = [
    ["Normal", 10, 0.1],
    ["FullDisruption", 10, 0.1],
    ["PartialDisruption", 50, 0],
    ["PartialDisruption", 51, 0.01],
  ];
  for (const [state, size, want] of rows) it(`${state} with ${size} nodes: ${want}/s`, () => expect(zoneEvictionRate(state, size, S)).toBe(want));
});

describe("zones", () => {
  it("the zone key joins region and zone; unlabelled nodes share the empty zone", () => {
    expect(zoneKey({ r: "eu", z: "a" }, "r", "z")).toBe("eu:\x00:a");
    expect(zoneKey({}, "r", "z")).toBe("");
  });
  it("all zones fully disrupted only when there is one and every one is", () => {
    expect(allZonesFullyDisrupted([])).toBe(false);
    expect(allZonesFullyDisrupted(["FullDisruption", "FullDisruption"])).toBe(true);
    expect(allZonesFullyDisrupted(["FullDisruption", "Normal"])).toBe(false);
  });
});

describe("TokenBucket (burst 1)", () => {
  it("lets one through at once, then one per 1/rate seconds; rate 0 stops it", () => {
    const b = new TokenBucket(0.5);
    expect(b.take(0)).toBe(0);
    expect(b.take(500)).toBe(1500);
    expect(b.take(2000)).toBe(0);
    b.setRate(0, 2100);
    expect(b.take(10_000)).toBe(Number.POSITIVE_INFINITY);
    b.setRate(1, 10_000);
    expect(b.take(10_000)).toBe(0);
    expect(b.take(10_400)).toBe(600);
  });
});
