/**
 * Label selectors: the platform's lexer and recursive-descent parser
 * (`a=b,c!=d,e in (x,y),f notin (z),g,!h`), with its exact error messages,
 * plus matching and conversion to and from the `LabelSelector` object.
 *
 * Grammar:
 *   selector    ::= requirement | requirement "," selector
 *   requirement ::= ["!"] KEY [ set-restriction | exact-restriction ]
 *   set-restriction   ::= ("in" | "notin") "(" VALUE ("," VALUE)* ")"
 *   exact-restriction ::= ("=" | "==" | "!=" | ">" | "<") VALUE
 * Keys are qualified names; values are label values (possibly empty).
 * Requirements are sorted by key (stable), set values sorted and de-duplicated.
 */
import { isLabelValue, isQualifiedName } from "../schema/formats.ts";
import {
  SelectorError,
  type LabelSelector,
  type Requirement,
  type SelectorOperator,
  type SelectorRequirement,
  type SelectorRequirementOperator,
} from "./selector-types.ts";

// ---------------------------------------------------------------------------
// Validation (field errors as the platform prints them)

/** Go's `%#v` of a `[]string`, used in the platform's messages about value sets. */
function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(", ")}}`;
}

function invalidLine(path: string, value: string, detail: string): string {
  return `${path}: Invalid value: ${value}: ${detail}`;
}

/** `<nil>: Invalid value: "k": ...` when the key is not a qualified name (path as the parser prints it). */
function keyError(key: string, path: string): string | undefined {
  const errs = isQualifiedName(key);
  return errs.length ? invalidLine(path, JSON.stringify(key), errs.join("; ")) : undefined;
}

function aggregate(lines: string[]): string {
  const unique = [...new Set(lines)];
  return unique.length === 1 ? unique[0] : `[${unique.join(", ")}]`;
}

const BINARY_OPERATORS: readonly SelectorOperator[] = ["in", "notin", "=", "==", "!=", "gt", "lt"];
const VALID_OPERATORS: readonly SelectorOperator[] = [...BINARY_OPERATORS, "exists", "!"];

/**
 * A validated requirement, as the platform's `NewRequirement`: the key must be a
 * qualified name, `in`/`notin` need values, `=`/`==`/`!=` exactly one, `exists`/`!`
 * none, `gt`/`lt` one integer; every value must be a label value.
 * Throws `SelectorError` with the aggregated field errors.
 */
export function newLabelRequirement(key: string, operator: SelectorOperator, values: readonly string[]): Requirement {
  const errs: string[] = [];
  const k = keyError(key, "key");
  if (k) errs.push(k);
  switch (operator) {
    case "in":
    case "notin":
      if (values.length === 0) errs.push(invalidLine("values", goStringSlice(values), "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case "=":
    case "==":
    case "!=":
      if (values.length !== 1) errs.push(invalidLine("values", goStringSlice(values), "exact-match compatibility requires one single value"));
      break;
    case "exists":
    case "!":
      if (values.length !== 0) errs.push(invalidLine("values", goStringSlice(values), "values set must be empty for exists and does not exist"));
      break;
    case "gt":
    case "lt":
      if (values.length !== 1) errs.push(invalidLine("values", goStringSlice(values), "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (!/^[+-]?[0-9]+$/.test(v)) errs.push(invalidLine(`values[${i}]`, JSON.stringify(v), "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
    default:
      errs.push(
        `operator: Unsupported value: ${JSON.stringify(operator)}: supported values: ${VALID_OPERATORS.map((o) => JSON.stringify(o)).join(", ")}`,
      );
  }
  values.forEach((v, i) => {
    const ve = isLabelValue(v);
    if (ve.length) errs.push(invalidLine(`values[${i}][${key}]`, JSON.stringify(v), ve.join("; ")));
  });
  if (errs.length) throw new SelectorError(aggregate(errs));
  return Object.freeze({ key, operator, values: Object.freeze([...values]) });
}

// ---------------------------------------------------------------------------
// Lexer

const enum Tok {
  Error,
  EndOfString,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const STRING_TO_TOKEN: ReadonlyMap<string, Tok> = new Map([
  [")", Tok.ClosedPar],
  [",", Tok.Comma],
  ["!", Tok.DoesNotExist],
  ["==", Tok.DoubleEquals],
  ["=", Tok.Equals],
  [">", Tok.GreaterThan],
  ["in", Tok.In],
  ["<", Tok.LessThan],
  ["!=", Tok.NotEquals],
  ["notin", Tok.NotIn],
  ["(", Tok.OpenPar],
]);

interface Item {
  tok: Tok;
  lit: string;
}

function isWhitespace(ch: string): boolean {
  return ch === " " || ch === "\t" || ch === "\r" || ch === "\n";
}

function isSpecialSymbol(ch: string): boolean {
  return ch === "=" || ch === "!" || ch === "(" || ch === ")" || ch === "," || ch === ">" || ch === "<";
}

function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  const next = (): Item => {
    while (pos < s.length && isWhitespace(s[pos])) pos++;
    if (pos >= s.length) return { tok: Tok.EndOfString, lit: "" };
    if (isSpecialSymbol(s[pos])) {
      // Longest operator made of special symbols, as the platform's scanner.
      let buffer = "";
      let last: Item | undefined;
      while (pos < s.length && isSpecialSymbol(s[pos])) {
        buffer += s[pos];
        const t = STRING_TO_TOKEN.get(buffer);
        if (t !== undefined) {
          last = { tok: t, lit: buffer };
          pos++;
        } else if (last) {
          break;
        } else {
          pos++;
        }
      }
      return last ?? { tok: Tok.Error, lit: `error expected: keyword found '${buffer}'` };
    }
    let buffer = "";
    while (pos < s.length && !isSpecialSymbol(s[pos]) && !isWhitespace(s[pos])) buffer += s[pos++];
    const keyword = STRING_TO_TOKEN.get(buffer);
    return keyword !== undefined ? { tok: keyword, lit: buffer } : { tok: Tok.Identifier, lit: buffer };
  };
  for (;;) {
    const item = next();
    items.push(item);
    if (item.tok === Tok.EndOfString) return items;
  }
}

// ---------------------------------------------------------------------------
// Parser

type Context = "keyAndOperator" | "values";

class Parser {
  private position = 0;
  constructor(private readonly items: Item[]) {}

  private adjust(item: Item, ctx: Context): Item {
    // In the values context `in` and `notin` are plain identifiers.
    if (ctx === "values" && (item.tok === Tok.In || item.tok === Tok.NotIn)) return { tok: Tok.Identifier, lit: item.lit };
    return item;
  }

  private lookahead(ctx: Context): Item {
    return this.adjust(this.items[this.position], ctx);
  }

  private consume(ctx: Context): Item {
    const item = this.items[this.position];
    // Never step past the end-of-string token.
    if (this.position < this.items.length - 1) this.position++;
    return this.adjust(item, ctx);
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead("values");
      switch (tok) {
        case Tok.Identifier:
        case Tok.DoesNotExist: {
          let r: Requirement;
          try {
            r = this.parseRequirement();
          } catch (e) {
            throw new SelectorError(`unable to parse requirement: ${(e as Error).message}`);
          }
          requirements.push(r);
          const t = this.consume("values");
          if (t.tok === Tok.EndOfString) return requirements;
          if (t.tok === Tok.Comma) {
            const t2 = this.lookahead("values");
            if (t2.tok !== Tok.Identifier && t2.tok !== Tok.DoesNotExist) {
              throw new SelectorError(`found '${t2.lit}', expected: identifier after ','`);
            }
            break;
          }
          throw new SelectorError(`found '${t.lit}', expected: ',' or 'end of string'`);
        }
        case Tok.EndOfString:
          return requirements;
        default:
          throw new SelectorError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): Requirement {
    const { key, operator } = this.parseKeyAndInferOperator();
    if (operator === "exists" || operator === "!") return newLabelRequirement(key, operator, []);
    const op = this.parseOperator();
    const values = op === "in" || op === "notin" ? this.parseValues() : this.parseExactValue();
    return newLabelRequirement(key, op, [...values].sort());
  }

  private parseKeyAndInferOperator(): { key: string; operator: SelectorOperator | "" } {
    let operator: SelectorOperator | "" = "";
    let item = this.consume("values");
    if (item.tok === Tok.DoesNotExist) {
      operator = "!";
      item = this.consume("values");
    }
    if (item.tok !== Tok.Identifier) throw new SelectorError(`found '${item.lit}', expected: identifier`);
    const err = keyError(item.lit, "<nil>");
    if (err) throw new SelectorError(err);
    const t = this.lookahead("values").tok;
    if ((t === Tok.EndOfString || t === Tok.Comma) && operator !== "!") operator = "exists";
    return { key: item.lit, operator };
  }

  private parseOperator(): SelectorOperator {
    const { tok, lit } = this.consume("keyAndOperator");
    switch (tok) {
      case Tok.In:
        return "in";
      case Tok.Equals:
        return "=";
      case Tok.DoubleEquals:
        return "==";
      case Tok.GreaterThan:
        return "gt";
      case Tok.LessThan:
        return "lt";
      case Tok.NotIn:
        return "notin";
      case Tok.NotEquals:
        return "!=";
      default:
        throw new SelectorError(`found '${lit}', expected: ${BINARY_OPERATORS.join(", ")}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume("values");
    if (open.tok !== Tok.OpenPar) throw new SelectorError(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead("values");
    switch (tok) {
      case Tok.Identifier:
      case Tok.Comma: {
        const s = this.parseIdentifiersList();
        if (this.consume("values").tok !== Tok.ClosedPar) throw new SelectorError(`found '${lit}', expected: ')'`);
        return s;
      }
      case Tok.ClosedPar:
        this.consume("values");
        return new Set([""]);
      default:
        throw new SelectorError(`found '${lit}', expected: ',', ')' or identifier`);
    }
  }

  private parseIdentifiersList(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume("values");
      if (tok === Tok.Identifier) {
        s.add(lit);
        const t2 = this.lookahead("values");
        if (t2.tok === Tok.Comma) continue;
        if (t2.tok === Tok.ClosedPar) return s;
        throw new SelectorError(`found '${t2.lit}', expected: ',' or ')'`);
      } else if (tok === Tok.Comma) {
        if (s.size === 0) s.add(""); // "(,"
        const t2 = this.lookahead("values").tok;
        if (t2 === Tok.ClosedPar) {
          s.add(""); // ",)"
          return s;
        }
        if (t2 === Tok.Comma) s.add(""); // ",,"
      } else {
        throw new SelectorError(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const t = this.lookahead("values").tok;
    if (t === Tok.EndOfString || t === Tok.Comma) return new Set([""]);
    const { tok, lit } = this.consume("values");
    if (tok === Tok.Identifier) return new Set([lit]);
    throw new SelectorError(`found '${lit}', expected: identifier`);
  }
}

function sortByKey(reqs: Requirement[]): Requirement[] {
  return reqs.map((r, i) => [r, i] as const).sort((a, b) => (a[0].key < b[0].key ? -1 : a[0].key > b[0].key ? 1 : a[1] - b[1])).map(([r]) => r);
}

// ---------------------------------------------------------------------------
// Matching

function requirementMatches(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case "in":
    case "=":
    case "==":
      return has && r.values.includes(value as string);
    case "notin":
    case "!=":
      return !has || !r.values.includes(value as string);
    case "exists":
      return has;
    case "!":
      return !has;
    case "gt":
    case "lt": {
      if (!has || r.values.length !== 1 || !/^[+-]?[0-9]+$/.test(value as string)) return false;
      const a = BigInt(value as string);
      const b = BigInt(r.values[0]);
      return r.operator === "gt" ? a > b : a < b;
    }
  }
}

/** True when every requirement holds for the labels (an empty list matches everything). */
export function matchesLabels(requirements: readonly Requirement[], labels: Readonly<Record<string, string>> | undefined): boolean {
  const ls = labels ?? {};
  return requirements.every((r) => requirementMatches(r, ls));
}

const TO_OBJECT_OPERATOR: Partial<Record<SelectorOperator, SelectorRequirementOperator>> = {
  in: "In",
  "=": "In",
  "==": "In",
  notin: "NotIn",
  "!=": "NotIn",
  exists: "Exists",
  "!": "DoesNotExist",
};

function requirementString(r: Requirement): string {
  if (r.operator === "exists") return r.key;
  if (r.operator === "!") return `!${r.key}`;
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort().join(",");
  switch (r.operator) {
    case "in":
      return `${r.key} in (${values})`;
    case "notin":
      return `${r.key} notin (${values})`;
    case "gt":
      return `${r.key}>${values}`;
    case "lt":
      return `${r.key}<${values}`;
    default:
      return `${r.key}${r.operator}${values}`;
  }
}

/**
 * A parsed label selector. `nothing` selectors (from a null `LabelSelector`)
 * match no object; an empty one matches every object.
 */
export class ParsedLabelSelector {
  static everything(): ParsedLabelSelector {
    return new ParsedLabelSelector([]);
  }

  static nothing(): ParsedLabelSelector {
    return new ParsedLabelSelector([], true);
  }

  readonly requirements: readonly Requirement[];

  constructor(
    requirements: readonly Requirement[],
    readonly matchesNothing = false,
  ) {
    this.requirements = Object.freeze(sortByKey([...requirements]));
  }

  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    return !this.matchesNothing && matchesLabels(this.requirements, labels);
  }

  /** True when the selector does not restrict the selection. */
  empty(): boolean {
    return !this.matchesNothing && this.requirements.length === 0;
  }

  /** The canonical string (`a=b,c in (x,y),!d`); values of sets sorted. */
  toString(): string {
    return this.requirements.map(requirementString).join(",");
  }

  /** The one value the selector requires for `key` (`=`, `==` or a one-value `in`). */
  requiresExactMatch(key: string): string | undefined {
    const r = this.requirements.find((x) => x.key === key);
    if (r && (r.operator === "=" || r.operator === "==" || r.operator === "in") && r.values.length === 1) return r.values[0];
    return undefined;
  }

  /**
   * Requirements for authorizers and review objects: `=`/`==`/`in` → In,
   * `!=`/`notin` → NotIn, exists → Exists, `!` → DoesNotExist. `gt`/`lt` cannot be
   * expressed and are left out, which only widens an AND of requirements.
   */
  toRequirements(): SelectorRequirement[] {
    const out: SelectorRequirement[] = [];
    for (const r of this.requirements) {
      const operator = TO_OBJECT_OPERATOR[r.operator];
      if (!operator) continue;
      out.push(operator === "Exists" || operator === "DoesNotExist" ? { key: r.key, operator } : { key: r.key, operator, values: [...r.values] });
    }
    return out;
  }

  /**
   * The `LabelSelector` object: one-value equalities become `matchLabels`, the rest
   * `matchExpressions`. Throws for `gt`/`lt`, which the object cannot express.
   */
  toObject(): LabelSelector | null {
    if (this.matchesNothing) return null;
    const obj: LabelSelector = {};
    for (const r of this.requirements) {
      if ((r.operator === "=" || r.operator === "==") && r.values.length === 1) {
        (obj.matchLabels ??= {})[r.key] = r.values[0];
        continue;
      }
      const operator = TO_OBJECT_OPERATOR[r.operator];
      if (!operator) throw new SelectorError(`${JSON.stringify(r.operator)} isn't supported in label selectors`);
      const expr = operator === "Exists" || operator === "DoesNotExist" ? { key: r.key, operator } : { key: r.key, operator, values: [...r.values] };
      (obj.matchExpressions ??= []).push(expr);
    }
    return obj;
  }
}

/** Parses a selector string; throws `SelectorError` with the platform's message. The empty string selects everything. */
export function parseLabelSelector(text: string): ParsedLabelSelector {
  return new ParsedLabelSelector(new Parser(lex(text)).parse());
}

const FROM_OBJECT_OPERATOR: Readonly<Record<string, SelectorOperator>> = {
  In: "in",
  NotIn: "notin",
  Exists: "exists",
  DoesNotExist: "!",
};

/**
 * Converts a `LabelSelector` object: null/undefined selects nothing, an empty
 * object everything. Throws `SelectorError` for invalid keys, values or operators.
 */
export function labelSelectorFromObject(obj: LabelSelector | null | undefined): ParsedLabelSelector {
  if (obj === null || obj === undefined) return ParsedLabelSelector.nothing();
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(obj.matchLabels ?? {})) reqs.push(newLabelRequirement(k, "=", [v]));
  for (const expr of obj.matchExpressions ?? []) {
    const op = Object.prototype.hasOwnProperty.call(FROM_OBJECT_OPERATOR, expr.operator) ? FROM_OBJECT_OPERATOR[expr.operator] : undefined;
    if (!op) throw new SelectorError(`${JSON.stringify(expr.operator)} is not a valid label selector operator`);
    reqs.push(newLabelRequirement(expr.key, op, expr.values ?? []));
  }
  return new ParsedLabelSelector(reqs);
}

/** A selector requiring exactly these labels (not validated, as the platform's `SelectorFromSet`). */
export function labelSelectorFromSet(labels: Readonly<Record<string, string>>): ParsedLabelSelector {
  return new ParsedLabelSelector(Object.entries(labels).map(([key, v]) => ({ key, operator: "=" as const, values: [v] })));
}
