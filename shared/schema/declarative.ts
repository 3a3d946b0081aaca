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
 *   keys), `immutable` (update only).
 * - A path is dotted with `[*]` for every item of a list: `spec.items[*].name`. Errors
 *   carry concrete paths (`spec.items[2].name`).
 * - An absent field: `required` reports it, `forbidden` is satisfied, every other rule
 *   is skipped. A present field under `forbidden` is reported. Presence means "not
 *   undefined" (null counts as absent, as an omitted pointer).
 * - `evaluateDeclarative` is pure; it never throws for any input object.
 */
import { fieldErrors } from "./field-errors.ts";
import { checkFormat } from "./formats.ts";
import { FIELD_IMMUTABLE_MSG } from "./immutable.ts";
import { childPath, indexPath } from "./path.ts";
import type { FieldError, SchemaFormat } from "./types.ts";
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
  | { kind: "listMapKey"; key: string };

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

function count(tag: string, arg: string | undefined): number {
  if (arg === undefined || !/^-?\d+$/.test(arg)) throw new Error(`declarative tag ${tag}: expected an integer argument`);
  return Number(arg);
}

/** One `+k8s:name[=arg]` tag as a rule. */
export function parseTag(text: string): DeclarativeTag {
  const m = TAG.exec(text.trim());
  if (!m) throw new Error(`not a declarative tag: ${JSON.stringify(text)}`);
  const [, name, arg] = m as unknown as [string, string, string | undefined];
  switch (name) {
    case "optional":
    case "required":
    case "forbidden":
    case "immutable":
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
  return Object.entries(declarations).map(([path, tags]) => ({ path, tags: tags.map(parseTag) }));
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
    }
  }
  return errs;
}

/** A matcher of the concrete field paths a rule path covers (the field and anything below it, e.g. `[3]` items). */
export function coveredPaths(rules: readonly DeclarativeFieldRule[]): (field: string) => boolean {
  const patterns = rules.map((r) => new RegExp(`^${r.path.split("[*]").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\[\\d+\\]")}(?:\\[\\d+\\])?$`));
  return (field) => patterns.some((p) => p.test(field));
}
