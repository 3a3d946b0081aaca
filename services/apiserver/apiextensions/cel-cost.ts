/**
 * The write-time cost check of a CRD's `x-…-validations` rules, as the platform's:
 * every rule and messageExpression gets the static worst-case estimate of shared/cel
 * (estimate.ts: sizes from the node's schema, unbounded strings, lists and maps sized
 * by what fits into a 3 MiB request), times the most times it can run in one object
 * (the product of the maxItems/maxProperties, or request-bounded sizes, of the lists
 * and maps above it). A rule over 10,000,000 is refused (Forbidden on
 * `…rule`/`…messageExpression`); so is a schema whose rules total over 100,000,000
 * (Forbidden on `…openAPIV3Schema`, and on each of the most expensive rules that make
 * up the excess). Pure.
 */
import { costErrorMessage, requestBoundedSize, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from "../../../shared/cel/index.ts";
import type { ExtensionNames } from "../../../shared/platform/index.ts";
import { fieldErrors } from "../../../shared/schema/field-errors.ts";
import type { FieldError, Schema } from "../../../shared/schema/types.ts";
import { isObject } from "../storage/object.ts";
import { optionalOldSelfOf, ruleProgram } from "./cel-rules.ts";
import { convertNode } from "./schema.ts";

const MAX_DEPTH = 256;

/** The estimated cost of one evaluation of `source` on a value of `schema` (the converted node); undefined when it does not compile. */
export function estimateRuleCost(source: string, schema: Schema, optionalOldSelf = false): number | undefined {
  try {
    return ruleProgram(source, optionalOldSelf).estimateCost({ variables: { self: schema, oldSelf: schema }, unbounded: requestBoundedSize });
  } catch {
    return undefined;
  }
}

/** How many values a list or map of this (converted) schema holds at most. */
function bound(schema: Schema): number {
  const declared = schema.type === "array" ? schema.maxItems : schema.maxProperties;
  return declared ?? requestBoundedSize(schema);
}

/** Cost errors of every rule of a version's schema (`base` is `…schema.openAPIV3Schema`). */
export function ruleCostErrors(raw: unknown, base: string, ext: ExtensionNames): FieldError[] {
  const errs: FieldError[] = [];
  const costs: Array<{ path: string; cost: number }> = [];
  const walk = (node: unknown, converted: Schema | undefined, path: string, cardinality: number, depth: number): void => {
    if (!isObject(node) || !converted || depth > MAX_DEPTH) return;
    const rules = node[ext.validations];
    if (Array.isArray(rules)) {
      rules.forEach((r, i) => {
        if (!isObject(r)) return;
        for (const [field, label] of [["rule", "estimated rule cost"], ["messageExpression", "estimated messageExpression cost"]] as const) {
          const source = r[field];
          if (typeof source !== "string" || source === "") continue;
          const one = estimateRuleCost(source, converted, optionalOldSelfOf(r));
          if (one === undefined) continue; // a compile error is reported by compileRules
          const cost = one * cardinality;
          const at = `${path}.${ext.validations}[${i}].${field}`;
          if (cost > STATIC_ESTIMATED_COST_LIMIT) errs.push(fieldErrors.forbidden(at, costErrorMessage(label, cost, STATIC_ESTIMATED_COST_LIMIT)));
          costs.push({ path: at, cost });
        }
      });
    }
    if (isObject(node.properties)) for (const [k, v] of Object.entries(node.properties)) walk(v, converted.properties?.[k], `${path}.properties[${k}]`, cardinality, depth + 1);
    if (isObject(node.additionalProperties)) walk(node.additionalProperties, converted.additionalProperties, `${path}.additionalProperties`, cardinality * bound(converted), depth + 1);
    if (isObject(node.items)) walk(node.items, converted.items, `${path}.items`, cardinality * bound(converted), depth + 1);
  };
  walk(raw, convertNode(raw ?? { type: "object" }, ext), base, 1, 0);
  const total = costs.reduce((s, c) => s + c.cost, 0);
  if (total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    // The most expensive rules whose costs alone exceed the limit.
    let acc = 0;
    for (const c of [...costs].sort((a, b) => b.cost - a.cost)) {
      errs.push(fieldErrors.forbidden(c.path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"));
      acc += c.cost;
      if (acc > STATIC_ESTIMATED_CRD_COST_LIMIT) break;
    }
    errs.push(fieldErrors.forbidden(base, costErrorMessage(`${ext.validations} estimated rule cost total for entire OpenAPIv3 schema`, total, STATIC_ESTIMATED_CRD_COST_LIMIT)));
  }
  return errs;
}
