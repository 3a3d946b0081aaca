/**
 * The write-time cost check of a CRD's `x-…-validations` rules (pure), as the
 * platform's: every rule and messageExpression gets a worst-case cost estimated
 * from the schema's bounds, times the most times it can run in one object (the
 * product of the maxItems/maxProperties of the lists and maps above it). A rule over
 * 10,000,000 is refused (Forbidden on `…rule`/`…messageExpression`); so is a schema
 * whose rules total over 100,000,000 (Forbidden on `…openAPIV3Schema`, and on each
 * of the most expensive rules that make up the excess).
 *
 * Bounds: `maxLength`, `maxItems`, `maxProperties` where declared; otherwise the
 * most a 3 MiB request can hold (strings of 3 MiB, lists and maps of as many
 * items as fit at their smallest JSON size), as the platform estimates them.
 * Costs use the units of the runtime meter (shared/cel cost-model): select 1,
 * comparisons O(min size)/10, regexes (1 + |input|)/10 × |regex|/4, `contains`
 * |a|/10 × |b|/10, comprehensions their range plus each iteration's step.
 * The estimate is the platform's in shape, not to the unit: it refuses the rules
 * the platform refuses by a clear margin (the "more than 100x" ones) and accepts
 * bounded rules; a rule near the limit may be judged differently.
 */
import { Environment, type ASTNode } from "@marcbachmann/cel-js";
import { ITERATION_COST, LIST_LITERAL_COST, MAP_LITERAL_COST, REGEX_LENGTH_FACTOR, SELECT_COST, TRAVERSAL_FACTOR } from "../../../shared/cel/index.ts";
import type { ExtensionNames } from "../../../shared/platform/index.ts";
import { fieldErrors } from "../../../shared/schema/field-errors.ts";
import type { FieldError } from "../../../shared/schema/types.ts";
import { isObject } from "../storage/object.ts";

/** The largest estimated cost of one rule (the platform's StaticEstimatedCostLimit). */
export const RULE_COST_LIMIT = 10_000_000;
/** The largest estimated cost of all rules of one schema (StaticEstimatedCRDCostLimit). */
export const SCHEMA_COST_LIMIT = 100_000_000;
const MAX_REQUEST_BYTES = 3 * 1024 * 1024;
const MAX_DEPTH = 256;

type Json = Record<string, unknown>;

/** What the estimator knows of a value: its kind, largest size, and the shapes inside. */
interface Shape {
  kind: "string" | "list" | "map" | "object" | "scalar" | "dyn";
  /** Largest length (string), item count (list) or entry count (map, object). */
  size: number;
  elem?: Shape;
  props?: Record<string, Shape>;
}

const DYN: Shape = { kind: "dyn", size: MAX_REQUEST_BYTES };
const SCALAR: Shape = { kind: "scalar", size: 1 };

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** The smallest JSON text of a value of this schema (the platform's minimum sizes). */
function minSize(node: Json): number {
  switch (node.type) {
    case "string":
      return 2 + (num(node.minLength) ?? 0);
    case "boolean":
      return 4;
    case "integer":
    case "number":
      return 1;
    default:
      return 2; // {} or []
  }
}

/** The most items a list of this schema holds: maxItems, or as many of the smallest items as fit in a request. */
function listBound(node: Json): number {
  return num(node.maxItems) ?? Math.floor((MAX_REQUEST_BYTES - 2) / (minSize(isObject(node.items) ? node.items : {}) + 1));
}

/** The most entries of a map (additionalProperties): maxProperties, or as many as fit (an entry is at least `"":`, the value and a comma). */
function mapBound(node: Json): number {
  return num(node.maxProperties) ?? Math.floor((MAX_REQUEST_BYTES - 2) / (minSize(isObject(node.additionalProperties) ? node.additionalProperties : {}) + 4));
}

/** The shape of a schema node's values. */
export function shapeOf(node: unknown, ext: ExtensionNames, depth = 0): Shape {
  if (!isObject(node) || depth > MAX_DEPTH) return DYN;
  if (node[ext.intOrString] === true) return { kind: "dyn", size: MAX_REQUEST_BYTES - 2 };
  switch (node.type) {
    case "string":
      return { kind: "string", size: num(node.maxLength) ?? MAX_REQUEST_BYTES - 2 };
    case "array":
      return { kind: "list", size: listBound(node), elem: shapeOf(isObject(node.items) ? node.items : {}, ext, depth + 1) };
    case "object": {
      if (isObject(node.properties)) {
        const props: Record<string, Shape> = {};
        for (const [k, v] of Object.entries(node.properties)) props[k] = shapeOf(v, ext, depth + 1);
        return { kind: "object", size: Object.keys(props).length, props };
      }
      if (isObject(node.additionalProperties)) return { kind: "map", size: mapBound(node), elem: shapeOf(node.additionalProperties, ext, depth + 1) };
      return DYN;
    }
    case "integer":
    case "number":
    case "boolean":
      return SCALAR;
    default:
      return DYN;
  }
}

const parser = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false });
for (const v of ["self", "oldSelf"]) parser.registerVariable(v, "dyn");

interface Estimate {
  cost: number;
  shape: Shape;
}

const traverse = (n: number, factor = TRAVERSAL_FACTOR): number => Math.ceil(n * factor);
const atLeastOne = (n: number): number => Math.max(1, n);
const isNode = (v: unknown): v is ASTNode => typeof v === "object" && v !== null && "op" in v;
const COMPREHENSIONS = new Set(["all", "exists", "exists_one", "map", "filter"]);
const COMPARISONS = new Set(["==", "!=", "<", "<=", ">", ">="]);

class Estimator {
  constructor(private readonly vars: Map<string, Shape>) {}

  estimate(node: unknown): Estimate {
    if (!isNode(node)) return { cost: 0, shape: DYN };
    const args = node.args as unknown;
    switch (node.op) {
      case "value":
        return { cost: 0, shape: typeof args === "string" ? { kind: "string", size: args.length } : SCALAR };
      case "id":
        return { cost: SELECT_COST, shape: this.vars.get(String(args)) ?? DYN };
      case ".":
      case ".?": {
        const [target, field] = args as [unknown, string];
        const t = this.estimate(target);
        return { cost: t.cost + SELECT_COST, shape: t.shape.props?.[field] ?? (t.shape.kind === "map" ? (t.shape.elem ?? DYN) : DYN) };
      }
      case "[]":
      case "[?]": {
        const [target, index] = args as [unknown, unknown];
        const t = this.estimate(target);
        const i = this.estimate(index);
        return { cost: t.cost + i.cost + SELECT_COST, shape: t.shape.elem ?? DYN };
      }
      case "list": {
        const items = (args as unknown[]).map((a) => this.estimate(a));
        return { cost: LIST_LITERAL_COST + sum(items), shape: { kind: "list", size: items.length, elem: items[0]?.shape ?? DYN } };
      }
      case "map": {
        const entries = (args as unknown[][]).flat().map((a) => this.estimate(a));
        return { cost: MAP_LITERAL_COST + sum(entries), shape: { kind: "map", size: entries.length / 2, elem: DYN } };
      }
      case "&&":
      case "||":
        return { cost: sum((args as unknown[]).map((a) => this.estimate(a))), shape: SCALAR };
      case "?:": {
        const [c, a, b] = (args as unknown[]).map((x) => this.estimate(x));
        return { cost: c.cost + Math.max(a.cost, b.cost), shape: a.shape.size >= b.shape.size ? a.shape : b.shape };
      }
      case "call":
      case "rcall":
        return this.call(node);
      default:
        return this.operator(node.op, Array.isArray(args) ? args : []);
    }
  }

  private operator(op: string, operands: unknown[]): Estimate {
    const parts = operands.map((a) => this.estimate(a));
    const [l, r] = parts.map((p) => p.shape);
    let own = 1;
    let shape: Shape = SCALAR;
    if (COMPARISONS.has(op) && l && r) own = atLeastOne(traverse(Math.min(l.size, r.size)));
    else if (op === "in" && r?.kind === "list") own = atLeastOne(r.size);
    else if (op === "+" && l && r && (l.kind === "string" || l.kind === "list")) {
      own = atLeastOne(traverse(l.size + r.size));
      shape = { kind: l.kind, size: l.size + r.size, elem: l.elem };
    }
    return { cost: sum(parts) + own, shape };
  }

  private call(node: ASTNode): Estimate {
    const args = node.args as unknown[];
    const name = String(args[0]);
    const receiver = node.op === "rcall" ? args[1] : undefined;
    const params = (node.op === "rcall" ? args[2] : args[1]) as unknown[];
    if (name === "has" && node.op === "call") return { cost: sum(params.map((p) => this.estimate(p))), shape: SCALAR };
    if (receiver !== undefined && COMPREHENSIONS.has(name) && params.length >= 2 && isNode(params[0])) return this.comprehension(name, receiver, String(params[0].args), params[params.length - 1], params.length === 3 ? params[1] : undefined);
    const values = [...(receiver !== undefined ? [this.estimate(receiver)] : []), ...params.map((p) => this.estimate(p))];
    const [a, b] = values.map((v) => v.shape);
    return { cost: sum(values) + callCost(name, a, b), shape: callShape(name, a) };
  }

  /** `range.all(x, body)` and the others: the range, then for each item the body and one step. */
  private comprehension(name: string, range: unknown, varName: string, body: unknown, filter: unknown): Estimate {
    const r = this.estimate(range);
    const item = r.shape.kind === "map" ? { kind: "string" as const, size: MAX_REQUEST_BYTES - 2 } : (r.shape.elem ?? DYN);
    const inner = new Estimator(new Map([...this.vars, [varName, item]]));
    const b = inner.estimate(body);
    const f = filter === undefined ? 0 : inner.estimate(filter).cost;
    const n = r.shape.kind === "list" || r.shape.kind === "map" ? r.shape.size : MAX_REQUEST_BYTES;
    const shape: Shape = name === "map" ? { kind: "list", size: n, elem: b.shape } : name === "filter" ? r.shape : SCALAR;
    return { cost: r.cost + n * (b.cost + f + ITERATION_COST), shape };
  }
}

function sum(parts: Estimate[]): number {
  return parts.reduce((s, p) => s + p.cost, 0);
}

function callCost(name: string, a: Shape | undefined, b: Shape | undefined): number {
  const size = (s?: Shape) => s?.size ?? 1;
  switch (name) {
    case "matches":
    case "find":
    case "findAll":
      return atLeastOne(traverse(1 + size(a)) * traverse(size(b), REGEX_LENGTH_FACTOR));
    case "contains":
      return atLeastOne(traverse(size(a)) * traverse(size(b)));
    case "startsWith":
    case "endsWith":
    case "lowerAscii":
    case "upperAscii":
    case "trim":
    case "substring":
    case "indexOf":
    case "lastIndexOf":
      return atLeastOne(traverse(size(a)));
    case "split":
    case "join":
      return atLeastOne(traverse(size(a), 2 * TRAVERSAL_FACTOR));
    default:
      return 1;
  }
}

function callShape(name: string, a: Shape | undefined): Shape {
  switch (name) {
    case "lowerAscii":
    case "upperAscii":
    case "trim":
    case "substring":
    case "string":
    case "join":
      return { kind: "string", size: a?.size ?? MAX_REQUEST_BYTES };
    case "split":
      return { kind: "list", size: a?.size ?? MAX_REQUEST_BYTES, elem: { kind: "string", size: a?.size ?? MAX_REQUEST_BYTES } };
    default:
      return a?.kind === "dyn" ? DYN : SCALAR;
  }
}

/** The estimated cost of one evaluation of `source` with `self` (and `oldSelf`) of the given shape; undefined when it does not parse. */
export function estimateCost(source: string, self: Shape): number | undefined {
  let root: ASTNode;
  try {
    root = (parser.parse(source) as unknown as { ast: ASTNode }).ast;
  } catch {
    return undefined;
  }
  return new Estimator(new Map([["self", self], ["oldSelf", self]])).estimate(root).cost;
}

/** The platform's wording of an excess: "more than 100x", six decimals below 1.5, else one. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const text = factor > 100 ? "more than 100x" : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${text} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** Cost errors of every rule of a version's schema (`base` is `…schema.openAPIV3Schema`). */
export function ruleCostErrors(schema: unknown, base: string, ext: ExtensionNames): FieldError[] {
  const errs: FieldError[] = [];
  const costs: Array<{ path: string; cost: number }> = [];
  const walk = (node: unknown, path: string, cardinality: number, depth: number): void => {
    if (!isObject(node) || depth > MAX_DEPTH) return;
    const rules = node[ext.validations];
    if (Array.isArray(rules)) {
      const self = shapeOf(node, ext);
      rules.forEach((r, i) => {
        if (!isObject(r)) return;
        for (const [field, label] of [["rule", "estimated rule cost"], ["messageExpression", "estimated messageExpression cost"]] as const) {
          const source = r[field];
          if (typeof source !== "string" || source === "") continue;
          const one = estimateCost(source, self);
          if (one === undefined) continue; // a compile error is reported by compileRules
          const cost = one * cardinality;
          const at = `${path}.${ext.validations}[${i}].${field}`;
          if (cost > RULE_COST_LIMIT) errs.push(fieldErrors.forbidden(at, costErrorMessage(label, cost, RULE_COST_LIMIT)));
          costs.push({ path: at, cost });
        }
      });
    }
    if (isObject(node.properties)) for (const [k, v] of Object.entries(node.properties)) walk(v, `${path}.properties[${k}]`, cardinality, depth + 1);
    if (isObject(node.additionalProperties)) walk(node.additionalProperties, `${path}.additionalProperties`, cardinality * mapBound(node), depth + 1);
    if (isObject(node.items)) walk(node.items, `${path}.items`, cardinality * listBound(node), depth + 1);
  };
  walk(schema, base, 1, 0);
  const total = costs.reduce((s, c) => s + c.cost, 0);
  if (total > SCHEMA_COST_LIMIT) {
    // The most expensive rules whose costs alone exceed the limit.
    let acc = 0;
    for (const c of [...costs].sort((a, b) => b.cost - a.cost)) {
      errs.push(fieldErrors.forbidden(c.path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"));
      acc += c.cost;
      if (acc > SCHEMA_COST_LIMIT) break;
    }
    errs.push(fieldErrors.forbidden(base, costErrorMessage(`${ext.validations} estimated rule cost total for entire OpenAPIv3 schema`, total, SCHEMA_COST_LIMIT)));
  }
  return errs;
}
