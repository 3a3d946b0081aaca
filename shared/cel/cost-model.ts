/**
 * The deterministic cost units of one evaluation. Constants follow the
 * platform: the specification ("a comparison costs 1", "a list literal costs a
 * fixed 40", regular expressions ≈ length(regex) × length(input)) and the
 * platform's CEL runtime cost tracker and cost estimator (select/ident 1,
 * constants 0, map literal 30, string traversal factor 0.1, regex length
 * factor 0.25, authorizer check 350,000, per-call limit 1,000,000). Every operator and function call
 * costs at least 1, so each evaluation step moves the meter.
 */

/** Default cost budget of one evaluation (the platform's per-call limit). */
export const PER_CALL_LIMIT = 1_000_000;

export const CONSTANT_COST = 0;
/** Reading a variable, selecting a field, indexing. */
export const SELECT_COST = 1;
/** Any list literal, whatever its length (the specification). */
export const LIST_LITERAL_COST = 40;
export const MAP_LITERAL_COST = 30;
/** Each iteration of a comprehension macro (all, exists, exists_one, map, filter), on top of its body. */
export const ITERATION_COST = 1;
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
const atLeastOne = (n: number): number => Math.max(1, n);
const isList = (v: unknown): boolean => Array.isArray(v) || v instanceof Set;
const isSequence = (v: unknown): boolean => typeof v === "string" || v instanceof Uint8Array || isList(v);

/** Regex functions: ceil((1 + |input|) × 0.1) × ceil(|regex| × 0.25). */
export function regexCost(input: string, regex: string): number {
  return traverse(1 + input.length) * traverse(regex.length, REGEX_LENGTH_FACTOR);
}

/** What an operator's price depends on: operand lengths (1 for scalars), and their kinds. */
export interface OperandSizes {
  left: number;
  right: number;
  /** Both operands are strings, bytes or lists (`+` copies them). */
  sequences: boolean;
  /** The right operand is a list (`in` scans it). */
  rightIsList: boolean;
}

/** Cost of a binary operator from its operands' sizes (the runtime meter and the static estimate). */
export function operatorCostBySize(op: string, s: OperandSizes): number {
  switch (op) {
    case "==":
    case "!=":
    case "<":
    case "<=":
    case ">":
    case ">=":
      // O(min(m, n)): scalars have size 1, so a scalar comparison costs 1
      return atLeastOne(traverse(Math.min(s.left, s.right)));
    case "in":
      // list membership is a linear scan; map membership a lookup
      return s.rightIsList ? atLeastOne(s.right) : 1;
    case "+":
      // concatenation copies both operands
      return s.sequences ? atLeastOne(traverse(s.left + s.right)) : 1;
    default:
      return 1;
  }
}

/** Cost of a binary operator applied to evaluated operands. */
export function operatorCost(op: string, left: unknown, right: unknown): number {
  return operatorCostBySize(op, { left: sizeOf(left), right: sizeOf(right), sequences: isSequence(left) && isSequence(right), rightIsList: isList(right) });
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const REGEX_FUNCTIONS: ReadonlySet<string> = new Set(["matches", "find", "findAll"]);

/**
 * Cost of a function call from sizes: `a` of the receiver or first argument,
 * `b` of the second (the pattern of a regex function), `result` of the result
 * (`join`); `copies`: a string ↔ bytes conversion.
 */
export function callCostBySize(name: string, a: number, b: number, result: number, copies: boolean): number {
  switch (name) {
    case "matches":
    case "find":
    case "findAll":
      // ceil((1 + |input|) × 0.1) × ceil(|regex| × 0.25)
      return atLeastOne(traverse(1 + a) * traverse(b, REGEX_LENGTH_FACTOR));
    case "contains":
      return atLeastOne(traverse(a) * traverse(b));
    case "startsWith":
    case "endsWith":
    case "lowerAscii":
    case "upperAscii":
    case "trim":
    case "substring":
    case "indexOf":
    case "lastIndexOf":
      return atLeastOne(traverse(a));
    case "split":
      return atLeastOne(traverse(a, 2 * TRAVERSAL_FACTOR));
    case "join":
      return atLeastOne(traverse(result, 2 * TRAVERSAL_FACTOR));
    case "check":
      return AUTHZ_CHECK_COST;
    case "bytes":
    case "string":
      // string ↔ bytes conversions copy the value; other conversions are O(1)
      return copies ? atLeastOne(traverse(a)) : 1;
    default:
      return 1;
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
    case "accuValue":
    case "accuInc":
    case "accuPush":
    case "comprehension":
      return CONSTANT_COST;
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
