/**
 * The disruption-budget rules of a pod eviction, as pure functions (no I/O, no clock):
 * which budgets cover a pod, whether the budget may be skipped, and the budget's
 * status after one more accepted disruption. The eviction handler reads the pod and
 * the budgets, asks `planEviction`, writes the budget through the store with a
 * compare-and-swap (`decrementBudget` runs inside it), then deletes the pod.
 *
 * Contract (the platform's eviction subresource):
 * - a pod that is Succeeded, Failed, Pending or already Terminating is deleted
 *   without looking at budgets;
 * - budgets are those of the pod's namespace whose non-empty selector matches the
 *   pod's labels; more than one is refused with 500;
 * - a pod that is not Ready is deleted without spending the budget when the budget's
 *   `unhealthyPodEvictionPolicy` is AlwaysAllow, or (IfHealthyBudget, the default)
 *   when `currentHealthy >= desiredHealthy > 0`;
 * - otherwise the budget must be observed (`status.observedGeneration >=
 *   metadata.generation`), have `disruptionsAllowed > 0` and at most 2000 disrupted
 *   pods; the eviction lowers `disruptionsAllowed` and records the pod in
 *   `status.disruptedPods`.
 */
import { labelSelectorFromObject, type LabelSelector } from "../../../shared/api/selectors.ts";
import { forbiddenWithReason, statusError, type StatusError } from "../../../shared/api/status.ts";
import { isObject, meta, type JsonObject } from "../storage/object.ts";

/** Above this many unconfirmed disruptions the budget refuses evictions (the platform's MaxDisruptedPodSize). */
export const MAX_DISRUPTED_PODS = 2000;

export const EVICTION_REFUSED_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget.";
export const MULTIPLE_BUDGETS_MESSAGE = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.";

/** What to do with an eviction request once the pod and the budgets are read. */
export type EvictionPlan =
  /**
   * Delete without spending a budget; `pinResourceVersion` makes the pod's resourceVersion a
   * precondition (a pod that turned Ready meanwhile is not deleted on a stale decision).
   */
  | { action: "delete"; pinResourceVersion: boolean; budget?: string }
  /** Spend one disruption of this budget, then delete the pod pinned to its resourceVersion. */
  | { action: "spend"; budget: string }
  /** Refuse with 500: several budgets cover the pod. */
  | { action: "ambiguous" };

function phase(pod: JsonObject): string | undefined {
  const status = isObject(pod.status) ? pod.status : {};
  return typeof status.phase === "string" ? status.phase : undefined;
}

/** Ready condition True (the platform's IsPodReady). */
export function isPodReady(pod: JsonObject): boolean {
  const status = isObject(pod.status) ? pod.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  return conditions.some((c) => isObject(c) && c.type === "Ready" && c.status === "True");
}

/** Terminal, not yet running, or already Terminating: the budget does not apply. */
export function canIgnoreBudget(pod: JsonObject): boolean {
  const p = phase(pod);
  return p === "Succeeded" || p === "Failed" || p === "Pending" || !!meta(pod).deletionTimestamp;
}

/** A terminal or Terminating pod needs no resourceVersion precondition on its deletion. */
function pinsResourceVersion(pod: JsonObject): boolean {
  const p = phase(pod);
  return !(p === "Succeeded" || p === "Failed" || meta(pod).deletionTimestamp);
}

/** The budgets of the pod's namespace whose selector is valid, not empty, and matches the pod. */
export function budgetsCovering(pod: JsonObject, budgets: readonly JsonObject[]): JsonObject[] {
  const m = meta(pod);
  return budgets.filter((pdb) => {
    if (meta(pdb).namespace !== m.namespace) return false;
    const spec = isObject(pdb.spec) ? pdb.spec : {};
    try {
      const selector = labelSelectorFromObject(spec.selector as LabelSelector | undefined);
      return !selector.empty() && selector.matches(m.labels ?? {});
    } catch {
      return false; // an invalid selector matches nothing
    }
  });
}

function num(obj: JsonObject, section: string, field: string): number {
  const part = obj[section];
  const v = isObject(part) ? part[field] : undefined;
  return typeof v === "number" ? v : 0;
}

export function planEviction(pod: JsonObject, budgets: readonly JsonObject[]): EvictionPlan {
  if (canIgnoreBudget(pod)) return { action: "delete", pinResourceVersion: pinsResourceVersion(pod) };
  const covering = budgetsCovering(pod, budgets);
  if (covering.length > 1) return { action: "ambiguous" };
  if (covering.length === 0) return { action: "delete", pinResourceVersion: false };
  const pdb = covering[0];
  const name = meta(pdb).name ?? "";
  if (!isPodReady(pod)) {
    const spec = isObject(pdb.spec) ? pdb.spec : {};
    if (spec.unhealthyPodEvictionPolicy === "AlwaysAllow") return { action: "delete", pinResourceVersion: true, budget: name };
    const desired = num(pdb, "status", "desiredHealthy");
    if (num(pdb, "status", "currentHealthy") >= desired && desired > 0) return { action: "delete", pinResourceVersion: true, budget: name };
  }
  return { action: "spend", budget: name };
}

/** 429 with the DisruptionBudget cause; clients (kubectl drain) retry after `retryAfterSeconds`. */
export function budgetViolation(causeMessage: string, retryAfterSeconds: number): StatusError {
  return statusError({
    code: 429,
    reason: "TooManyRequests",
    message: EVICTION_REFUSED_MESSAGE,
    details: { retryAfterSeconds, causes: [{ reason: "DisruptionBudget", message: causeMessage }] },
  });
}

/** 429 asking the client to come back: the budget controller has not caught up (or the pod changed meanwhile). */
export function budgetPending(budget: string): StatusError {
  return budgetViolation(`The disruption budget ${budget} is still being processed by the server.`, 10);
}

/**
 * The budget after one more accepted disruption of `podName` at `nowIso`; throws the
 * platform's refusals. With `dryRun` the returned budget records no disrupted pod.
 */
export function decrementBudget(pdb: JsonObject, podName: string, nowIso: string, dryRun: boolean): JsonObject {
  const name = meta(pdb).name ?? "";
  const status: JsonObject = isObject(pdb.status) ? { ...pdb.status } : {};
  const observed = typeof status.observedGeneration === "number" ? status.observedGeneration : 0;
  if (observed < (meta(pdb).generation ?? 0)) throw budgetPending(name);
  const allowed = typeof status.disruptionsAllowed === "number" ? status.disruptionsAllowed : 0;
  if (allowed < 0) throw forbiddenWithReason("poddisruptionbudget", name, "pdb disruptions allowed is negative", "policy");
  const disrupted = isObject(status.disruptedPods) ? { ...status.disruptedPods } : {};
  if (Object.keys(disrupted).length > MAX_DISRUPTED_PODS) {
    throw forbiddenWithReason("poddisruptionbudget", name, "DisruptedPods map too big - too many evictions not confirmed by PDB controller", "policy");
  }
  if (allowed === 0) {
    throw budgetViolation(`The disruption budget ${name} needs ${num(pdb, "status", "desiredHealthy")} healthy pods and has ${num(pdb, "status", "currentHealthy")} currently`, 0);
  }
  status.disruptionsAllowed = allowed - 1;
  if (status.disruptionsAllowed === 0) status.conditions = withInsufficientPods(status.conditions, nowIso, observed);
  if (!dryRun) {
    disrupted[podName] = nowIso;
    status.disruptedPods = disrupted;
  }
  return { ...pdb, status };
}

/** The DisruptionAllowed condition turned False with reason InsufficientPods (the platform's helper). */
function withInsufficientPods(conditions: unknown, nowIso: string, observedGeneration: number): JsonObject[] {
  const list = Array.isArray(conditions) ? conditions.filter(isObject) : [];
  const prior = list.find((c) => c.type === "DisruptionAllowed");
  const next: JsonObject = {
    type: "DisruptionAllowed",
    status: "False",
    reason: "InsufficientPods",
    message: "",
    observedGeneration,
    lastTransitionTime: prior?.status === "False" && typeof prior.lastTransitionTime === "string" ? prior.lastTransitionTime : nowIso,
  };
  return [...list.filter((c) => c.type !== "DisruptionAllowed"), next];
}
