/**
 * CEL match conditions of an authorization webhook: up to 64 boolean expressions
 * over `request` (the v1 SubjectAccessReview spec). All true: call the webhook;
 * any false: skip it; an error (and none false): the failure policy decides.
 */
import { createEnvironment, type CelProgram } from "../../../shared/cel/index.ts";

export const MAX_MATCH_CONDITIONS = 64;

export interface MatchCondition {
  expression: string;
}

export interface CompiledMatchConditions {
  readonly count: number;
  /** `match` (call), `skip`, or an error text. */
  evaluate(request: Record<string, unknown>): { result: "match" | "skip" } | { result: "error"; error: string };
}

const env = createEnvironment({ variables: { request: "map" } });

/** Compiles and type-checks the expressions; throws with every problem listed. */
export function compileMatchConditions(conditions: readonly MatchCondition[], field = "matchConditions"): CompiledMatchConditions {
  const errors: string[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS) errors.push(`${field}: Too many: ${conditions.length}: must have at most ${MAX_MATCH_CONDITIONS} items`);
  const programs: CelProgram[] = [];
  const seen = new Set<string>();
  conditions.forEach((c, i) => {
    const expr = typeof c?.expression === "string" ? c.expression : "";
    if (expr.trim() === "") {
      errors.push(`${field}[${i}].expression: Required value`);
      return;
    }
    if (seen.has(expr)) errors.push(`${field}[${i}].expression: Duplicate value: ${JSON.stringify(expr)}`);
    seen.add(expr);
    try {
      const program = env.compile(expr);
      if (program.resultType !== "bool" && program.resultType !== "dyn") {
        errors.push(`${field}[${i}].expression: Invalid value: ${JSON.stringify(expr)}: must evaluate to bool`);
        return;
      }
      programs.push(program);
    } catch (err) {
      errors.push(`${field}[${i}].expression: Invalid value: ${JSON.stringify(expr)}: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
  if (errors.length > 0) throw new Error(errors.join("; "));
  return {
    count: programs.length,
    evaluate(request) {
      let firstError: string | undefined;
      for (const p of programs) {
        try {
          const v = p.evaluate({ request }).value;
          if (v === false) return { result: "skip" };
          if (v !== true) firstError ??= `expression evaluated to ${typeof v}, not bool`;
        } catch (err) {
          firstError ??= err instanceof Error ? err.message : String(err);
        }
      }
      return firstError === undefined ? { result: "match" } : { result: "error", error: firstError };
    },
  };
}
