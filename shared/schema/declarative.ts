/**
 * Declarative validation: field rules written as the platform's `+k8s:` tags and
 * evaluated over an object, with the platform's declarative error wording.
 *
 * Contract:
 * - `parseTag("+k8s:minimum=0")` turns one tag into a rule; an unknown tag or a bad
 *   argument throws (a declaration error is a programming error, found at start-up).
 * - Vocabulary: `optional`, `required`, `forbidden`, `minimum=N`, `maxLength=N`
 *   (bytes), `maxItems=N`, `enum=A,B` (the allowed values), `format=k8s-short-name |
 *   k8s-long-name | k8s-label-key | k8s-label-value | k8s-uuid | k8s-ip`,
 *   `listType=set` (items unique), `listMapKey=k` (repeatable: items unique by those
 *   keys), `immutable` (update only), and `item(<key>: <value>, …)=<tag>`: the tag
 *   applies to the list items whose map keys have those values. Under `item`,
 *   `zeroOrOneOfMember` makes the selected items of one list a union: at most one of
 *   them may be present (`Invalid` on the list, the platform's `zeroOrOneOf`); on an
 *   update whose present members are those of the old object it ratchets (no error).
 * - A path is dotted with `[*]` for every item of a list: `spec.items[*].name`. Errors
 *   carry concrete paths (`spec.items[2].name`).
 * - On update, a field equal to the old object's is not checked (ratcheting).
 * - An absent field: `required` reports it, `forbidden` is satisfied, every other rule
 *   is skipped. A present field under `forbidden` is reported. Presence means "not
 *   undefined" (null counts as absent, as an omitted pointer).
 * - `evaluateDeclarative` is pure; it never throws for any input object.
 * - `coveredErrors` tells which hand-written errors the rules stand for: those on a
 *   field a rule names (or one of its items) and of an error type its tags produce.
 */
import { fieldErrors } from "./field-errors.ts";
import { checkFormat } from "./formats.ts";
import { FIELD_IMMUTABLE_MSG } from "./immutable.ts";
import { childPath, indexPath } from "./path.ts";
import type { FieldError, FieldErrorType, SchemaFormat } from "./types.ts";
import { deepEqual } from "./values.ts";

export type DeclarativeTag =
  | { kind: "optional" }
  | { kind: "required" }
  | { kind: "forbidden" }
  | { kind: "immutable" }
  | { kind: "minimum"; value: number }
  | { kind: "maxLength"; value: number }
  | { kind: "maxItems"; value: number }
  | { kind: "enum"; values: readonly string[] }
  | { kind: "format"; name: string; format: SchemaFormat }
  | { kind: "listSet" }
  | { kind: "listMapKey"; key: string }
  | { kind: "zeroOrOneOfMember" }
  | { kind: "item"; match: Readonly<Record<string, ItemKeyValue>>; then: DeclarativeTag };

/** A list-map key value selecting an item: `+k8s:item(type: "Approved")`. */
export type ItemKeyValue = string | number | boolean;

/** The tags of one field, as declared next to it. */
export interface DeclarativeFieldRule {
  path: string;
  tags: readonly DeclarativeTag[];
}

/** The platform's declarative format names and the schema format each checks. */
const FORMATS: Readonly<Record<string, SchemaFormat>> = {
  "k8s-short-name": "dns1123-label",
  "k8s-long-name": "dns1123-subdomain",
  "k8s-label-key": "label-key",
  "k8s-label-value": "label-value",
  "k8s-uuid": "uid",
  "k8s-ip": "ip",
};

const TAG = /^\+k8s:([A-Za-z]+)(?:=(.*))?$/;
const ITEM_TAG = /^\+k8s:item\(([^)]*)\)=(\+k8s:.*)$/;
const ITEM_ARG = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+|true|false)\s*$/;

function count(tag: string, arg: string | undefined): number {
  if (arg === undefined || !/^-?\d+$/.test(arg)) throw new Error(`declarative tag ${tag}: expected an integer argument`);
  return Number(arg);
}

/** `type: "Approved", priority: 10` → `{ type: "Approved", priority: 10 }`. */
function parseItemArgs(tag: string, args: string): Record<string, ItemKeyValue> {
  const match: Record<string, ItemKeyValue> = {};
  for (const part of args.split(",")) {
    const m = ITEM_ARG.exec(part);
    if (!m) throw new Error(`declarative tag ${tag}: expected <key>: <string | integer | boolean> arguments`);
    match[m[1]] = JSON.parse(m[2]) as ItemKeyValue;
  }
  return match;
}

/** One `+k8s:name[=arg]` tag as a rule. */
export function parseTag(text: string): DeclarativeTag {
  const item = ITEM_TAG.exec(text.trim());
  if (item) {
    const then = parseTag(item[2]);
    if (then.kind === "item" || then.kind === "optional") throw new Error(`declarative tag ${text}: ${item[2]} cannot select items`);
    return { kind: "item", match: parseItemArgs(text, item[1]), then };
  }
  const m = TAG.exec(text.trim());
  if (!m) throw new Error(`not a declarative tag: ${JSON.stringify(text)}`);
  const [, name, arg] = m as unknown as [string, string, string | undefined];
  switch (name) {
    case "optional":
    case "required":
    case "forbidden":
    case "immutable":
    case "zeroOrOneOfMember":
      if (arg !== undefined) throw new Error(`declarative tag ${text}: takes no argument`);
      return { kind: name };
    case "minimum":
    case "maxLength":
    case "maxItems":
      return { kind: name, value: count(text, arg) };
    case "enum":
      if (!arg) throw new Error(`declarative tag ${text}: expected the allowed values`);
      return { kind: "enum", values: arg.split(",") };
    case "format": {
      const format = arg === undefined ? undefined : FORMATS[arg];
      if (!format || arg === undefined) throw new Error(`declarative tag ${text}: unknown format`);
      return { kind: "format", name: arg, format };
    }
    case "listType":
      if (arg === "set") return { kind: "listSet" };
      if (arg === "map" || arg === "atomic") return { kind: "optional" }; // uniqueness comes with listMapKey
      throw new Error(`declarative tag ${text}: unknown list type`);
    case "listMapKey":
      if (!arg) throw new Error(`declarative tag ${text}: expected a key`);
      return { kind: "listMapKey", key: arg };
    default:
      throw new Error(`unknown declarative tag ${JSON.stringify(text)}`);
  }
}

/** Declarations `{ "spec.replicas": ["+k8s:optional", "+k8s:minimum=0"] }` as rules. */
export function parseDeclarations(declarations: Readonly<Record<string, readonly string[]>>): DeclarativeFieldRule[] {
  return Object.entries(declarations).map(([path, texts]) => {
    const tags = texts.map(parseTag);
    if (tags.some((t) => t.kind === "zeroOrOneOfMember")) throw new Error(`declarative tags of ${path}: +k8s:zeroOrOneOfMember is supported under +k8s:item only`);
    return { path, tags };
  });
}

interface Located {
  path: string;
  value: unknown;
  old: unknown;
}

function child(v: unknown, name: string): unknown {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>)[name] : undefined;
}

/** Every concrete field a rule path names, with the old object's value at the same place. */
function locate(path: string, obj: unknown, old: unknown): Located[] {
  let at: Located[] = [{ path: "", value: obj, old }];
  for (const segment of path.split(".")) {
    const each = segment.endsWith("[*]");
    const name = each ? segment.slice(0, -3) : segment;
    const next: Located[] = [];
    for (const l of at) {
      const p = childPath(l.path, name);
      const value = child(l.value, name);
      const oldValue = child(l.old, name);
      if (!each) {
        next.push({ path: p, value, old: oldValue });
      } else if (Array.isArray(value)) {
        value.forEach((item, i) => next.push({ path: indexPath(p, i), value: item, old: Array.isArray(oldValue) ? oldValue[i] : undefined }));
      }
    }
    at = next;
  }
  return at;
}

function itemMatches(item: unknown, match: Readonly<Record<string, ItemKeyValue>>): boolean {
  return Object.entries(match).every(([k, v]) => child(item, k) === v);
}

/** The union member name of an item selector, as the list-map item is named: `conditions[{"type": "Approved"}]`. */
function memberName(path: string, match: Readonly<Record<string, ItemKeyValue>>): string {
  const field = path.slice(path.lastIndexOf(".") + 1);
  return `${field}[{${Object.entries(match).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(", ")}}]`;
}

/** The `zeroOrOneOf` union of the list at `at` formed by the `item(...)=+k8s:zeroOrOneOfMember` tags. */
function checkItemUnion(tags: readonly DeclarativeTag[], at: Located, isUpdate: boolean): FieldError[] {
  const members = tags.flatMap((t) => (t.kind === "item" && t.then.kind === "zeroOrOneOfMember" ? [{ name: memberName(at.path, t.match), match: t.match }] : []));
  if (members.length === 0) return [];
  const present = (list: unknown) => (Array.isArray(list) ? members.filter((m) => list.some((item) => itemMatches(item, m.match))).map((m) => m.name) : []);
  const now = present(at.value);
  if (now.length <= 1) return [];
  if (isUpdate && deepEqual(present(at.old), now)) return [];
  return [fieldErrors.invalid(at.path, `{${now.join(", ")}}`, `must specify at most one of: ${members.map((m) => m.name).join(", ")}`)];
}

/** An `item(...)=<tag>` tag other than union membership: `<tag>` on each selected item (the old item found by the same keys). */
function checkItems(tag: Extract<DeclarativeTag, { kind: "item" }>, at: Located, isUpdate: boolean): FieldError[] {
  if (tag.then.kind === "zeroOrOneOfMember" || !Array.isArray(at.value)) return [];
  const oldItems = Array.isArray(at.old) ? at.old : [];
  const errs: FieldError[] = [];
  at.value.forEach((item, i) => {
    if (!itemMatches(item, tag.match)) return;
    const old: unknown = oldItems.find((o) => itemMatches(o, tag.match));
    errs.push(...checkTag(tag.then, { path: indexPath(at.path, i), value: item, old }, isUpdate, []));
  });
  return errs;
}

function byteLength(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

function checkTag(tag: DeclarativeTag, at: Located, isUpdate: boolean, mapKeys: readonly string[]): FieldError[] {
  const { path, value } = at;
  switch (tag.kind) {
    case "minimum":
      return typeof value === "number" && value < tag.value ? [fieldErrors.invalid(path, value, `must be greater than or equal to ${tag.value}`)] : [];
    case "maxLength":
      return typeof value === "string" && byteLength(value) > tag.value ? [fieldErrors.tooLong(path, tag.value)] : [];
    case "maxItems":
      return Array.isArray(value) && value.length > tag.value ? [fieldErrors.tooMany(path, value.length, tag.value)] : [];
    case "enum":
      return typeof value === "string" && !tag.values.includes(value) ? [fieldErrors.notSupported(path, value, tag.values)] : [];
    case "format":
      return checkFormat(tag.format, value).map((detail) => fieldErrors.invalid(path, value, detail));
    case "immutable":
      return isUpdate && at.old !== undefined && !deepEqual(at.old, value) ? [fieldErrors.invalid(path, value ?? null, FIELD_IMMUTABLE_MSG)] : [];
    case "listSet":
      return duplicates(path, value, (item) => JSON.stringify(item));
    case "listMapKey":
      // All listMapKey tags of a field form one key; the first one reports.
      return tag.key === mapKeys[0] ? duplicates(path, value, (item) => JSON.stringify(mapKeys.map((k) => child(item, k) ?? null))) : [];
    case "item":
      return checkItems(tag, at, isUpdate);
    default:
      return [];
  }
}

function duplicates(path: string, value: unknown, identity: (item: unknown) => string): FieldError[] {
  if (!Array.isArray(value)) return [];
  const seen = new Set<string>();
  const errs: FieldError[] = [];
  value.forEach((item, i) => {
    const id = identity(item);
    if (seen.has(id)) errs.push(fieldErrors.duplicate(indexPath(path, i), item));
    seen.add(id);
  });
  return errs;
}

/** The errors of `rules` over `obj` (and, on update, `old`), in rule order. */
export function evaluateDeclarative(rules: readonly DeclarativeFieldRule[], obj: unknown, old?: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const isUpdate = old !== undefined;
  for (const rule of rules) {
    const mapKeys = rule.tags.flatMap((t) => (t.kind === "listMapKey" ? [t.key] : []));
    for (const at of locate(rule.path, obj, old)) {
      // Unchanged data is not validated again on update (the platform's ambient ratcheting).
      if (isUpdate && deepEqual(at.value ?? null, at.old ?? null)) continue;
      const present = at.value !== undefined && at.value !== null;
      if (!present) {
        if (rule.tags.some((t) => t.kind === "required")) errs.push(fieldErrors.required(at.path));
        continue;
      }
      if (rule.tags.some((t) => t.kind === "forbidden")) {
        errs.push(fieldErrors.forbidden(at.path));
        continue;
      }
      for (const tag of rule.tags) errs.push(...checkTag(tag, at, isUpdate, mapKeys));
      errs.push(...checkItemUnion(rule.tags, at, isUpdate));
    }
  }
  return errs;
}

/** A matcher of the concrete field paths a rule path covers (the field and anything below it, e.g. `[3]` items). */
export function coveredPaths(rules: readonly DeclarativeFieldRule[]): (field: string) => boolean {
  const patterns = rules.map((r) => new RegExp(`^${r.path.split("[*]").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\[\\d+\\]")}(?:\\[\\d+\\])?$`));
  return (field) => patterns.some((p) => p.test(field));
}

/** The error type a tag reports (undefined: it reports none). */
function errorTypeOf(tag: DeclarativeTag): FieldErrorType | undefined {
  switch (tag.kind) {
    case "required":
      return "FieldValueRequired";
    case "forbidden":
      return "FieldValueForbidden";
    case "minimum":
    case "format":
    case "immutable":
    case "zeroOrOneOfMember":
      return "FieldValueInvalid";
    case "maxLength":
      return "FieldValueTooLong";
    case "maxItems":
      return "FieldValueTooMany";
    case "enum":
      return "FieldValueNotSupported";
    case "listSet":
    case "listMapKey":
      return "FieldValueDuplicate";
    case "item":
      return errorTypeOf(tag.then);
    default:
      return undefined;
  }
}

/**
 * A matcher of the hand-written errors the rules stand for: on a field a rule names
 * (or one of its items) and of a type one of that rule's tags reports. A hand-written
 * error of another type on the same field (a transition rule, say) is not covered.
 */
export function coveredErrors(rules: readonly DeclarativeFieldRule[]): (e: FieldError) => boolean {
  const byRule = rules.map((r) => ({ at: coveredPaths([r]), types: new Set(r.tags.map(errorTypeOf).filter((t): t is FieldErrorType => t !== undefined)) }));
  return (e) => byRule.some((r) => r.types.has(e.type) && r.at(e.field));
}
