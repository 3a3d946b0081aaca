/**
 * The deterministic cost units of one evaluation: cel-go's cost model (its
 * runtime cost tracker, and the platform's library costs), with the
 * specification's list literal (a fixed 40): select/ident 1, constants 0, map
 * literal 30, string traversal factor 0.1, regex length factor 0.25,
 * authorizer check 350,000, per-call limit 1,000,000. As in cel-go, `&&`,
 * `||` and `?:` cost nothing of their own, and a traversal of an empty string
 * costs 0.
 */

/** Default cost budget of one evaluation (the platform's per-call limit). */
export const PER_CALL_LIMIT = 1_000_000;

export const CONSTANT_COST = 0;
/** Reading a variable, selecting a field, indexing. */
export const SELECT_COST = 1;
/** Any list literal, whatever its length (the specification). */
export const LIST_LITERAL_COST = 40;
export const MAP_LITERAL_COST = 30;
/**
 * Per iteration of `all` on top of its predicate: cel-go's loop condition
 * `@not_strictly_false(__result__)` (2) and step `__result__ && p` (1).
 * (`exists` has one more: `!__result__`.)
 */
export const ITERATION_COST = 3;
/** One authorizer check (the platform's fixed price: two checks fit into one per-call limit). */
export const AUTHZ_CHECK_COST = 350_000;
/** Cost per unit of length when a string, byte or list operand is traversed. */
export const TRAVERSAL_FACTOR = 0.1;
/** Cost per character of a regular expression applied to one unit of input. */
export const REGEX_LENGTH_FACTOR = 0.25;

/** Length of a sized value (string: UTF-16 units, bytes, list, map); 1 for scalars. */
export function sizeOf(v: unknown): number {
  if (typeof v === "string") return v.length;
  if (typeof v !== "object" || v === null) return 1;
  if (Array.isArray(v) || v instanceof Uint8Array) return v.length;
  if (v instanceof Set || v instanceof Map) return v.size;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null ? Object.keys(v).length : 1;
}

const traverse = (n: number, factor = TRAVERSAL_FACTOR): number => Math.ceil(n * factor);
const isList = (v: unknown): boolean => Array.isArray(v) || v instanceof Set;
const isText = (v: unknown): boolean => typeof v === "string" || v instanceof Uint8Array;

/** Regex functions: ceil((1 + |input|) × 0.1) × ceil(|regex| × 0.25). */
export function regexCost(input: string, regex: string): number {
  return traverse(1 + input.length) * traverse(regex.length, REGEX_LENGTH_FACTOR);
}

/** What an operator's price depends on: operand lengths (1 for scalars), and their kinds. */
export interface OperandSizes {
  left: number;
  right: number;
  /** An operand is a string or bytes (`+` copies them; comparisons traverse them). */
  sequences: boolean;
  /** The right operand is a list (`in` scans it). */
  rightIsList: boolean;
}

/**
 * Cost of a binary operator from its operands' sizes (cel-go's runtime cost
 * tracker): equality ceil(min(m, n) × 0.1) (a scalar has size 1, so 1);
 * ordering of strings the same, of numbers 1; list membership the list's
 * length, map membership 1; string concatenation ceil((m + n) × 0.1); the rest 1.
 */
export function operatorCostBySize(op: string, s: OperandSizes): number {
  switch (op) {
    case "==":
    case "!=":
      return traverse(Math.min(s.left, s.right));
    case "<":
    case "<=":
    case ">":
    case ">=":
      return s.sequences ? traverse(Math.min(s.left, s.right)) : 1;
    case "in":
      return s.rightIsList ? s.right : 1;
    case "+":
      return s.sequences ? traverse(s.left + s.right) : 1;
    default:
      return 1;
  }
}

/** Cost of a binary operator applied to evaluated operands. */
export function operatorCost(op: string, left: unknown, right: unknown): number {
  return operatorCostBySize(op, { left: sizeOf(left), right: sizeOf(right), sequences: isText(left) || isText(right), rightIsList: isList(right) });
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const REGEX_FUNCTIONS: ReadonlySet<string> = new Set(["matches", "find", "findAll"]);
/** The platform's library functions that traverse their (first) string once: ceil(size × 0.1). */
const ONE_TRAVERSAL: ReadonlySet<string> = new Set(["lowerAscii", "upperAscii", "substring", "trim", "url", "cidr", "isIP", "isCIDR", "ip", "quantity", "isQuantity", "semver", "isSemver"]);

/**
 * Cost of a function call from sizes (cel-go's runtime tracker and the
 * platform's library costs): `a` of the receiver or first argument, `b` of the
 * second (the pattern of a regex function), `result` of the result (`join`);
 * `copies`: a string ↔ bytes conversion. Without its operands' costs.
 */
export function callCostBySize(name: string, a: number, b: number, result: number, copies: boolean): number {
  switch (name) {
    case "matches":
    case "find":
    case "findAll":
      return traverse(1 + a) * traverse(b, REGEX_LENGTH_FACTOR);
    case "contains":
      return traverse(a) * traverse(b);
    case "indexOf":
    case "lastIndexOf":
    case "isSorted":
    case "sum":
    case "max":
    case "min":
      return traverse(a);
    case "split":
    case "replace":
      return traverse(a, 2 * TRAVERSAL_FACTOR);
    case "isCanonical":
      // ip.isCanonical(s): parses s and prints it again
      return traverse(b, 2 * TRAVERSAL_FACTOR);
    case "join":
      return traverse(result, 2 * TRAVERSAL_FACTOR);
    case "check":
      return AUTHZ_CHECK_COST;
    case "bytes":
    case "string":
      // string ↔ bytes conversions copy the value; other conversions are O(1)
      return copies ? traverse(a) : 1;
    default:
      return ONE_TRAVERSAL.has(name) ? traverse(a) : 1;
  }
}

/**
 * Cost of a function call, by name, from its evaluated arguments (a method's
 * receiver first). `join` is priced from its result and charged after the call.
 */
export function callCost(name: string, values: readonly unknown[], result?: unknown): number {
  const [a, b] = values;
  const regex = REGEX_FUNCTIONS.has(name);
  const copies = (typeof a === "string" && name === "bytes") || (a instanceof Uint8Array && name === "string");
  return callCostBySize(name, regex ? str(a).length : sizeOf(a), regex ? str(b).length : sizeOf(b), sizeOf(result ?? ""), copies);
}

/** Functions whose cost depends on their result and is charged after the call. */
export const PRICED_BY_RESULT: ReadonlySet<string> = new Set(["join"]);

const PRICED_BY_OPERANDS: ReadonlySet<string> = new Set(["call", "rcall", "==", "!=", "<", "<=", ">", ">=", "in", "+", "-", "*", "/", "%"]);

/** Fixed cost of evaluating a node of the given kind, before its operands. */
export function nodeCost(op: string): number {
  switch (op) {
    case "value":
    case "?:":
    case "&&":
    case "||":
    case "comprehension":
      return CONSTANT_COST;
    // cel-go's steps of exists_one, map and filter: `__result__`, `__result__ + 1`, `__result__ + [e]`
    case "accuValue":
      return SELECT_COST;
    case "accuInc":
      return SELECT_COST + 1;
    case "accuPush":
      return SELECT_COST + 1 + LIST_LITERAL_COST;
    case "id":
    case ".":
    case ".?":
    case "[]":
    case "[?]":
      return SELECT_COST;
    case "list":
      return LIST_LITERAL_COST;
    case "map":
      return MAP_LITERAL_COST;
    default:
      // binary operators and calls are priced from their operands; anything else costs 1
      return PRICED_BY_OPERANDS.has(op) ? 0 : 1;
  }
}

/** Fixed cost of a comprehension macro's result (cel-go: `__result__`, for exists_one `__result__ == 1`). */
export function macroResultCost(name: string): number {
  return name === "exists_one" ? 2 : 1;
}

/** cel-go's per-iteration cost of a macro's loop condition and step, on top of the predicate or transform. */
export function macroStepCost(name: string): number {
  if (name === "all") return ITERATION_COST;
  if (name === "exists") return ITERATION_COST + 1;
  return 0;
}
