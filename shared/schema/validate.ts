/**
 * Schema validation of a decoded value, with the platform's field paths and
 * messages (OpenAPI-style checks read `<path> in body should ...`).
 *
 * Contract: `validate` never throws and never mutates; it reports every
 * error it finds (a type mismatch stops descent below that node only).
 * Unknown fields are not errors here (see unknown-fields.ts).
 */
import { RE2JS } from "re2js";
import { checkFormat, OPENAPI_TYPE_FORMATS } from "./formats.ts";
import { fieldErrors } from "./field-errors.ts";
import { childPath, indexPath, keyPath } from "./path.ts";
import type { FieldError, Schema } from "./types.ts";
import { hasOwn, isObject, jsonTypeName, toJSONText } from "./values.ts";

export interface ValidateOptions {
  /**
   * A built-in kind's `metav1.Time` fields accept `null` (the platform decodes it as the
   * zero time and writes the zero time back as `null`, e.g. a condition's
   * `lastProbeTime`). Custom resources follow their schema's `nullable` only.
   */
  nullTimes?: boolean;
}

/** The walk's shared state: the errors found and the options. */
interface Walk {
  errs: FieldError[];
  nullTimes: boolean;
}

/** Validates `value` against `schema`; `basePath` prefixes every field path. */
export function validate(schema: Schema, value: unknown, basePath = "", options: ValidateOptions = {}): FieldError[] {
  const walk: Walk = { errs: [], nullTimes: !!options.nullTimes };
  validateNode(schema, value, basePath, walk);
  return walk.errs;
}

/** The name of a path inside the OpenAPI-style messages. */
function bodyName(path: string): string {
  return path === "" ? "." : path;
}

/** Checks the JSON type; returns false (after reporting) on mismatch. */
function checkType(schema: Schema, value: unknown, path: string, errs: FieldError[]): boolean {
  const actual = jsonTypeName(value);
  let expected: string | undefined = schema.type;
  let ok: boolean;
  if (schema.intOrString) {
    expected = "integer,string";
    ok = actual === "integer" || actual === "string";
  } else if (schema.format === "quantity" && (actual === "integer" || actual === "number")) {
    ok = true; // quantities may be written as JSON numbers
  } else if (expected === undefined) {
    ok = true;
  } else if (expected === "number") {
    ok = actual === "number" || actual === "integer";
  } else {
    ok = actual === expected;
  }
  if (!ok) errs.push(fieldErrors.typeInvalid(path, actual, `${bodyName(path)} in body must be of type ${expected}: ${JSON.stringify(actual)}`));
  return ok;
}

function validateNode(schema: Schema, value: unknown, path: string, walk: Walk): void {
  const errs = walk.errs;
  if (value === null) {
    if (schema.nullable || (schema.type === undefined && !schema.intOrString)) return;
    if (walk.nullTimes && schema.format === "date-time") return;
    errs.push(fieldErrors.typeInvalid(path, "null", `${bodyName(path)} in body must be of type ${schema.intOrString ? "integer,string" : schema.type}: "null"`));
    return;
  }
  if (value === undefined) return;
  if (!checkType(schema, value, path, errs)) return;
  validateScalar(schema, value, path, errs);
  if (Array.isArray(value)) validateArray(schema, value, path, walk);
  else if (isObject(value)) validateObject(schema, value, path, walk);
}

function validateScalar(schema: Schema, value: unknown, path: string, errs: FieldError[]): void {
  const name = bodyName(path);
  if (schema.enum && !schema.enum.some((e) => e === value)) {
    errs.push(fieldErrors.notSupported(path, value, schema.enum));
  }
  if (schema.format) {
    const details = checkFormat(schema.format, value);
    if (details.length && OPENAPI_TYPE_FORMATS.has(schema.format)) {
      errs.push(fieldErrors.typeInvalid(path, value, `${name} in body must be of type ${schema.format}: ${JSON.stringify(String(value))}`));
    } else {
      for (const d of details) errs.push(fieldErrors.invalid(path, value, d));
    }
  }
  if (typeof value === "number" || typeof value === "bigint") {
    if (schema.minimum !== undefined && value < schema.minimum) {
      errs.push(fieldErrors.invalid(path, value, `${name} in body should be greater than or equal to ${schema.minimum}`));
    }
    if (schema.maximum !== undefined && value > schema.maximum) {
      errs.push(fieldErrors.invalid(path, value, `${name} in body should be less than or equal to ${schema.maximum}`));
    }
  }
  if (typeof value === "string") {
    const chars = [...value].length;
    if (schema.maxLength !== undefined && chars > schema.maxLength) errs.push(fieldErrors.tooLongMaxLength(path, schema.maxLength));
    if (schema.minLength !== undefined && chars < schema.minLength) {
      errs.push(fieldErrors.invalid(path, value, `${name} in body should be at least ${schema.minLength} chars long`));
    }
    if (schema.pattern !== undefined && patternRegExp(schema.pattern)?.test(value) === false) {
      errs.push(fieldErrors.invalid(path, value, `${name} in body should match '${schema.pattern}'`));
    }
  }
}

const patternCache = new Map<string, RE2JS | null>();
/**
 * Compiled schema patterns, cached: RE2 syntax (as the platform's), unanchored as in
 * OpenAPI, matched in linear time whatever the pattern or input. Undefined for a
 * pattern that does not compile (refused where schemas are written, e.g. CRDs).
 */
function patternRegExp(pattern: string): RE2JS | undefined {
  let re = patternCache.get(pattern);
  if (re === undefined) {
    try {
      re = RE2JS.compile(pattern);
    } catch {
      re = null;
    }
    if (patternCache.size >= 1024) patternCache.clear();
    patternCache.set(pattern, re);
  }
  return re ?? undefined;
}

function validateArray(schema: Schema, value: unknown[], path: string, walk: Walk): void {
  const errs = walk.errs;
  if (schema.maxItems !== undefined && value.length > schema.maxItems) errs.push(fieldErrors.tooMany(path, value.length, schema.maxItems));
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    errs.push(fieldErrors.invalid(path, value.length, `${bodyName(path)} in body should have at least ${schema.minItems} items`));
  }
  if (schema.listType === "set") {
    const seen = new Set<string>();
    value.forEach((item, i) => {
      const k = toJSONText(item);
      if (seen.has(k)) errs.push(fieldErrors.duplicate(indexPath(path, i), item));
      seen.add(k);
    });
  } else if (schema.listType === "map" && schema.listMapKeys?.length) {
    const keys = schema.listMapKeys;
    const seen = new Set<string>();
    value.forEach((item, i) => {
      if (!isObject(item)) return;
      const keyValue: Record<string, unknown> = {};
      for (const k of keys) if (hasOwn(item, k)) keyValue[k] = item[k];
      const id = toJSONText(keys.map((k) => (hasOwn(item, k) ? item[k] : null)));
      if (seen.has(id)) errs.push(fieldErrors.duplicate(indexPath(path, i), keyValue));
      seen.add(id);
    });
  }
  if (schema.items) {
    const items = schema.items;
    value.forEach((item, i) => validateNode(items, item, indexPath(path, i), walk));
  }
}

function validateObject(schema: Schema, value: Record<string, unknown>, path: string, walk: Walk): void {
  const errs = walk.errs;
  for (const req of schema.required ?? []) {
    if (!hasOwn(value, req)) errs.push(fieldErrors.required(childPath(path, req)));
  }
  const count = Object.keys(value).length;
  if (schema.maxProperties !== undefined && count > schema.maxProperties) errs.push(fieldErrors.tooMany(path, count, schema.maxProperties));
  if (schema.embeddedResource) {
    for (const f of ["apiVersion", "kind"]) {
      const v = value[f];
      if (!hasOwn(value, f) || v === "" || v === null) errs.push(fieldErrors.required(childPath(path, f), "must not be empty"));
    }
  }
  const props = schema.properties ?? {};
  for (const [k, v] of Object.entries(value)) {
    if (hasOwn(props, k)) validateNode(props[k], v, childPath(path, k), walk);
    else if (schema.additionalProperties) validateNode(schema.additionalProperties, v, keyPath(path, k), walk);
  }
}

export { validateObjectMeta, validateLabels, validateAnnotations, validateFinalizers, type ObjectMetaOptions } from "./object-meta.ts";
export { validateImmutable, FIELD_IMMUTABLE_MSG } from "./immutable.ts";
export { formatFieldError } from "./field-errors.ts";
