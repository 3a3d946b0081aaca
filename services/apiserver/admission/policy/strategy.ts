/**
 * The registry strategy of ValidatingAdmissionPolicy: the generic one plus what
 * the schema cannot check, the CEL expressions (matchConditions, variables,
 * validations with messageExpression, auditAnnotations), each of which must
 * compile to the right type, as the platform's validation does at write time:
 * `spec.validations[0].expression: Invalid value: "...": compilation failed: ...`.
 * MutatingAdmissionPolicy likewise for its match conditions, variables and
 * mutations (whose patchType's expression is required). Expressions that
 * compile then pass the estimated cost check (cost-check.ts).
 */
import { invalid, required } from "../../../../shared/api/field-errors.ts";
import type { FieldError, KindDefinition } from "../../../../shared/schema/types.ts";
import { genericStrategy, type Strategy } from "../../registry/strategy.ts";
import type { JsonObject } from "../../storage/object.ts";
import { costErrors, type CompiledAt } from "../cost-check.ts";
import { compileErrors } from "./compile.ts";
import { mutatingPolicyFieldErrors } from "./mutating-compile.ts";

function expressionErrors(obj: JsonObject): FieldError[] {
  const { errors, compiled } = compileErrors(obj);
  const invalids = errors.map((e) => {
    const text = e.detail.startsWith("must evaluate to") || e.detail.startsWith("compilation failed") ? e.detail : `compilation failed: ${e.detail}`;
    return invalid(e.path, e.source, text);
  });
  return [...invalids, ...costErrors(compiled, "spec")];
}

/** The generic strategy plus `errors` on create and update. */
function withErrors(def: KindDefinition, errors: (obj: JsonObject) => FieldError[]): Strategy {
  const base = genericStrategy(def);
  return {
    ...base,
    validate(obj) {
      return [...base.validate(obj), ...errors(obj)];
    },
    validateUpdate(obj, old) {
      return [...base.validateUpdate(obj, old), ...errors(obj)];
    },
  };
}

export function validatingAdmissionPolicyStrategy(def: KindDefinition): Strategy {
  return withErrors(def, expressionErrors);
}

function mutatingErrors(obj: JsonObject): FieldError[] {
  const compiled: CompiledAt[] = [];
  const errors = mutatingPolicyFieldErrors(obj, compiled).map((e) => (e.value === undefined ? required(e.path, e.detail) : invalid(e.path, e.value, e.detail)));
  return [...errors, ...costErrors(compiled, "spec")];
}

export function mutatingAdmissionPolicyStrategy(def: KindDefinition): Strategy {
  return withErrors(def, mutatingErrors);
}
