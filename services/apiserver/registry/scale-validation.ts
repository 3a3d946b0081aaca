/**
 * The hand-written validation of a Scale written through a workload's scale
 * subresource (the platform's ValidateScale): `spec.replicas` must not be negative
 * (`spec.replicas: Invalid value: -1: must be greater than or equal to 0`).
 * The caller has checked that `spec.replicas` is an integer.
 */
import { fieldErrors } from "../../../shared/schema/field-errors.ts";
import type { FieldError } from "../../../shared/schema/types.ts";
import { isObject, type JsonObject } from "../storage/object.ts";

export function validateScaleSpec(scale: JsonObject): FieldError[] {
  const replicas = isObject(scale.spec) ? scale.spec.replicas : undefined;
  if (typeof replicas === "number" && replicas < 0) return [fieldErrors.invalid("spec.replicas", replicas, "must be greater than or equal to 0")];
  return [];
}
