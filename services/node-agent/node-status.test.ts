import { describe, expect, it } from "vitest";
import { LEASE_RETRY_MAX_MS, renewIntervalMs, retryDelayMs } from "./backoff.ts";
import { apiTime, observeConditions, shouldPostStatus, statusChanged, updateConditions, type NodeCondition, type NodeStatusBody } from "./node-status.ts";

describe("lease retry schedule", () => {
  it.each([
    [1, 200],
    [2, 400],
    [3, 800],
    [4, 1600],
    [5, 3200],
    [6, 6400],
    [7, 7000],
    [8, 7000],
    [2000, 7000],
  ])("after %i failures waits %i ms", (failures, ms) => {
    expect(retryDelayMs(failures)).toBe(ms);
  });

  it("never exceeds the cap and never shrinks", () => {
    let last = 0;
    for (let i = 1; i < 100; i++) {
      const d = retryDelayMs(i);
      expect(d).toBeLessThanOrEqual(LEASE_RETRY_MAX_MS);
      expect(d).toBeGreaterThanOrEqual(last);
      last = d;
    }
  });

  it.each([0, -1, 1.5])("rejects failure count %s", (n) => {
    expect(() => retryDelayMs(n)).toThrow(RangeError);
  });

  it.each([
    [40, 10_000],
    [4, 1000],
    [1, 250],
  ])("renews a %i s lease every %i ms", (seconds, ms) => {
    expect(renewIntervalMs(seconds)).toBe(ms);
  });
});

const T0 = "2026-01-01T00:00:00Z";
const T1 = "2026-01-01T00:00:10Z";

describe("updateConditions", () => {
  const healthy = observeConditions({});
  const down = observeConditions({ runtimeError: "connection refused" });

  it("a first computation sets both times to now for the five types", () => {
    const c = updateConditions(undefined, healthy, T0);
    expect(c.map((x) => x.type).sort()).toEqual(["DiskPressure", "MemoryPressure", "NetworkUnavailable", "PIDPressure", "Ready"]);
    for (const x of c) expect([x.lastHeartbeatTime, x.lastTransitionTime]).toEqual([T0, T0]);
  });

  const cases: Array<[string, NodeCondition[], typeof healthy, Partial<NodeCondition>]> = [
    ["unchanged status keeps the transition time", updateConditions(undefined, healthy, T0), healthy, { status: "True", lastHeartbeatTime: T1, lastTransitionTime: T0 }],
    ["a status change moves the transition time", updateConditions(undefined, healthy, T0), down, { status: "False", reason: "KubeletNotReady", lastHeartbeatTime: T1, lastTransitionTime: T1 }],
    ["Unknown (set by the controller) back to True is a transition", [{ type: "Ready", status: "Unknown", lastTransitionTime: T0, lastHeartbeatTime: T0 }], healthy, { status: "True", lastTransitionTime: T1 }],
    ["a condition without a transition time gets one", [{ type: "Ready", status: "True" }], healthy, { lastTransitionTime: T1 }],
  ];
  it.each(cases)("%s", (_name, previous, observed, ready) => {
    const next = updateConditions(previous, observed, T1);
    expect(next.find((c) => c.type === "Ready")).toMatchObject(ready);
  });

  it("keeps conditions of other types", () => {
    const other: NodeCondition = { type: "KernelDeadlock", status: "False", lastHeartbeatTime: T0, lastTransitionTime: T0 };
    expect(updateConditions([other], healthy, T1)).toContainEqual(other);
  });
});

describe("statusChanged and shouldPostStatus", () => {
  const base: NodeStatusBody = { capacity: { cpu: "2", memory: "1Ki", pods: "110" }, conditions: updateConditions(undefined, observeConditions({}), T0) };

  it.each<[string, NodeStatusBody, boolean]>([
    ["only heartbeat times differ", { ...base, conditions: updateConditions(base.conditions, observeConditions({}), T1) }, false],
    ["a condition's status differs", { ...base, conditions: updateConditions(base.conditions, observeConditions({ runtimeError: "x" }), T1) }, true],
    ["capacity differs", { ...base, capacity: { cpu: "4", memory: "1Ki", pods: "110" } }, true],
    ["same content, other key order", { conditions: base.conditions, capacity: { pods: "110", memory: "1Ki", cpu: "2" } }, false],
    ["conditions in another order", { ...base, conditions: [...(base.conditions ?? [])].reverse() }, false],
  ])("%s → %s", (_name, after, changed) => {
    expect(statusChanged(base, after)).toBe(changed);
  });

  it.each<[boolean, number, number | undefined, boolean, string]>([
    [true, 1000, 0, true, "changed"],
    [false, 1000, undefined, true, "never posted"],
    [false, 299_999, 0, false, "unchanged, under the report frequency"],
    [false, 300_000, 0, true, "unchanged, report frequency reached"],
  ])("changed=%s now=%i lastPost=%s → post %s (%s)", (changed, nowMs, lastPostMs, post) => {
    expect(shouldPostStatus({ changed, nowMs, lastPostMs, reportFrequencyMs: 300_000 })).toBe(post);
  });

  it("apiTime writes whole seconds in UTC", () => {
    expect(apiTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678))).toBe("2026-01-02T03:04:05Z");
  });
});
