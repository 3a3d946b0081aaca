/**
 * `x-…-validations` of a CRD version's schema: CEL rules over `self` (and
 * `oldSelf` for transition rules) at each schema node, evaluated along the value
 * through shared/cel with its cost metering: one call may use the per-call limit,
 * one object validation the runtime budget; both end in the platform's messages.
 *
 * `compileRules` reports rules that do not compile (CRD write time); `CelRules`
 * validates objects. Transition rules (that name `oldSelf`) run only on update
 * when the old value at the same place exists (object fields, map keys, and list
 * items correlated by the keys of a `map` list) — unless the rule sets
 * `optionalOldSelf: true`: it then also runs on create and where the old value is
 * absent, with `oldSelf` a CEL optional (`optional.none()` there, `optional.of(old)`
 * elsewhere). `optionalOldSelf` on a rule that does not use `oldSelf` is refused.
 */
import { Optional } from "@marcbachmann/cel-js";
import { CelCostLimitError, createEnvironment, PER_CALL_LIMIT, toCel, type CelProgram } from "../../../shared/cel/index.ts";
import type { ExtensionNames } from "../../../shared/platform/index.ts";
import { fieldErrors } from "../../../shared/schema/field-errors.ts";
import { childPath, indexPath, keyPath } from "../../../shared/schema/path.ts";
import type { FieldError, FieldErrorType } from "../../../shared/schema/types.ts";
import { isObject } from "../storage/object.ts";

/** The platform's runtime budget of one object validation. */
export const RUNTIME_BUDGET = 10_000_000;
const MAX_DEPTH = 256;
const REASONS: ReadonlySet<string> = new Set(["FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate"]);

type Json = Record<string, unknown>;

const env = createEnvironment({ variables: { self: "dyn", oldSelf: "dyn" }, mixedTypeLiterals: true, optionalTypes: true });
/** For rules with `optionalOldSelf: true`: `oldSelf` is declared optional, so `oldSelf.value()` compares as its value does. */
const optionalEnv = createEnvironment({ variables: { self: "dyn", oldSelf: "optional<dyn>" }, mixedTypeLiterals: true, optionalTypes: true });

/** Whether a rule is a transition rule (names `oldSelf`). */
export function usesOldSelf(rule: string): boolean {
  return /\boldSelf\b/.test(rule);
}

interface CompiledRule {
  rule: string;
  program: CelProgram;
  message?: string;
  messageExpression?: CelProgram;
  reason: FieldErrorType;
  fieldPath?: string;
  transition: boolean;
  /** `optionalOldSelf: true`: runs without an old value too, `oldSelf` being an optional. */
  optionalOldSelf: boolean;
}

const cache = new Map<string, CelProgram>();
function compile(source: string, optionalOldSelf = false): CelProgram {
  const key = `${optionalOldSelf ? "o" : "p"}:${source}`;
  let p = cache.get(key);
  if (!p) {
    p = (optionalOldSelf ? optionalEnv : env).compile(source);
    if (cache.size > 5000) cache.clear();
    cache.set(key, p);
  }
  return p;
}

/** The compiled program of a rule or messageExpression of a rule (cached); throws CelCompileError. */
export function ruleProgram(source: string, optionalOldSelf = false): CelProgram {
  return compile(source, optionalOldSelf);
}

export function optionalOldSelfOf(r: Json): boolean {
  return r.optionalOldSelf === true && typeof r.rule === "string" && usesOldSelf(r.rule);
}

/** Compile errors of every rule of a schema, with the CRD field paths (`<base>.properties[spec].<ext>[0].rule`). */
export function compileRules(schema: unknown, base: string, ext: ExtensionNames): FieldError[] {
  const errs: FieldError[] = [];
  const walk = (node: unknown, path: string, depth: number): void => {
    if (!isObject(node) || depth > MAX_DEPTH) return;
    const rules = node[ext.validations];
    if (Array.isArray(rules)) {
      rules.forEach((r, i) => {
        if (!isObject(r)) return;
        for (const field of ["rule", "messageExpression"] as const) {
          if (typeof r[field] !== "string" || (field === "messageExpression" && r[field] === "")) continue;
          try {
            compile(r[field], optionalOldSelfOf(r));
          } catch (err) {
            errs.push(fieldErrors.invalid(`${path}.${ext.validations}[${i}].${field}`, r[field], (err as Error).message));
          }
        }
        if (typeof r.optionalOldSelf === "boolean" && typeof r.rule === "string" && !usesOldSelf(r.rule)) {
          errs.push(fieldErrors.invalid(`${path}.${ext.validations}[${i}].optionalOldSelf`, r.optionalOldSelf, "may not be set if oldSelf is not used in rule"));
        }
      });
    }
    if (isObject(node.properties)) for (const [k, v] of Object.entries(node.properties)) walk(v, `${path}.properties[${k}]`, depth + 1);
    if (isObject(node.additionalProperties)) walk(node.additionalProperties, `${path}.additionalProperties`, depth + 1);
    if (isObject(node.items)) walk(node.items, `${path}.items`, depth + 1);
  };
  walk(schema, base, 0);
  return errs;
}

function hasRules(node: unknown, ext: ExtensionNames, depth = 0): boolean {
  if (!isObject(node) || depth > MAX_DEPTH) return false;
  const rules = node[ext.validations];
  if (Array.isArray(rules) && rules.length > 0) return true;
  if (isObject(node.properties) && Object.values(node.properties).some((v) => hasRules(v, ext, depth + 1))) return true;
  return hasRules(node.additionalProperties, ext, depth + 1) || hasRules(node.items, ext, depth + 1);
}

/** The compiled rules of one schema node (rules that do not compile are skipped: the CRD was refused). */
function rulesOf(node: Json, ext: ExtensionNames): CompiledRule[] {
  const raw = node[ext.validations];
  if (!Array.isArray(raw)) return [];
  const out: CompiledRule[] = [];
  for (const r of raw) {
    if (!isObject(r) || typeof r.rule !== "string") continue;
    try {
      const optionalOldSelf = optionalOldSelfOf(r);
      const c: CompiledRule = {
        rule: r.rule,
        program: compile(r.rule, optionalOldSelf),
        reason: typeof r.reason === "string" && REASONS.has(r.reason) ? (r.reason as FieldErrorType) : "FieldValueInvalid",
        transition: usesOldSelf(r.rule),
        optionalOldSelf,
      };
      if (typeof r.message === "string" && r.message !== "") c.message = r.message;
      if (typeof r.messageExpression === "string" && r.messageExpression !== "") c.messageExpression = compile(r.messageExpression, optionalOldSelf);
      if (typeof r.fieldPath === "string" && r.fieldPath !== "") c.fieldPath = r.fieldPath;
      out.push(c);
    } catch {
      // refused at CRD write time
    }
  }
  return out;
}

/** The walk's node of `node`, or undefined when no rule is at or below it (built bottom-up, once). */
function ruleNode(node: unknown, ext: ExtensionNames, depth: number): RuleNode | undefined {
  if (!isObject(node) || depth > MAX_DEPTH) return undefined;
  let props: Map<string, RuleNode> | undefined;
  if (isObject(node.properties)) {
    props = new Map();
    for (const [k, v] of Object.entries(node.properties)) {
      const child = ruleNode(v, ext, depth + 1);
      if (child) props.set(k, child);
    }
  }
  const rules = rulesOf(node, ext);
  const additional = props ? undefined : ruleNode(node.additionalProperties, ext, depth + 1);
  const items = ruleNode(node.items, ext, depth + 1);
  if (rules.length === 0 && !props?.size && !additional && !items) return undefined;
  const keys = node[ext.listMapKeys];
  return {
    raw: node,
    rules,
    props,
    additional,
    items,
    mapKeys: node[ext.listType] === "map" && Array.isArray(keys) ? (keys as string[]) : undefined,
    isSet: node[ext.listType] === "set",
  };
}

function typeName(node: Json, value: unknown): string {
  if (typeof node.type === "string") return node.type;
  return Array.isArray(value) ? "array" : isObject(value) ? "object" : typeof value === "string" ? "string" : typeof value === "number" ? "number" : "object";
}

interface Budget {
  left: number;
  exhausted: boolean;
}

/**
 * A schema node as the rules' walk sees it, compiled once per CRD version: its rules,
 * and only the children with a rule at or below them (the walk skips the rest).
 */
interface RuleNode {
  readonly raw: Json;
  readonly rules: CompiledRule[];
  /** Declared properties with rules below (undefined: the node declares no properties). */
  readonly props: Map<string, RuleNode> | undefined;
  /** Map values, when the node declares no properties. */
  readonly additional: RuleNode | undefined;
  readonly items: RuleNode | undefined;
  /** Map-list keys, for correlating old items. */
  readonly mapKeys: string[] | undefined;
  readonly isSet: boolean;
}

export class CelRules {
  private constructor(
    private readonly root: RuleNode,
  ) {}

  /** The rules of a version's schema, or undefined when it has none. Rules that do not compile are skipped (the CRD was refused). */
  static of(schema: unknown, ext: ExtensionNames): CelRules | undefined {
    const root = isObject(schema) && hasRules(schema, ext) ? ruleNode(schema, ext, 0) : undefined;
    return root && new CelRules(root);
  }

  /** Errors of `obj` (and of the transition from `old`) with full field paths. */
  validate(obj: Json, old: Json | undefined): FieldError[] {
    const errs: FieldError[] = [];
    const budget: Budget = { left: RUNTIME_BUDGET, exhausted: false };
    const { metadata: _m, ...rest } = obj;
    const oldRest = old ? (({ metadata: _om, ...r }) => r)(old) : undefined;
    this.walk(this.root, rest, oldRest, "", errs, budget, 0, old !== undefined);
    return errs;
  }

  private walk(node: RuleNode, value: unknown, old: unknown, path: string, errs: FieldError[], budget: Budget, depth: number, isUpdate: boolean): void {
    if (value === undefined || value === null || depth > MAX_DEPTH || budget.exhausted) return;
    for (const rule of node.rules) {
      if (rule.transition && !rule.optionalOldSelf && (!isUpdate || old === undefined || old === null)) continue;
      this.evaluate(rule, node.raw, value, old, path, errs, budget);
      if (budget.exhausted) return;
    }
    if (isObject(value)) {
      const props = node.props;
      if (!props && !node.additional) return;
      const oldObj = isObject(old) ? old : undefined;
      for (const [k, v] of Object.entries(value)) {
        const child = props ? props.get(k) : node.additional;
        if (!child) continue;
        const childPathText = props ? childPath(path, k) : keyPath(path, k);
        this.walk(child, v, oldObj?.[k], childPathText, errs, budget, depth + 1, isUpdate);
      }
    } else if (Array.isArray(value) && node.items) {
      const items = node.items;
      const keys = node.mapKeys;
      const oldItems = Array.isArray(old) ? old : [];
      const keyOf = (x: unknown): string => JSON.stringify(keys?.map((k) => (isObject(x) ? x[k] : undefined)));
      const oldByKey = keys ? new Map(oldItems.map((x) => [keyOf(x), x])) : undefined;
      value.forEach((item, i) => {
        const oldItem = oldByKey ? oldByKey.get(keyOf(item)) : node.isSet ? (oldItems.some((o) => JSON.stringify(o) === JSON.stringify(item)) ? item : undefined) : undefined;
        this.walk(items, item, oldItem, indexPath(path, i), errs, budget, depth + 1, isUpdate);
      });
    }
  }

  private evaluate(rule: CompiledRule, node: Json, value: unknown, old: unknown, path: string, errs: FieldError[], budget: Budget): void {
    const activation: Record<string, unknown> = { self: value };
    if (rule.optionalOldSelf) activation.oldSelf = old === undefined || old === null ? Optional.none() : Optional.of(toCel(old));
    else if (rule.transition) activation.oldSelf = old;
    const field = rule.fieldPath ? `${path}${rule.fieldPath.startsWith(".") || rule.fieldPath.startsWith("[") ? "" : "."}${rule.fieldPath}`.replace(/^\./, "") : path;
    let result: unknown;
    try {
      const res = rule.program.evaluate(activation, { costBudget: Math.min(PER_CALL_LIMIT, budget.left) });
      budget.left -= res.cost;
      result = res.value;
    } catch (err) {
      if (err instanceof CelCostLimitError) {
        if (budget.left < PER_CALL_LIMIT) {
          budget.exhausted = true;
          errs.push(fieldErrors.invalid(path, typeName(node, value), "validation failed due to running out of cost budget, no further validation rules will be run"));
        } else {
          errs.push(fieldErrors.invalid(path, typeName(node, value), `call cost exceeds limit for rule: ${rule.rule}`));
        }
        return;
      }
      errs.push(fieldErrors.invalid(path, typeName(node, value), `${(err as Error).message} evaluating rule: ${rule.rule}`));
      return;
    }
    if (result === true) return;
    let message = rule.message ?? `failed rule: ${rule.rule.replace(/\s+/g, " ").trim()}`;
    if (rule.messageExpression) {
      try {
        const m = rule.messageExpression.evaluate(activation, { costBudget: Math.min(PER_CALL_LIMIT, budget.left) });
        budget.left -= m.cost;
        if (typeof m.value === "string" && m.value.trim() !== "" && !m.value.includes("\n")) message = m.value;
      } catch {
        // the static message (or the default) stands
      }
    }
    const type = typeName(node, value);
    if (rule.reason === "FieldValueForbidden") errs.push(fieldErrors.forbidden(field, message));
    else if (rule.reason === "FieldValueRequired") errs.push(fieldErrors.required(field, message));
    else if (rule.reason === "FieldValueDuplicate") errs.push(fieldErrors.duplicate(field, type));
    else errs.push(fieldErrors.invalid(field, type, message));
  }
}
