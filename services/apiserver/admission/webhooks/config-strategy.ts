/**
 * The registry strategy of Mutating/ValidatingWebhookConfiguration: the generic
 * one plus what the schema cannot check, the CEL match conditions (each must
 * compile to a bool), as the platform's validation does at write time.
 */
import { invalid } from "../../../../shared/api/field-errors.ts";
import type { FieldError, KindDefinition } from "../../../../shared/schema/types.ts";
import { genericStrategy, type Strategy } from "../../registry/strategy.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import { compileCondition } from "./hook.ts";

function conditionErrors(obj: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const hooks = Array.isArray(obj.webhooks) ? obj.webhooks : [];
  hooks.forEach((h, i) => {
    if (!isObject(h) || !Array.isArray(h.matchConditions)) return;
    h.matchConditions.forEach((c, j) => {
      if (!isObject(c) || typeof c.expression !== "string" || c.expression.trim() === "") return;
      try {
        compileCondition(c.expression);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        const text = message === "must evaluate to bool" || message.startsWith("compilation failed") ? message : `compilation failed: ${message}`;
        errors.push(invalid(`webhooks[${i}].matchConditions[${j}].expression`, c.expression, text));
      }
    });
  });
  return errors;
}

export function webhookConfigurationStrategy(def: KindDefinition): Strategy {
  const base = genericStrategy(def);
  return {
    ...base,
    validate(obj) {
      return [...base.validate(obj), ...conditionErrors(obj)];
    },
    validateUpdate(obj, old) {
      return [...base.validateUpdate(obj, old), ...conditionErrors(obj)];
    },
  };
}
