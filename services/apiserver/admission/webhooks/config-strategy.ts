/**
 * The registry strategy of Mutating/ValidatingWebhookConfiguration: the generic
 * one plus what the schema cannot check, the CEL match conditions (each must
 * compile to a bool, as the platform's validation does at write time, and stay
 * within the estimated cost limit (cost-check.ts).
 */
import { invalid } from "../../../../shared/api/field-errors.ts";
import type { FieldError, KindDefinition } from "../../../../shared/schema/types.ts";
import { genericStrategy, type Strategy } from "../../registry/strategy.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import { costErrors, type CompiledAt } from "../cost-check.ts";
import { compileCondition } from "./hook.ts";

function conditionErrors(obj: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const hooks = Array.isArray(obj.webhooks) ? obj.webhooks : [];
  hooks.forEach((h, i) => {
    if (!isObject(h) || !Array.isArray(h.matchConditions)) return;
    const compiled: CompiledAt[] = [];
    h.matchConditions.forEach((c, j) => {
      if (!isObject(c) || typeof c.expression !== "string" || c.expression.trim() === "") return;
      const path = `webhooks[${i}].matchConditions[${j}].expression`;
      try {
        compiled.push({ path, program: compileCondition(c.expression) });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        const text = message === "must evaluate to bool" || message.startsWith("compilation failed") ? message : `compilation failed: ${message}`;
        errors.push(invalid(path, c.expression, text));
      }
    });
    errors.push(...costErrors(compiled));
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
