/**
 * The static worst-case cost of an expression, before it ever runs: the same
 * unit costs as the runtime meter (cost-model.ts), applied to the largest
 * sizes the inputs can have. Sizes come from the schema of each variable
 * (`maxLength`, `maxItems`, `maxProperties`, through field selections, index
 * and comprehension variables); a value without a declared bound gets the
 * caller's `unbounded` size (for custom resources: what fits into one request,
 * as on the platform). Literals have their own sizes. Branches (`?:`, `&&`,
 * `||`) cost their most expensive side; comprehensions cost their range's
 * largest size times one iteration. The contract: for any input within the
 * bounds, the runtime cost is at most the estimate. Pure: no I/O.
 *
 * Also the limits and the messages of the platform's write-time check.
 */
import type { Schema } from "../schema/types.ts";
import { callCostBySize, ITERATION_COST, LIST_LITERAL_COST, MAP_LITERAL_COST, operatorCostBySize, SELECT_COST } from "./cost-model.ts";

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

/** A value's largest size and, when known, its schema (for selections below it). */
interface Shape {
  size: number;
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
/** Functions whose result is at most as long as their receiver. */
const SIZED_RESULTS = new Set(["find", "findAll", "lowerAscii", "upperAscii", "trim", "substring", "bytes", "string"]);

/** The minimal JSON size of a value of this schema (used to size unbounded containers). */
function minJsonSize(s: Schema | undefined): number {
  switch (s?.type) {
    case "boolean":
      return 4;
    case "integer":
    case "number":
      return 1;
    case "string":
      return 2 + (s.minLength ?? 0);
    case "array":
    case "object":
      return 2;
    default:
      return 1;
  }
}

/** The platform's sizing of unbounded values: what fits into one request of MAX_REQUEST_SIZE_BYTES. */
export function requestBoundedSize(schema: Schema | undefined): number {
  const room = MAX_REQUEST_SIZE_BYTES - 2;
  if (schema?.type === "array") return Math.floor(room / (minJsonSize(schema.items) + 1));
  if (schema?.type === "object") return Math.floor(room / (minJsonSize(schema.additionalProperties) + 4));
  return room;
}

class Estimator {
  private readonly scopes: Array<Map<string, Shape>> = [];

  constructor(private readonly sizes: CostSizes) {}

  shapeOf(schema: Schema | undefined): Shape {
    if (!schema) return { size: this.sizes.unbounded(undefined) };
    const declared = schema.type === "string" ? schema.maxLength : schema.type === "array" ? schema.maxItems : schema.type === "object" ? schema.maxProperties : 1;
    if (schema.type === "object" && declared === undefined && schema.properties && !schema.additionalProperties) {
      return { size: Object.keys(schema.properties).length, schema };
    }
    if (schema.type === "integer" || schema.type === "number" || schema.type === "boolean") return { size: 1, schema };
    return { size: declared ?? this.sizes.unbounded(schema), schema };
  }

  /** The shape of a member (field, index, element) of `v`. */
  member(v: Shape, field?: string): Shape {
    if (v.element) return v.element;
    const s = v.schema;
    if (!s) return { size: this.sizes.unbounded(undefined) };
    if (field !== undefined && s.properties?.[field]) return this.shapeOf(s.properties[field]);
    if (s.items) return this.shapeOf(s.items);
    if (s.additionalProperties) return this.shapeOf(s.additionalProperties);
    return this.shapeOf(undefined);
  }

  /** An iteration variable: list elements, or map keys (strings). */
  iterationShape(range: Shape): Shape {
    if (range.schema?.type === "object") return { size: this.sizes.unbounded({ type: "string" }), schema: { type: "string" } };
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
      case "value":
        return { cost: 0, size: typeof node.args === "string" ? node.args.length : node.args instanceof Uint8Array ? node.args.length : 1 };
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
        const element = items.reduce<Shape>((m, e) => (e.size > m.size ? { size: e.size, schema: e.schema } : m), { size: 0 });
        return { cost: LIST_LITERAL_COST + sum(items), size: items.length, element };
      }
      case "map": {
        const entries = (args as Node[][]).flatMap((kv) => kv.map((n) => this.estimate(n)));
        return { cost: MAP_LITERAL_COST + sum(entries), size: args.length };
      }
      case "?:": {
        const [c, t, f] = (args as Node[]).map((n) => this.estimate(n));
        return { cost: c.cost + Math.max(t.cost, f.cost), ...larger(t, f) };
      }
      case "&&":
      case "||": {
        const [l, r] = (args as Node[]).map((n) => this.estimate(n));
        return { cost: l.cost + r.cost, size: 1 };
      }
      case "!_":
      case "-_":
        return { cost: this.estimate(node.args as Node).cost + 1, size: 1 };
      case "call":
      case "rcall":
        return this.call(node);
      default:
        if (Array.isArray(node.args) && node.args.length === 2) return this.binary(node.op, args as Node[]);
        return { cost: 1, size: 1 };
    }
  }

  private binary(op: string, operands: Node[]): Estimate {
    const [l, r] = operands.map((n) => this.estimate(n));
    // the worst case: `+` copies, `in` scans unless the right side is known to be a map
    const cost = l.cost + r.cost + operatorCostBySize(op, { left: l.size, right: r.size, sequences: true, rightIsList: r.schema?.type !== "object" });
    if (op !== "+") return { cost, size: 1 };
    return { cost, size: l.size + r.size, ...(l.element ? { element: l.element } : l.schema ? { schema: l.schema } : {}) };
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
      return { cost: inner.cost + SELECT_COST, size: 1 };
    }
    const values = [...(receiver ? [this.estimate(receiver)] : []), ...operands.map((n) => this.estimate(n))];
    const [a, b] = values;
    const sizeA = a?.size ?? 1;
    const sizeB = b?.size ?? 1;
    // join: the elements, and a separator between each two
    const joined = name === "join" ? sizeA * (a?.element?.size ?? this.member(a ?? { size: 1 }).size) + sizeA * sizeB : 0;
    const cost = sum(values) + callCostBySize(name, sizeA, sizeB, joined, true);
    switch (name) {
      case "split":
        return { cost, size: sizeA, element: { size: sizeA } };
      case "join":
        return { cost, size: joined };
      case "matches":
      case "contains":
      case "check":
        return { cost, size: 1 };
      default:
        return { cost, size: SIZED_RESULTS.has(name) ? sizeA : 1 };
    }
  }

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
    const perIteration = sum(body) + ITERATION_COST;
    if (name === "map") {
      // the result starts as an empty list literal
      const last = body[body.length - 1];
      return { cost: range.cost + LIST_LITERAL_COST + range.size * perIteration, size: range.size, element: { size: last.size, ...(last.schema ? { schema: last.schema } : {}) } };
    }
    if (name === "filter") {
      // an empty list literal, and each kept element read once more
      return { cost: range.cost + LIST_LITERAL_COST + range.size * (perIteration + SELECT_COST), size: range.size, element };
    }
    return { cost: range.cost + range.size * perIteration, size: 1 };
  }
}

function sum(xs: readonly { cost: number }[]): number {
  return xs.reduce((t, x) => t + x.cost, 0);
}

function larger(x: Estimate, y: Estimate): Shape {
  const { size, schema, element } = x.size >= y.size ? x : y;
  return { size, ...(schema ? { schema } : {}), ...(element ? { element } : {}) };
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
