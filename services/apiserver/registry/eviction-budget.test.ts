import { describe, expect, it } from "vitest";
import { isStatusError, type StatusError } from "../../../shared/api/status.ts";
import type { JsonObject } from "../storage/object.ts";
import { budgetsCovering, decrementBudget, MAX_DISRUPTED_PODS, planEviction, type EvictionPlan } from "./eviction-budget.ts";
import { bindPod, validateBinding } from "./pod-binding.ts";

const NOW = "2026-01-01T00:00:00Z";

function pod(opts: { phase?: string; ready?: boolean; labels?: Record<string, string>; terminating?: boolean; ns?: string } = {}): JsonObject {
  return {
    metadata: { name: "p", namespace: opts.ns ?? "ns", labels: opts.labels ?? { app: "a" }, resourceVersion: "7", uid: "u1", ...(opts.terminating ? { deletionTimestamp: NOW } : {}) },
    spec: {},
    status: { phase: opts.phase ?? "Running", conditions: [{ type: "Ready", status: opts.ready === false ? "False" : "True" }] },
  };
}

function pdb(name: string, opts: { selector?: unknown; allowed?: number; current?: number; desired?: number; policy?: string; generation?: number; observed?: number; disrupted?: number; ns?: string } = {}): JsonObject {
  const disruptedPods: Record<string, string> = {};
  for (let i = 0; i < (opts.disrupted ?? 0); i++) disruptedPods[`d${i}`] = NOW;
  return {
    metadata: { name, namespace: opts.ns ?? "ns", generation: opts.generation ?? 1 },
    spec: { selector: opts.selector === undefined ? { matchLabels: { app: "a" } } : opts.selector, ...(opts.policy ? { unhealthyPodEvictionPolicy: opts.policy } : {}) },
    status: { observedGeneration: opts.observed ?? 1, disruptionsAllowed: opts.allowed ?? 1, currentHealthy: opts.current ?? 3, desiredHealthy: opts.desired ?? 2, disruptedPods },
  };
}

describe("budgetsCovering", () => {
  it.each([
    ["matching selector", pdb("x"), true],
    ["other labels", pdb("x", { selector: { matchLabels: { app: "b" } } }), false],
    ["empty selector matches nothing", pdb("x", { selector: {} }), false],
    ["no selector matches nothing", pdb("x", { selector: null }), false],
    ["invalid operator matches nothing", pdb("x", { selector: { matchExpressions: [{ key: "app", operator: "Near" }] } }), false],
    ["other namespace", pdb("x", { ns: "other" }), false],
    ["expression", pdb("x", { selector: { matchExpressions: [{ key: "app", operator: "In", values: ["a", "c"] }] } }), true],
  ])("%s", (_name, budget, covers) => {
    expect(budgetsCovering(pod(), [budget]).length).toBe(covers ? 1 : 0);
  });
});

describe("planEviction", () => {
  it.each<[string, JsonObject, JsonObject[], EvictionPlan]>([
    ["no budget", pod(), [], { action: "delete", pinResourceVersion: false }],
    ["Pending ignores budgets and pins", pod({ phase: "Pending" }), [pdb("x", { allowed: 0 })], { action: "delete", pinResourceVersion: true }],
    ["Succeeded ignores budgets, no pin", pod({ phase: "Succeeded" }), [pdb("x")], { action: "delete", pinResourceVersion: false }],
    ["Failed ignores budgets, no pin", pod({ phase: "Failed" }), [pdb("x")], { action: "delete", pinResourceVersion: false }],
    ["Terminating ignores budgets, no pin", pod({ terminating: true }), [pdb("x")], { action: "delete", pinResourceVersion: false }],
    ["two budgets", pod(), [pdb("x"), pdb("y")], { action: "ambiguous" }],
    ["ready pod spends", pod(), [pdb("x")], { action: "spend", budget: "x" }],
    ["unready, healthy budget", pod({ ready: false }), [pdb("x", { allowed: 0, current: 2, desired: 2 })], { action: "delete", pinResourceVersion: true, budget: "x" }],
    ["unready, unhealthy budget", pod({ ready: false }), [pdb("x", { allowed: 0, current: 1, desired: 2 })], { action: "spend", budget: "x" }],
    ["unready, desired 0", pod({ ready: false }), [pdb("x", { current: 0, desired: 0 })], { action: "spend", budget: "x" }],
    ["unready, AlwaysAllow", pod({ ready: false }), [pdb("x", { allowed: 0, current: 0, desired: 2, policy: "AlwaysAllow" })], { action: "delete", pinResourceVersion: true, budget: "x" }],
  ])("%s", (_name, p, budgets, plan) => {
    expect(planEviction(p, budgets)).toEqual(plan);
  });
});

function refusal(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (isStatusError(err)) return err;
    throw err;
  }
  throw new Error("no refusal");
}

describe("decrementBudget", () => {
  it("lowers disruptionsAllowed, records the pod and turns DisruptionAllowed False at zero", () => {
    const out = decrementBudget(pdb("x", { allowed: 1 }), "p", NOW, false);
    expect(out.status).toMatchObject({ disruptionsAllowed: 0, disruptedPods: { p: NOW } });
    expect((out.status as { conditions: unknown[] }).conditions).toEqual([expect.objectContaining({ type: "DisruptionAllowed", status: "False", reason: "InsufficientPods", lastTransitionTime: NOW })]);
    const more = decrementBudget(pdb("x", { allowed: 3 }), "p", NOW, false);
    expect(more.status).toMatchObject({ disruptionsAllowed: 2 });
    expect((more.status as { conditions?: unknown }).conditions).toBeUndefined();
  });

  it("dry run lowers the count but records no pod", () => {
    expect((decrementBudget(pdb("x", { allowed: 2 }), "p", NOW, true).status as JsonObject).disruptedPods).toEqual({});
  });

  it.each([
    ["exhausted", pdb("x", { allowed: 0, current: 3, desired: 2 }), 429, "The disruption budget x needs 2 healthy pods and has 3 currently"],
    ["not observed", pdb("x", { generation: 2, observed: 1 }), 429, "The disruption budget x is still being processed by the server."],
  ])("%s is 429 with the DisruptionBudget cause", (_name, budget, code, cause) => {
    const err = refusal(() => decrementBudget(budget, "p", NOW, false));
    expect(err.status).toMatchObject({ code, reason: "TooManyRequests", message: "Cannot evict pod as it would violate the pod's disruption budget.", details: { causes: [{ reason: "DisruptionBudget", message: cause }] } });
  });

  it.each([
    ["negative", pdb("x", { allowed: -1 }), 'poddisruptionbudget.policy "x" is forbidden: pdb disruptions allowed is negative'],
    ["too many disrupted", pdb("x", { disrupted: MAX_DISRUPTED_PODS + 1 }), 'poddisruptionbudget.policy "x" is forbidden: DisruptedPods map too big - too many evictions not confirmed by PDB controller'],
  ])("%s is 403", (_name, budget, message) => {
    expect(refusal(() => decrementBudget(budget, "p", NOW, false)).status).toMatchObject({ code: 403, message });
  });
});

describe("pod binding", () => {
  const binding = (extra: JsonObject = {}): JsonObject => ({ metadata: { name: "p", ...extra }, target: { name: "n1" } });
  it("sets nodeName, annotations and PodScheduled once", () => {
    const bound = bindPod(pod(), binding({ annotations: { a: "1" } }), NOW);
    expect(bound.spec).toEqual({ nodeName: "n1" });
    expect((bound.metadata as JsonObject).annotations).toEqual({ a: "1" });
    expect((bound.status as { conditions: unknown[] }).conditions).toContainEqual(expect.objectContaining({ type: "PodScheduled", status: "True", lastTransitionTime: NOW }));
  });

  it.each([
    ["already bound", { ...pod(), spec: { nodeName: "n0" } }, binding(), 'pod p is already assigned to node "n0"'],
    ["terminating", pod({ terminating: true }), binding(), "pod p is being deleted, cannot be assigned to a host"],
    ["gated", { ...pod(), spec: { schedulingGates: [{ name: "g" }] } }, binding(), "pod p has non-empty .spec.schedulingGates"],
    ["uid", pod(), binding({ uid: "u2" }), "Precondition failed: UID in precondition: u2, UID in object meta: u1"],
    ["resourceVersion", pod(), binding({ resourceVersion: "6" }), "Precondition failed: ResourceVersion in precondition: 6, ResourceVersion in object meta: 7"],
  ])("%s is 409 on pods/binding", (_name, p, b, detail) => {
    expect(refusal(() => bindPod(p, b, NOW)).status).toMatchObject({ code: 409, reason: "Conflict", message: `Operation cannot be fulfilled on pods/binding "p": ${detail}` });
  });

  it.each([
    ["Node", { kind: "Node", name: "n" }, undefined],
    ["empty kind", { name: "n" }, undefined],
    ["other kind", { kind: "Pod", name: "n" }, 'Binding "p" is invalid: target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"'],
    ["no name", {}, 'Binding "p" is invalid: target.name: Required value'],
  ])("target %s", (_name, target, message) => {
    const b = { metadata: { name: "p" }, target };
    if (message === undefined) expect(() => validateBinding(b)).not.toThrow();
    else expect(refusal(() => validateBinding(b)).status).toMatchObject({ code: 422, message });
  });
});
