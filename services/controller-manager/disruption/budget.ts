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

/**
 * How long an eviction's entry in `status.disruptedPods` keeps its pod out of
 * currentHealthy while the pod has not yet been seen terminating (the platform's
 * DeletionTimeout). Without it, a sync that runs between the eviction's budget write and
 * the pod's deletion would count the evicted pod healthy and allow a second disruption.
 */
export const DELETION_TIMEOUT_MS = 2 * 60 * 1000;

/** What the budget arithmetic needs of one picked pod. */
export interface PickedPod {
  name: string;
  /** deletionTimestamp is set. */
  terminating: boolean;
  /** Ready condition True. */
  ready: boolean;
}

export interface DisruptedPodsView {
  /** The entries still in force: pods picked, not yet terminating, recorded less than DELETION_TIMEOUT_MS ago. */
  disruptedPods: Record<string, string>;
  /** When the earliest kept entry expires (ms since the epoch); the budget must be synced again then. */
  recheckAtMs?: number;
  /** Pods recorded as disrupted whose deletion did not come within DELETION_TIMEOUT_MS. */
  notDeleted: string[];
}

/**
 * Prunes `status.disruptedPods` as the platform's disruption controller does: entries of
 * pods that are gone or terminating are dropped (their eviction is confirmed), entries
 * older than DELETION_TIMEOUT_MS expire, the rest are kept.
 */
export function disruptedPodsInForce(pods: readonly PickedPod[], recorded: Readonly<Record<string, string>> | undefined, nowMs: number): DisruptedPodsView {
  const view: DisruptedPodsView = { disruptedPods: {}, notDeleted: [] };
  if (!recorded) return view;
  for (const pod of pods) {
    const at = recorded[pod.name];
    if (pod.terminating || at === undefined) continue;
    const expiresAt = Date.parse(at) + DELETION_TIMEOUT_MS;
    if (!(expiresAt > nowMs)) {
      view.notDeleted.push(pod.name);
      continue;
    }
    view.disruptedPods[pod.name] = at;
    if (view.recheckAtMs === undefined || expiresAt < view.recheckAtMs) view.recheckAtMs = expiresAt;
  }
  return view;
}

/** Ready pods that are neither terminating nor recorded as disrupted (entries in force only). */
export function countHealthy(pods: readonly PickedPod[], inForce: Readonly<Record<string, string>>): number {
  return pods.filter((p) => p.ready && !p.terminating && inForce[p.name] === undefined).length;
}
