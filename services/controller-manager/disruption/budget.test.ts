/** PodDisruptionBudget arithmetic as a table: (spec, picked pods, controllers' scale, healthy) → numbers. */
import { describe, expect, it } from "vitest";
import { budgetNumbers, needsControllerScale, type BudgetSpec } from "./budget.ts";

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
