/**
 * The static worst-case cost of an expression, before it ever runs: cel-go's
 * cost estimator (checker/cost.go with the platform's library estimates and
 * size estimator), with the unit costs of the runtime meter (cost-model.ts),
 * applied to the largest sizes the inputs can have. Sizes come from the schema
 * of each variable (`maxLength` × 4 bytes, `maxItems`, `maxProperties`, through
 * field selections, index and comprehension variables); a value without a
 * declared bound gets the caller's `unbounded` size (for custom resources: what
 * fits into one request, as on the platform). Literals have their own sizes.
 * `?:` costs its condition and its dearer branch, `&&`/`||` both sides;
 * comprehensions are priced as cel-go expands them. The contract: for any input
 * within the bounds, the runtime cost is at most the estimate, except where the
 * platform's estimator itself prices less (`==` on a number reached through
 * the schema is estimated 0, charged 1; operations on map keys, which it sizes 0).
 * Pure: no I/O.
 *
 * Also the limits and the messages of the platform's write-time check.
 */
import type { Schema } from "../schema/types.ts";
import { AUTHZ_CHECK_COST, LIST_LITERAL_COST, macroResultCost, macroStepCost, MAP_LITERAL_COST, REGEX_LENGTH_FACTOR, SELECT_COST, TRAVERSAL_FACTOR } from "./cost-model.ts";

/** The largest estimated cost of one expression (the platform's StaticEstimatedCostLimit). */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** The largest estimated total of a custom resource definition's rules (StaticEstimatedCRDCostLimit). */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
/** The runtime budget shared by every expression of one validation (RuntimeCELCostBudget). */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** The largest request body: unbounded strings, lists and maps are sized by what fits into it. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

/** How big the inputs can be. */
export interface CostSizes {
  /** The schema of each variable (undefined: no bounds known). */
  variables: Readonly<Record<string, Schema | undefined>>;
  /** The size of a string, list or map without a declared bound, from its schema (undefined: nothing known). */
  unbounded(schema: Schema | undefined): number;
}

/** What a value is, where known: strings and bytes are traversed, lists scanned, maps looked up. */
type Kind = "text" | "list" | "map" | "object" | "scalar";

/** A value's largest size and, when known, its kind and schema (for selections below it). */
interface Shape {
  size: number;
  kind?: Kind;
  schema?: Schema;
  /** The largest size of an element (lists) or value (maps), when it is not described by a schema. */
  element?: Shape;
}

interface Estimate extends Shape {
  cost: number;
}

interface Node {
  readonly op: string;
  readonly args: unknown;
  readonly meta?: { readonly alternate?: { readonly op: string }; readonly macro?: unknown };
}

const COMPREHENSIONS = new Set(["all", "exists", "exists_one", "map", "filter"]);
const ORDERING = new Set(["==", "!=", "<", "<=", ">", ">="]);
/** Library functions whose result is at most as long as their receiver. */
const SIZED_RESULTS = new Set(["find", "findAll", "lowerAscii", "upperAscii", "trim", "substring", "bytes", "string"]);
/** Library functions costing ceil(size × 0.1) of their receiver (methods) or first argument. */
const ONE_TRAVERSAL = new Set(["lowerAscii", "upperAscii", "substring", "trim", "url", "cidr", "isIP", "isCIDR", "ip", "quantity", "isQuantity", "semver", "isSemver"]);
/** Library functions over a list comparing each element (and traversing string elements). */
const LIST_SCANS = new Set(["isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"]);

/** The platform's largest JSON sizes of the string formats it types as timestamps. */
const JSON_DATE_SIZE = 12;
const MAX_DATETIME_SIZE_JSON = 32;
/** The platform's smallest JSON size of a date-time (`"2006-01-02T15:04:05Z"` less one). */
const MIN_DATETIME_SIZE_JSON = 21;
/** The platform's JSON sizes of a duration: the shortest (`"0"`) and the longest text. */
const MIN_DURATION_SIZE_JSON = 3;
const MAX_DURATION_SIZE_JSON = 32;

const ceil = (n: number, factor = TRAVERSAL_FACTOR): number => Math.ceil(n * factor);

/** The minimal JSON size of a value of this schema (the platform's estimateMinSizeJSON). */
function minJsonSize(s: Schema | undefined): number {
  if (!s || s.intOrString) return 1;
  switch (s.type) {
    case "boolean":
      return 4;
    case "string":
      return s.format === "date" ? JSON_DATE_SIZE : s.format === "date-time" ? MIN_DATETIME_SIZE_JSON : s.format === "duration" ? MIN_DURATION_SIZE_JSON : 2;
    case "array":
      return 2;
    case "object": {
      // required properties without a default: "name": value,
      let size = 2;
      for (const name of s.required ?? []) {
        const prop = s.properties?.[name];
        if (prop && prop.default === undefined) size += name.length + minJsonSize(prop) + 4;
      }
      return size;
    }
    default:
      return 1;
  }
}

/**
 * The platform's sizing of unbounded values: what fits into one request of
 * MAX_REQUEST_SIZE_BYTES less the brackets: list items of their minimal size
 * and a comma, map entries of their minimal value size and 6 (`"":` and `,`).
 */
export function requestBoundedSize(schema: Schema | undefined): number {
  const room = MAX_REQUEST_SIZE_BYTES - 2;
  if (schema?.type === "array") return Math.floor(room / (minJsonSize(schema.items) + 1));
  if (schema?.type === "object") return Math.floor(room / (minJsonSize(schema.additionalProperties) + 6));
  return room;
}

function kindOf(s: Schema): Kind | undefined {
  if (s.intOrString) return undefined;
  if (s.type === "string") return "text";
  if (s.type === "array") return "list";
  if (s.type === "object") return s.additionalProperties ? "map" : "object";
  return s.type ? "scalar" : undefined;
}

class Estimator {
  private readonly scopes: Array<Map<string, Shape>> = [];

  constructor(private readonly sizes: CostSizes) {}

  /**
   * The shape of a value of `schema`, as the platform's size estimator gives it: a
   * string's maxLength counts 4 bytes a character; dates, date-times and durations their JSON
   * size; numbers and booleans size 0; unbounded values the caller's size.
   */
  shapeOf(schema: Schema | undefined): Shape {
    if (!schema) return { size: this.sizes.unbounded(undefined) };
    const kind = kindOf(schema);
    const shape = (size: number): Shape => ({ size, schema, ...(kind ? { kind } : {}) });
    if (schema.intOrString) return shape(this.sizes.unbounded(schema));
    switch (schema.type) {
      case "string": {
        if (schema.maxLength !== undefined) return shape(Math.max(0, schema.maxLength) * 4);
        if (schema.format === "date") return shape(JSON_DATE_SIZE);
        if (schema.format === "date-time") return shape(MAX_DATETIME_SIZE_JSON);
        if (schema.format === "duration") return shape(MAX_DURATION_SIZE_JSON);
        const values = (schema.enum ?? []).filter((v): v is string => typeof v === "string");
        if (values.length > 0) return shape(Math.max(...values.map((v) => Buffer.byteLength(v))));
        return shape(this.sizes.unbounded(schema));
      }
      case "integer":
      case "number":
      case "boolean":
        return shape(0);
      case "array":
        return shape(schema.maxItems ?? this.sizes.unbounded(schema));
      case "object":
        if (schema.maxProperties !== undefined) return shape(schema.maxProperties);
        if (schema.properties && !schema.additionalProperties) return shape(Object.keys(schema.properties).length);
        return shape(this.sizes.unbounded(schema));
      default:
        return shape(this.sizes.unbounded(schema));
    }
  }

  /** The shape of a member of `v`: a field (`field` set), a list element or a map value. */
  member(v: Shape, field?: string): Shape {
    if (v.element) return v.element;
    const s = v.schema;
    if (!s) return { size: this.sizes.unbounded(undefined) };
    if (field !== undefined) {
      if (s.properties?.[field]) return this.shapeOf(s.properties[field]);
      // a map's value by field name: the platform's estimator has no path for it; scalars count 1
      const value = s.additionalProperties;
      if (value && kindOf(value) === "scalar") return { size: 1, kind: "scalar" };
      return this.shapeOf(value);
    }
    return this.shapeOf(s.items ?? s.additionalProperties);
  }

  /** An iteration variable: list elements, or map keys (of size 0 to the platform's estimator). */
  iterationShape(range: Shape): Shape {
    if (range.kind === "map" || range.kind === "object") return { size: 0, kind: "text" };
    return this.member(range);
  }

  lookup(name: string): Shape {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const bound = this.scopes[i].get(name);
      if (bound) return bound;
    }
    return this.shapeOf(this.sizes.variables[name]);
  }

  estimate(node: Node): Estimate {
    const args = node.args as unknown[];
    switch (node.op) {
      case "value": {
        const v = node.args;
        if (typeof v === "string" || v instanceof Uint8Array) return { cost: 0, size: v.length, kind: "text" };
        return { cost: 0, size: 1, kind: "scalar" };
      }
      case "id":
        return { cost: SELECT_COST, ...this.lookup(String(node.args)) };
      case ".":
      case ".?": {
        const operand = this.estimate(args[0] as Node);
        return { cost: operand.cost + SELECT_COST, ...this.member(operand, String(args[1])) };
      }
      case "[]":
      case "[?]": {
        const operand = this.estimate(args[0] as Node);
        const index = this.estimate(args[1] as Node);
        return { cost: operand.cost + index.cost + SELECT_COST, ...this.member(operand) };
      }
      case "list": {
        const items = (args as Node[]).map((n) => this.estimate(n));
        const element = items.reduce<Shape>((m, e) => (e.size > m.size ? withoutCost(e) : m), { size: 0 });
        return { cost: LIST_LITERAL_COST + sum(items), size: items.length, kind: "list", element };
      }
      case "map": {
        const entries = (args as Node[][]).flatMap((kv) => kv.map((n) => this.estimate(n)));
        return { cost: MAP_LITERAL_COST + sum(entries), size: args.length, kind: "map" };
      }
      case "?:": {
        const [c, t, f] = (args as Node[]).map((n) => this.estimate(n));
        return { cost: c.cost + Math.max(t.cost, f.cost), ...larger(t, f) };
      }
      case "&&":
      case "||": {
        const [l, r] = (args as Node[]).map((n) => this.estimate(n));
        return { cost: l.cost + r.cost, size: 1, kind: "scalar" };
      }
      case "!_":
      case "-_": {
        // `-5` is one constant to cel-go's parser
        const operand = node.args as Node;
        const own = node.op === "-_" && operand.op === "value" ? 0 : 1;
        return { cost: this.estimate(operand).cost + own, size: 1, kind: "scalar" };
      }
      case "call":
      case "rcall":
        return this.call(node);
      default:
        if (Array.isArray(node.args) && node.args.length === 2) return this.binary(node.op, args as Node[]);
        return { cost: 1, size: 1 };
    }
  }

  /** cel-go's estimate of an operator: sizes through schema paths, unknown kinds at their worst. */
  private binary(op: string, operands: Node[]): Estimate {
    const [l, r] = operands.map((n) => this.estimate(n));
    const args = l.cost + r.cost;
    const text = l.kind === "text" || r.kind === "text";
    const scalars = l.kind === "scalar" && r.kind === "scalar";
    if (ORDERING.has(op)) {
      const sized = op === "==" || op === "!=" || text || (!scalars && (l.kind === undefined || r.kind === undefined));
      const own = sized ? ceil(Math.min(l.size, r.size)) : 1;
      return { cost: args + (op === "==" || op === "!=" || text ? own : Math.max(1, own)), size: 1, kind: "scalar" };
    }
    if (op === "in") {
      const own = r.kind === "map" || r.kind === "object" ? 1 : r.kind === "list" ? r.size : Math.max(1, r.size);
      return { cost: args + own, size: 1, kind: "scalar" };
    }
    if (op !== "+") return { cost: args + 1, size: 1, kind: "scalar" };
    const size = l.size + r.size;
    if (text) return { cost: args + ceil(size), size, kind: "text" };
    if (l.kind === "list" || r.kind === "list") {
      const element = l.element ?? (l.schema ? this.member(l) : r.element);
      return { cost: args + 1, size, kind: "list", ...(element ? { element } : {}) };
    }
    if (scalars) return { cost: args + 1, size: 1, kind: "scalar" };
    return { cost: args + Math.max(1, ceil(size)), size };
  }

  private call(node: Node): Estimate {
    const args = node.args as unknown[];
    const name = String(args[0]);
    const receiver = node.op === "rcall" ? (args[1] as Node) : undefined;
    const operands = (node.op === "rcall" ? args[2] : args[1]) as Node[];
    if (node.meta?.alternate?.op === "comprehension" && receiver && COMPREHENSIONS.has(name)) return this.comprehension(name, receiver, operands);
    if (node.meta?.macro && name === "has") {
      const select = operands[0] as Node;
      const inner = Array.isArray(select.args) ? this.estimate((select.args as unknown[])[0] as Node) : { cost: 0 };
      return { cost: inner.cost + SELECT_COST, size: 1, kind: "scalar" };
    }
    const values = [...(receiver ? [this.estimate(receiver)] : []), ...operands.map((n) => this.estimate(n))];
    const argCost = sum(values);
    const unit: Estimate = { cost: 0, size: 1 };
    const [a = unit, b = unit] = values;
    const own = (cost: number, shape: Shape = { size: 1, kind: "scalar" }): Estimate => ({ cost: argCost + cost, ...shape });
    switch (name) {
      case "matches":
      case "find":
      case "findAll": {
        const cost = ceil(1 + a.size) * ceil(b.size, REGEX_LENGTH_FACTOR);
        if (name === "matches") return own(cost);
        return own(cost, name === "find" ? { size: a.size, kind: "text" } : { size: a.size, kind: "list", element: { size: a.size, kind: "text" } });
      }
      case "contains":
        return own(ceil(a.size) * ceil(b.size));
      case "split":
        return own(ceil(a.size, 2 * TRAVERSAL_FACTOR), { size: a.size, kind: "list", element: { size: a.size, kind: "text" } });
      case "replace": {
        const [from = unit, to = unit] = values.slice(1);
        const size = to.size <= from.size ? a.size : from.size === 0 ? (a.size + 1) * to.size + a.size : Math.ceil(a.size / from.size) * to.size;
        return own(ceil(a.size, 2 * TRAVERSAL_FACTOR), { size, kind: "text" });
      }
      case "join": {
        const element = a.element ?? this.member(a);
        const size = a.size * element.size + (values.length > 1 ? b.size * Math.max(0, a.size - 1) : 0);
        return own(ceil(size), { size, kind: "text" });
      }
      case "check":
        return own(AUTHZ_CHECK_COST);
      case "isCanonical":
        return own(ceil(b.size, 2 * TRAVERSAL_FACTOR));
      case "bytes":
      case "string":
        return own(a.kind === "text" || a.kind === undefined ? ceil(a.size) : 1, { size: a.size, kind: "text" });
      default:
        break;
    }
    if (LIST_SCANS.has(name) && receiver) {
      if (a.kind === "text") return own(ceil(a.size));
      const element = a.element ?? this.member(a);
      return own(a.size * (1 + (element.kind === "text" ? ceil(element.size) : 0)));
    }
    if (ONE_TRAVERSAL.has(name)) return own(ceil(a.size), SIZED_RESULTS.has(name) ? { size: a.size, kind: "text" } : { size: 1 });
    return own(1);
  }

  /**
   * cel-go's expansion: the range, the accumulator's initial value, the result
   * (`__result__`, 1; exists_one `__result__ == 1`, 2), and per element the loop
   * condition and step (all 3, exists 4, exists_one 2, map `__result__ + [e]`
   * 2 + a list literal) plus the predicate or transform.
   */
  private comprehension(name: string, receiver: Node, operands: Node[]): Estimate {
    const range = this.estimate(receiver);
    const variable = String((operands[0] as Node).args);
    const element = this.iterationShape(range);
    this.scopes.push(new Map([[variable, element]]));
    let body: Estimate[];
    try {
      body = operands.slice(1).map((n) => this.estimate(n));
    } finally {
      this.scopes.pop();
    }
    const n = range.size;
    const push = SELECT_COST + 1 + LIST_LITERAL_COST;
    switch (name) {
      case "all":
      case "exists":
        return { cost: range.cost + macroResultCost(name) + n * (macroStepCost(name) + body[0].cost), size: 1, kind: "scalar" };
      case "exists_one":
        return { cost: range.cost + macroResultCost(name) + n * (body[0].cost + SELECT_COST + 1), size: 1, kind: "scalar" };
      case "map": {
        const transform = body[body.length - 1];
        const filter = body.length > 1 ? body[0].cost : 0;
        return { cost: range.cost + LIST_LITERAL_COST + 1 + n * (filter + push + transform.cost), size: n, kind: "list", element: withoutCost(transform) };
      }
      default:
        // filter: each kept element is read once more
        return { cost: range.cost + LIST_LITERAL_COST + 1 + n * (body[0].cost + push + SELECT_COST), size: n, kind: "list", element };
    }
  }
}

function withoutCost(e: Estimate): Shape {
  return { size: e.size, ...(e.kind ? { kind: e.kind } : {}), ...(e.schema ? { schema: e.schema } : {}), ...(e.element ? { element: e.element } : {}) };
}

function sum(xs: readonly { cost: number }[]): number {
  return xs.reduce((t, x) => t + x.cost, 0);
}

function larger(x: Estimate, y: Estimate): Shape {
  return withoutCost(x.size >= y.size ? x : y);
}

/** The estimated worst-case cost of a checked expression's AST. */
export function estimateAstCost(root: unknown, sizes: CostSizes): number {
  return new Estimator(sizes).estimate(root as Node).cost;
}

/**
 * The platform's text for an estimate over a limit: "more than 100x" past a
 * hundredfold, six decimals below 1.5 (so a factor just over 1 never reads
 * "1.0x"), one decimal otherwise.
 */
export function costErrorMessage(description: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const shown = factor > 100 ? "more than 100x" : `${factor.toFixed(factor < 1.5 ? 6 : 1)}x`;
  return `${description} exceeds budget by factor of ${shown} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
