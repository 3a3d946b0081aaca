/**
 * Field selectors: `metadata.name=x,status.phase!=Running`, `==` as `=`.
 * Values escape `\`, `,` and `=` with a backslash; keys are not escaped, so the
 * first operator in a term splits it. Terms are sorted, as the platform does.
 * A missing field matches as the empty string.
 */
import { SelectorError, type Requirement, type SelectorRequirement } from "./selector-types.ts";

/** Escapes a value for a selector string: `\` → `\\`, `,` → `\,`, `=` → `\=`. */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** Reverses `escapeFieldValue`; throws on unknown escapes and on bare `,` or `=`. */
export function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = "";
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c === "\\" || c === "," || c === "=") out += c;
      else throw new SelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
      inSlash = false;
      continue;
    }
    if (c === "\\") inSlash = true;
    else if (c === "," || c === "=") throw new SelectorError(`invalid field selector: unescaped character in value: ${c}`);
    else out += c;
  }
  if (inSlash) throw new SelectorError("invalid field selector: invalid escape sequence: \\");
  return out;
}

/** Splits on commas that are not escaped; escapes stay in the terms. */
function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === "\\") inSlash = true;
    else if (c === ",") {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

const TERM_OPERATORS = ["!=", "==", "="] as const;
type FieldOperator = (typeof TERM_OPERATORS)[number];

function splitTerm(term: string): { lhs: string; op: FieldOperator; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of TERM_OPERATORS) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

export class FieldSelector {
  static everything(): FieldSelector {
    return new FieldSelector([]);
  }

  /** Requirements with operator `=`, `==` or `!=` and exactly one value each. */
  readonly requirements: readonly Requirement[];

  constructor(requirements: readonly Requirement[]) {
    this.requirements = Object.freeze([...requirements]);
  }

  /** Every requirement holds; a missing field has the value "". */
  matches(fields: Readonly<Record<string, string>> | undefined): boolean {
    const f = fields ?? {};
    return this.requirements.every((r) => {
      const v = Object.prototype.hasOwnProperty.call(f, r.key) ? f[r.key] : "";
      return r.operator === "!=" ? v !== r.values[0] : v === r.values[0];
    });
  }

  empty(): boolean {
    return this.requirements.length === 0;
  }

  /** `metadata.name=x,status.phase!=Running`, values escaped. */
  toString(): string {
    return this.requirements.map((r) => `${r.key}${r.operator === "!=" ? "!=" : "="}${escapeFieldValue(r.values[0])}`).join(",");
  }

  /** The value the selector requires for `field` through `=`/`==`, if any. */
  requiresExactMatch(field: string): string | undefined {
    const r = this.requirements.find((x) => x.key === field && x.operator !== "!=");
    return r?.values[0];
  }

  /** Applies `fn` to every key and value (field label conversion); `fn` may throw. */
  transform(fn: (key: string, value: string) => { key: string; value: string }): FieldSelector {
    return new FieldSelector(
      this.requirements.map((r) => {
        const t = fn(r.key, r.values[0]);
        return { key: t.key, operator: r.operator, values: [t.value] };
      }),
    );
  }

  /** Requirements for authorizers and review objects: `=`/`==` → In, `!=` → NotIn. */
  toRequirements(): SelectorRequirement[] {
    return this.requirements.map((r) => ({ key: r.key, operator: r.operator === "!=" ? "NotIn" : "In", values: [r.values[0]] }));
  }
}

/**
 * Parses a field selector; throws `SelectorError` with the platform's message
 * (`invalid selector: '<s>'; can't understand '<term>'`). Empty selects everything.
 */
export function parseFieldSelector(selector: string): FieldSelector {
  const parts = splitTerms(selector).sort();
  const reqs: Requirement[] = [];
  for (const part of parts) {
    if (part === "") continue;
    const t = splitTerm(part);
    if (!t) throw new SelectorError(`invalid selector: '${selector}'; can't understand '${part}'`);
    reqs.push({ key: t.lhs, operator: t.op, values: [unescapeFieldValue(t.rhs)] });
  }
  return new FieldSelector(reqs);
}

/** A selector requiring exactly these field values. */
export function fieldSelectorFromSet(fields: Readonly<Record<string, string>>): FieldSelector {
  return new FieldSelector(Object.entries(fields).map(([key, v]) => ({ key, operator: "=" as const, values: [v] })));
}
