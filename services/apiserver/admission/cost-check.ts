/**
 * The write-time cost check of admission CEL (policies' expressions, webhooks'
 * match conditions), on top of the compile check. The inputs (`object`,
 * `params`, ...) have no declared bounds, so they are estimated at their
 * smallest (size 1): what remains is the part of the worst case no input can
 * lower, literal lists iterated, regular expressions on literal strings,
 * authorizer checks (350,000 each). An expression whose estimate exceeds the
 * runtime per-call limit fails on every request, so it is refused when it is
 * written (`Forbidden: estimated rule cost exceeds budget by factor of 3.5x
 * ...`); so is a policy whose expressions together exceed the runtime budget
 * of one admission (RuntimeCELCostBudget). The runtime meter stays the
 * second line for the input-dependent part.
 */
import { forbidden } from "../../../shared/api/field-errors.ts";
import { costErrorMessage, PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET, type CelProgram, type CostSizes } from "../../../shared/cel/index.ts";
import type { FieldError } from "../../../shared/schema/types.ts";

/** Admission inputs at their smallest. */
export const ADMISSION_INPUT_SIZES: CostSizes = { variables: {}, unbounded: () => 1 };

export interface CompiledAt {
  path: string;
  program: CelProgram;
}

/**
 * Forbidden errors for each expression over the per-call limit and, when
 * `totalPath` is given, for the sum over the runtime budget.
 */
export function costErrors(compiled: readonly CompiledAt[], totalPath?: string): FieldError[] {
  const errors: FieldError[] = [];
  let total = 0;
  for (const { path, program } of compiled) {
    const cost = program.estimateCost(ADMISSION_INPUT_SIZES);
    total += cost;
    if (cost > PER_CALL_LIMIT) errors.push(forbidden(path, costErrorMessage("estimated rule cost", cost, PER_CALL_LIMIT)));
  }
  if (totalPath !== undefined && errors.length === 0 && total > RUNTIME_CEL_COST_BUDGET) {
    errors.push(forbidden(totalPath, costErrorMessage("estimated rule cost total for the policy", total, RUNTIME_CEL_COST_BUDGET)));
  }
  return errors;
}
