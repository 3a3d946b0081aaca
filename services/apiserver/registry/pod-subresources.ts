/**
 * The pod subresources that change one part of a stored pod, as pure functions:
 * `ephemeralcontainers` (only `spec.ephemeralContainers` changes; existing ones may be
 * neither removed nor changed; an ephemeral container has no ports, probes, lifecycle,
 * resources or restart policy, a name no other container has, and targets a container
 * of the pod) and `resize` (only the containers' `resources` and `resizePolicy` change;
 * only cpu and memory; the QoS class stays). Each has a prepare step (the stored pod with
 * the subresource's part taken from the request) and a validation that replaces the
 * main resource's immutability checks.
 */
import { podQOSClass } from "../../../shared/api/groups/core-v1-pod.ts";
import { fieldErrors } from "../../../shared/schema/field-errors.ts";
import type { FieldError } from "../../../shared/schema/types.ts";
import { cloneValue, deepEqual } from "../../../shared/schema/values.ts";
import { isObject, meta, type JsonObject } from "../storage/object.ts";

export const POD_PART_SUBRESOURCES = ["ephemeralcontainers", "resize"] as const;

function specOf(pod: JsonObject): JsonObject {
  return isObject(pod.spec) ? pod.spec : {};
}

function list(spec: JsonObject, field: string): JsonObject[] {
  const v = spec[field];
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/** The stored pod with the request's identity and resourceVersion (what the platform keeps from the request). */
function fromStored(input: JsonObject, stored: JsonObject): JsonObject {
  const next = cloneValue(stored);
  const m = meta(next);
  const given = meta(input);
  m.resourceVersion = given.resourceVersion;
  if (m.resourceVersion === undefined) delete m.resourceVersion;
  return next;
}

export function prepareEphemeralContainers(input: JsonObject, stored: JsonObject): JsonObject {
  const next = fromStored(input, stored);
  const spec = isObject(next.spec) ? next.spec : (next.spec = {});
  const given = specOf(input).ephemeralContainers;
  if (given === undefined) delete spec.ephemeralContainers;
  else spec.ephemeralContainers = cloneValue(given);
  return next;
}

/** Fields an ephemeral container may not set (the platform's allow list, said as the fields it leaves out). */
const NOT_FOR_EPHEMERAL = ["ports", "lifecycle", "livenessProbe", "readinessProbe", "startupProbe", "resources", "resizePolicy", "restartPolicy"];

export function validateEphemeralContainers(next: JsonObject, stored: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = specOf(next);
  const ephemeral = list(spec, "ephemeralContainers");
  const regular = [...list(spec, "initContainers"), ...list(spec, "containers")].map((c) => c.name);
  const seen = new Set<unknown>(regular);
  ephemeral.forEach((ec, i) => {
    const at = `spec.ephemeralContainers[${i}]`;
    if (seen.has(ec.name)) errors.push(fieldErrors.duplicate(`${at}.name`, ec.name));
    seen.add(ec.name);
    for (const field of NOT_FOR_EPHEMERAL) if (ec[field] !== undefined && ec[field] !== null) errors.push(fieldErrors.forbidden(`${at}.${field}`, "cannot be set for an Ephemeral Container"));
    if (typeof ec.targetContainerName === "string" && ec.targetContainerName !== "" && !regular.includes(ec.targetContainerName)) {
      errors.push(fieldErrors.notFound(`${at}.targetContainerName`, ec.targetContainerName));
    }
  });
  const byName = new Map(ephemeral.map((ec) => [ec.name, ec]));
  for (const old of list(specOf(stored), "ephemeralContainers")) {
    const now = byName.get(old.name);
    if (!now) errors.push(fieldErrors.forbidden("spec.ephemeralContainers", `existing ephemeral containers ${JSON.stringify(old.name)} may not be removed\n`));
    else if (!deepEqual(old, now)) errors.push(fieldErrors.forbidden("spec.ephemeralContainers", `existing ephemeral containers ${JSON.stringify(old.name)} may not be changed\n`));
  }
  return errors;
}

export function prepareResize(input: JsonObject, stored: JsonObject): JsonObject {
  const next = fromStored(input, stored);
  const spec = isObject(next.spec) ? next.spec : (next.spec = {});
  for (const field of ["containers", "initContainers"]) {
    const given = new Map(list(specOf(input), field).map((c) => [c.name, c]));
    for (const c of list(spec, field)) {
      const req = given.get(c.name);
      if (!req) continue;
      for (const part of ["resources", "resizePolicy"]) {
        if (req[part] === undefined) delete c[part];
        else c[part] = cloneValue(req[part]);
      }
    }
  }
  return next;
}

/** A container's resources without cpu and memory (what a resize may not change). */
function withoutCpuMemory(spec: JsonObject): JsonObject {
  const copy = cloneValue(spec);
  for (const field of ["containers", "initContainers"]) {
    for (const c of list(copy, field)) {
      delete c.resizePolicy;
      if (!isObject(c.resources)) continue;
      for (const kind of ["requests", "limits"]) {
        const r = c.resources[kind];
        if (!isObject(r)) continue;
        delete r.cpu;
        delete r.memory;
        if (Object.keys(r).length === 0) delete c.resources[kind];
      }
      if (Object.keys(c.resources).length === 0) delete c.resources;
    }
  }
  return copy;
}

export function validateResize(next: JsonObject, stored: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const before = podQOSClass(stored);
  if (podQOSClass(next) !== before) errors.push(fieldErrors.invalid("spec", before, "Pod QOS Class may not change as a result of resizing"));
  if (!deepEqual(withoutCpuMemory(specOf(next)), withoutCpuMemory(specOf(stored)))) errors.push(fieldErrors.forbidden("spec", "only cpu and memory resources are mutable"));
  return errors;
}
