/**
 * Error types of the CEL module and the translation of the evaluator's errors
 * into short one-line texts. Compile errors quote only the expression; runtime
 * errors never quote values from the activation: a fixed text per error code,
 * plus names that come from the expression itself and the source position.
 */
import { EvaluationError, ParseError, TypeError as CelTypeError } from "@marcbachmann/cel-js";

/** The expression does not parse or type-check; `detail` is one line. */
export class CelCompileError extends Error {
  constructor(readonly detail: string) {
    super(`compilation failed: ${detail}`);
    this.name = "CelCompileError";
  }
}

/** Evaluation failed; the message is one line without activation values. */
export class CelEvaluationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CelEvaluationError";
  }
}

/** The platform's text for a runtime cost budget overrun. */
export const COST_LIMIT_EXCEEDED = "operation cancelled: actual cost limit exceeded";

/** Evaluation stopped because the per-evaluation cost budget ran out. */
export class CelCostLimitError extends CelEvaluationError {
  constructor() {
    super(COST_LIMIT_EXCEEDED);
    this.name = "CelCostLimitError";
  }
}

/** "line:column" (1-based) of a source offset. */
export function position(source: string, offset: number): string {
  let line = 1;
  let col = 1;
  for (let i = 0; i < offset && i < source.length; i++) {
    if (source[i] === "\n") {
      line++;
      col = 1;
    } else col++;
  }
  return `${line}:${col}`;
}

const at = (source: string, range: { start: number } | undefined): string => (range ? ` at ${position(source, range.start)}` : "");

/** A parse or type-check failure as a CelCompileError. */
export function compileError(err: unknown, source: string): CelCompileError {
  if (err instanceof CelCompileError) return err;
  if (err instanceof ParseError || err instanceof CelTypeError) return new CelCompileError(`${err.summary.split("\n")[0]}${at(source, err.range)}`);
  return new CelCompileError(err instanceof Error ? err.message.split("\n")[0] : "invalid expression");
}

/** Codes whose summaries name only types or identifiers from the expression. */
const SUMMARY_IS_SAFE = new Set([
  "no_such_overload",
  "no_matching_overload",
  "invalid_logical_operand",
  "invalid_condition_type",
  "variable_type_mismatch",
  "unknown_variable",
  "invalid_comprehension_range",
  "unsupported_type",
]);

/** Fixed texts for codes whose summaries may quote runtime values. */
const FIXED_TEXT: Readonly<Record<string, string>> = {
  no_such_key: "no such key",
  index_out_of_bounds: "index out of bounds",
  index_out_of_range: "index out of range",
  list_item_type_mismatch: "list element has an unexpected type",
  field_type_mismatch: "field has an unexpected type",
  division_by_zero: "division by zero",
  modulo_by_zero: "modulo by zero",
  numeric_overflow: "integer overflow",
  bool_conversion_error: "bool() conversion error",
  int_conversion_error: "int() conversion error",
  uint_conversion_error: "uint() conversion error",
  double_conversion_error: "double() conversion error",
  invalid_duration: "invalid duration",
  invalid_timestamp: "invalid timestamp",
  invalid_regular_expression: "invalid regular expression",
  optional_value_missing: "optional value is not present",
  invalid_comparison_type: "values cannot be compared",
};

/** The field name of a `.`/`.?` access node: it comes from the expression. */
function sourceFieldName(node: unknown): string | undefined {
  if (!node || typeof node !== "object") return undefined;
  const n = node as { op?: unknown; args?: unknown };
  if ((n.op === "." || n.op === ".?") && Array.isArray(n.args) && typeof n.args[1] === "string") return n.args[1];
  return undefined;
}

/** Any error thrown by an evaluation, as a CelEvaluationError with a safe text. */
export function evaluationError(err: unknown, source: string): CelEvaluationError {
  if (err instanceof CelEvaluationError) return err;
  if (err instanceof EvaluationError) {
    const where = at(source, err.range);
    if (SUMMARY_IS_SAFE.has(err.code)) return new CelEvaluationError(`${err.summary.split("\n")[0]}${where}`);
    const field = err.code === "no_such_key" ? sourceFieldName(err.node) : undefined;
    const text = FIXED_TEXT[err.code] ?? "evaluation error";
    return new CelEvaluationError(`${text}${field !== undefined ? `: ${field}` : ""}${where}`);
  }
  if (err instanceof RangeError) return new CelEvaluationError("evaluation error: expression too deeply nested");
  return new CelEvaluationError("evaluation error");
}
