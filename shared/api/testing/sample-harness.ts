/**
 * Runs sample manifests through the schema engine the way the server's create
 * path does: strict decode, unknown-field detection, schema defaults then the
 * kind's defaulter, then schema validation, metadata validation (stored kinds
 * only) and the kind's own validation. Pure; no test framework here, so any
 * group's tests can use it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { applyDefaults, cloneValue, decodeYamlStrict, findUnknownFields, validate, validateObjectMeta } from "../../schema/index.ts";
import type { FieldError, KindDefinition } from "../../schema/types.ts";

type Obj = Record<string, unknown>;

export const SAMPLES_DIR = join(import.meta.dirname, "..", "samples");

/** Decodes `samples/<dir>/<file>` strictly; throws on duplicate fields or a non-object document. */
export function loadSample(dir: string, file: string): Obj {
  const decoded = decodeYamlStrict(readFileSync(join(SAMPLES_DIR, dir, file), "utf8"));
  if (decoded.duplicates.length > 0) throw new Error(`${dir}/${file}: duplicate fields ${decoded.duplicates.join(", ")}`);
  const v = decoded.value;
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error(`${dir}/${file}: not an object`);
  return v as Obj;
}

/** Sample file name of a kind: `<kind-lowercase>.yaml`. */
export function sampleFile(def: KindDefinition): string {
  return `${def.kind.toLowerCase()}.yaml`;
}

/** Schema defaults, then the kind's defaulter; returns a new object. */
export function defaultObject(def: KindDefinition, obj: Obj): Obj {
  const out = applyDefaults(def.schema, cloneValue(obj)) as Obj;
  def.defaulter?.(out);
  return out;
}

/** All validation errors of an (already defaulted) object, in the order the create path reports them. */
export function validateObject(def: KindDefinition, obj: Obj): FieldError[] {
  const errs = [...validate(def.schema, obj)];
  if (!def.virtual) errs.push(...validateObjectMeta(obj.metadata, { namespaced: def.namespaced, nameFormat: def.nameFormat }));
  if (def.validateKind) errs.push(...def.validateKind(obj));
  return errs;
}

/** Unknown fields, then defaults, then validation. */
export function admit(def: KindDefinition, obj: Obj): { unknown: string[]; defaulted: Obj; errors: FieldError[] } {
  const unknown = findUnknownFields(def.schema, obj);
  const defaulted = defaultObject(def, obj);
  return { unknown, defaulted, errors: validateObject(def, defaulted) };
}

/** The field paths of errors (for exact-path assertions). */
export function paths(errors: readonly FieldError[]): string[] {
  return errors.map((e) => e.field);
}

/** A deep copy changed by `edit` (for mutated-copy tests). */
export function mutate(obj: Obj, edit: (copy: Obj) => void): Obj {
  const copy = cloneValue(obj);
  edit(copy);
  return copy;
}

/** Walks a dotted path with `[i]` indexes (`spec.webhooks[0].name`) to the parent object and final key. */
function locate(obj: Obj, path: string): { parent: Obj | unknown[]; key: string | number } {
  const steps = path.match(/[^.[\]]+/g) ?? [];
  let cur: unknown = obj;
  for (let i = 0; i < steps.length - 1; i++) {
    const s = steps[i];
    cur = Array.isArray(cur) ? cur[Number(s)] : (cur as Obj)[s];
    if (typeof cur !== "object" || cur === null) throw new Error(`no object at ${steps.slice(0, i + 1).join(".")} of ${path}`);
  }
  const last = steps[steps.length - 1];
  return { parent: cur as Obj | unknown[], key: Array.isArray(cur) ? Number(last) : last };
}

/** Sets a value at a path (see `locate`). */
export function setAt(obj: Obj, path: string, value: unknown): void {
  const { parent, key } = locate(obj, path);
  (parent as Record<string | number, unknown>)[key] = value;
}

/** Deletes the value at a path. */
export function deleteAt(obj: Obj, path: string): void {
  const { parent, key } = locate(obj, path);
  if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else delete (parent as Obj)[key as string];
}

/** Reads the value at a path. */
export function getAt(obj: Obj, path: string): unknown {
  const { parent, key } = locate(obj, path);
  return (parent as Record<string | number, unknown>)[key];
}
