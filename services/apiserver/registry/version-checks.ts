/**
 * Checks a registry of a converted kind runs in the request's version: validation
 * by that version's own strategy (so errors name its fields), and whether an update
 * changes anything visible in that version.
 */
import type { FieldError } from "../../../shared/schema/types.ts";
import { cloneValue, deepEqual } from "../../../shared/schema/values.ts";
import { meta, type JsonObject } from "../storage/object.ts";
import type { Strategy } from "./strategy.ts";

/**
 * The errors of `obj` (request version) prepared, defaulted and validated by `strategy`
 * as a create (`old` undefined) or an update of `old` (request version) through
 * `subresource`. `obj` is not mutated.
 */
export function validateInRequestVersion(strategy: Strategy, obj: JsonObject, old: JsonObject | undefined, subresource: string | undefined): FieldError[] {
  let probe = cloneValue(obj);
  if (!old) {
    strategy.prepareForCreate(probe);
    return strategy.validate(strategy.applyDefaults(probe));
  }
  if (subresource === "status") probe = strategy.prepareForStatusUpdate(probe, old);
  else if (!subresource) strategy.prepareForUpdate(probe, old);
  return strategy.validateUpdate(strategy.applyDefaults(probe), old);
}

/** True when two stored objects look the same in a version (`toRequest`), resourceVersion and generation aside. */
export function sameInVersion(toRequest: (obj: JsonObject) => JsonObject, a: JsonObject, b: JsonObject): boolean {
  const view = (o: JsonObject): JsonObject => {
    const c = toRequest(o);
    const m = meta(c);
    delete m.resourceVersion;
    delete m.generation;
    return c;
  };
  return deepEqual(view(a), view(b));
}
