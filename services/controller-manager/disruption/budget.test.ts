/** PodDisruptionBudget arithmetic as a table: (spec, picked pods, controllers' scale, healthy) → numbers. */
import { describe, expect, it } from "vitest";
import { budgetNumbers, countHealthy, DELETION_TIMEOUT_MS, disruptedPodsInForce, needsControllerScale, type BudgetSpec, type PickedPod } from "./budget.ts";

describe("budgetNumbers", () => {
  const rows: Array<[BudgetSpec, number, number, number, [number, number, number]]> = [
    // spec, picked, scale, healthy → [expected, desired, allowed]
    [{ minAvailable: 2 }, 3, 0, 3, [3, 2, 1]],
    [{ minAvailable: 2 }, 3, 0, 1, [3, 2, 0]],
    [{ minAvailable: "50%" }, 3, 5, 5, [5, 3, 2]],
    [{ maxUnavailable: 1 }, 2, 4, 4, [4, 3, 1]],
    [{ maxUnavailable: "25%" }, 3, 4, 3, [4, 3, 0]],
    [{ maxUnavailable: "30%" }, 3, 4, 4, [4, 2, 2]],
    [{ maxUnavailable: 10 }, 3, 4, 4, [4, 0, 4]],
    [{}, 2, 0, 2, [2, 0, 2]],
  ];
  for (const [spec, picked, scale, healthy, [expected, desired, allowed]] of rows) {
    it(`${JSON.stringify(spec)} picked ${picked} scale ${scale} healthy ${healthy}`, () => {
      expect(budgetNumbers(spec, picked, scale, healthy)).toEqual({ expectedPods: expected, desiredHealthy: desired, currentHealthy: healthy, disruptionsAllowed: allowed });
    });
  }
  it("needs the controllers' scale for percentages and maxUnavailable only", () => {
    expect([{ minAvailable: 1 }, { minAvailable: "10%" }, { maxUnavailable: 1 }].map(needsControllerScale)).toEqual([false, true, true]);
  });
});

describe("disruptedPods in force and currentHealthy", () => {
  const now = Date.parse("2026-01-01T00:10:00Z");
  const ago = (ms: number) => new Date(now - ms).toISOString().replace(/\.\d{3}Z$/, "Z");
  const ready = (name: string, terminating = false): PickedPod => ({ name, terminating, ready: true });
  const rows: Array<{ name: string; pods: PickedPod[]; recorded?: Record<string, string>; inForce: string[]; healthy: number; recheckInMs?: number; notDeleted?: string[] }> = [
    { name: "no record: every Ready pod is healthy", pods: [ready("a"), ready("b")], inForce: [], healthy: 2 },
    { name: "an evicted pod not yet terminating is not healthy", pods: [ready("a"), ready("b")], recorded: { a: ago(1_000) }, inForce: ["a"], healthy: 1, recheckInMs: DELETION_TIMEOUT_MS - 1_000 },
    { name: "an evicted pod seen terminating leaves the record", pods: [ready("a", true), ready("b")], recorded: { a: ago(1_000) }, inForce: [], healthy: 1 },
    { name: "an evicted pod that is gone leaves the record", pods: [ready("b")], recorded: { a: ago(1_000) }, inForce: [], healthy: 1 },
    { name: "a record older than the deletion timeout expires", pods: [ready("a"), ready("b")], recorded: { a: ago(DELETION_TIMEOUT_MS + 1) }, inForce: [], healthy: 2, notDeleted: ["a"] },
    { name: "the earliest expiry sets the recheck", pods: [ready("a"), ready("b"), ready("c")], recorded: { a: ago(5_000), b: ago(60_000) }, inForce: ["a", "b"], healthy: 1, recheckInMs: DELETION_TIMEOUT_MS - 60_000 },
    { name: "an unparsable record expires", pods: [ready("a")], recorded: { a: "yesterday" }, inForce: [], healthy: 1, notDeleted: ["a"] },
    { name: "a pod not Ready is never healthy", pods: [{ name: "a", terminating: false, ready: false }, ready("b")], inForce: [], healthy: 1 },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const view = disruptedPodsInForce(row.pods, row.recorded, now);
      expect(Object.keys(view.disruptedPods).sort()).toEqual(row.inForce);
      expect(view.notDeleted).toEqual(row.notDeleted ?? []);
      expect(view.recheckAtMs === undefined ? undefined : view.recheckAtMs - now).toBe(row.recheckInMs);
      expect(countHealthy(row.pods, view.disruptedPods)).toBe(row.healthy);
    });
  }
});
