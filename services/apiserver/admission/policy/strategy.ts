/**
 * The registry strategy of ValidatingAdmissionPolicy: the generic one plus what
 * the schema cannot check, the CEL expressions (matchConditions, variables,
 * validations with messageExpression, auditAnnotations), each of which must
 * compile to the right type, as the platform's validation does at write time:
 * `spec.validations[0].expression: Invalid value: "...": compilation failed: ...`.
 */
import { invalid } from "../../../../shared/api/field-errors.ts";
import type { FieldError, KindDefinition } from "../../../../shared/schema/types.ts";
import { genericStrategy, type Strategy } from "../../registry/strategy.ts";
import type { JsonObject } from "../../storage/object.ts";
import { compileErrors } from "./compile.ts";

function expressionErrors(obj: JsonObject): FieldError[] {
  return compileErrors(obj).map((e) => {
    const text = e.detail.startsWith("must evaluate to") || e.detail.startsWith("compilation failed") ? e.detail : `compilation failed: ${e.detail}`;
    return invalid(e.path, e.source, text);
  });
}

export function validatingAdmissionPolicyStrategy(def: KindDefinition): Strategy {
  const base = genericStrategy(def);
  return {
    ...base,
    validate(obj) {
      return [...base.validate(obj), ...expressionErrors(obj)];
    },
    validateUpdate(obj, old) {
      return [...base.validateUpdate(obj, old), ...expressionErrors(obj)];
    },
  };
}
