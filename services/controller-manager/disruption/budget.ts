/**
 * The PodDisruptionBudget arithmetic, pure, as the platform computes a budget's status:
 * - `minAvailable` as a number: expected = matching pods, desiredHealthy = the number;
 * - `minAvailable` as a percentage: expected = the scale of the pods' controllers,
 *   desiredHealthy = ceil(percentage × expected);
 * - `maxUnavailable` (number or percentage, rounded up): expected = the controllers'
 *   scale, desiredHealthy = max(0, expected − maxUnavailable);
 * - disruptionsAllowed = max(0, currentHealthy − desiredHealthy); the DisruptionAllowed
 *   condition is True (SufficientPods) when it is positive, else False (InsufficientPods).
 */
export type IntOrPercent = number | string;

export interface BudgetSpec {
  minAvailable?: IntOrPercent;
  maxUnavailable?: IntOrPercent;
}

export interface BudgetNumbers {
  expectedPods: number;
  desiredHealthy: number;
  currentHealthy: number;
  disruptionsAllowed: number;
}

export function isPercent(v: IntOrPercent | undefined): v is string {
  return typeof v === "string" && /^\d+%$/.test(v);
}

function scaled(v: IntOrPercent, total: number): number {
  if (typeof v === "number") return v;
  if (isPercent(v)) return Math.ceil((Number(v.slice(0, -1)) * total) / 100);
  const n = Number(v);
  if (!Number.isInteger(n)) throw new Error(`invalid value for IntOrString: invalid value "${v}"`);
  return n;
}

/** Whether the budget needs the pods' controllers' scale (percentages and maxUnavailable). */
export function needsControllerScale(spec: BudgetSpec): boolean {
  return spec.maxUnavailable !== undefined || isPercent(spec.minAvailable);
}

export function budgetNumbers(spec: BudgetSpec, matchingPods: number, controllerScale: number, currentHealthy: number): BudgetNumbers {
  let expectedPods: number;
  let desiredHealthy: number;
  if (spec.maxUnavailable !== undefined) {
    expectedPods = controllerScale;
    desiredHealthy = Math.max(0, expectedPods - scaled(spec.maxUnavailable, expectedPods));
  } else if (spec.minAvailable !== undefined && isPercent(spec.minAvailable)) {
    expectedPods = controllerScale;
    desiredHealthy = scaled(spec.minAvailable, expectedPods);
  } else {
    expectedPods = matchingPods;
    desiredHealthy = spec.minAvailable === undefined ? 0 : scaled(spec.minAvailable, matchingPods);
  }
  return { expectedPods, desiredHealthy, currentHealthy, disruptionsAllowed: Math.max(0, currentHealthy - desiredHealthy) };
}
