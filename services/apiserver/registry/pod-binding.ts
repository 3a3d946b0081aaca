/**
 * Binding a pod to a node (what a scheduler posts to `pods/{name}/binding` or to
 * `bindings`), as pure functions: validation of the Binding, and the pod after the
 * binding. The handler runs `bindPod` inside the store's compare-and-swap on the pod,
 * so `spec.nodeName` is set exactly once even when two schedulers race.
 *
 * Refusals are the platform's: 422 for a bad target, 409 Conflict on `pods/binding`
 * when the pod is already assigned, Terminating, gated, or fails the Binding's uid or
 * resourceVersion precondition.
 */
import { conflict, invalid, type StatusError } from "../../../shared/api/status.ts";
import type { FieldError } from "../../../shared/schema/types.ts";
import { fieldErrors } from "../../../shared/schema/field-errors.ts";
import { isObject, meta, type JsonObject } from "../storage/object.ts";

function podBindingConflict(pod: string, detail: string): StatusError {
  return conflict("pods/binding", pod, "", detail);
}

/** ValidatePodBinding: target.kind empty or Node, target.name required. */
export function validateBinding(binding: JsonObject): void {
  const target = isObject(binding.target) ? binding.target : {};
  const errors: FieldError[] = [];
  if (typeof target.kind === "string" && target.kind !== "" && target.kind !== "Node") {
    errors.push(fieldErrors.notSupported("target.kind", target.kind, ["Node", "<empty>"]));
  }
  if (typeof target.name !== "string" || target.name === "") errors.push(fieldErrors.required("target.name"));
  if (errors.length > 0) throw invalid("Binding", meta(binding).name ?? "", errors);
}

/** The pod bound to the Binding's node, with the Binding's annotations and PodScheduled=True. */
export function bindPod(pod: JsonObject, binding: JsonObject, nowIso: string): JsonObject {
  const m = meta(pod);
  const name = m.name ?? "";
  const b = meta(binding);
  if (m.deletionTimestamp) throw podBindingConflict(name, `pod ${name} is being deleted, cannot be assigned to a host`);
  if (b.uid && b.uid !== m.uid) throw podBindingConflict(name, `Precondition failed: UID in precondition: ${b.uid}, UID in object meta: ${m.uid ?? ""}`);
  if (b.resourceVersion && b.resourceVersion !== m.resourceVersion) {
    throw podBindingConflict(name, `Precondition failed: ResourceVersion in precondition: ${b.resourceVersion}, ResourceVersion in object meta: ${m.resourceVersion ?? ""}`);
  }
  const spec: JsonObject = isObject(pod.spec) ? { ...pod.spec } : {};
  if (typeof spec.nodeName === "string" && spec.nodeName !== "") throw podBindingConflict(name, `pod ${name} is already assigned to node "${spec.nodeName}"`);
  if (Array.isArray(spec.schedulingGates) && spec.schedulingGates.length > 0) throw podBindingConflict(name, `pod ${name} has non-empty .spec.schedulingGates`);
  spec.nodeName = (binding.target as JsonObject).name;
  const status: JsonObject = isObject(pod.status) ? { ...pod.status } : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isObject) : [];
  const prior = conditions.find((c) => c.type === "PodScheduled");
  const scheduled: JsonObject = { ...(prior ?? {}), type: "PodScheduled", status: "True" };
  if (prior?.status !== "True") {
    scheduled.lastTransitionTime = nowIso;
    delete scheduled.reason;
    delete scheduled.message;
  }
  if (!scheduled.lastProbeTime) scheduled.lastProbeTime = null;
  status.conditions = prior ? conditions.map((c) => (c === prior ? scheduled : c)) : [...conditions, scheduled];
  const annotations = { ...(m.annotations ?? {}), ...(b.annotations ?? {}) };
  const metadata = { ...m, ...(Object.keys(annotations).length > 0 ? { annotations } : {}) };
  return { ...pod, metadata, spec, status };
}
