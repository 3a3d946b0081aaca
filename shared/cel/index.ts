/**
 * CEL for the API server: one environment factory with declared variables and
 * parse limits, JSON ↔ CEL value conversion, deterministic runtime cost
 * accounting with a per-evaluation budget, a static worst-case cost estimator, and linear-time (RE2) regular
 * expressions. Pure: no I/O.
 */
export { createEnvironment, DEFAULT_LIMITS, type CelEnvironment, type CelEnvironmentOptions, type CelEvaluation, type CelProgram, type ParseLimits } from "./environment.ts";
export { CelCompileError, CelCostLimitError, CelEvaluationError, COST_LIMIT_EXCEEDED } from "./errors.ts";
export { PER_CALL_LIMIT, LIST_LITERAL_COST, MAP_LITERAL_COST, SELECT_COST, ITERATION_COST, TRAVERSAL_FACTOR, REGEX_LENGTH_FACTOR } from "./cost-model.ts";
export {
  costErrorMessage,
  estimateAstCost,
  MAX_REQUEST_SIZE_BYTES,
  requestBoundedSize,
  RUNTIME_CEL_COST_BUDGET,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
  type CostSizes,
} from "./estimate.ts";
export { celValue, CelValue, fromCel, toCel } from "./values.ts";
export { AUTHORIZER_TYPE, AuthzSession, evaluateWithAuthorizer, newAuthorizer, type AuthzAnswer, type AuthzQuery, type AuthzUser } from "./lib/authz.ts";
export { fieldSelections, type FieldSelection } from "./selections.ts";
