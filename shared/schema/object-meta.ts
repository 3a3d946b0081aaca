/**
 * Validation of an object's `metadata` on create and update, as the platform
 * does it: name or generateName, name format, namespace by scope, labels,
 * annotations (keys and total size), finalizers, owner references, managed fields.
 *
 * Contract: `meta` is the decoded `metadata` value (any shape); paths start at
 * `basePath` (default `metadata`). Schema type errors are validate()'s job;
 * this checks only the platform's meta rules for values of the right type.
 */
import { annotationsSize, isDNS1123Label, isLabelValue, isQualifiedName, nameValidator, TOTAL_ANNOTATION_SIZE_LIMIT } from "./formats.ts";
import { fieldErrors } from "./field-errors.ts";
import { childPath, indexPath } from "./path.ts";
import type { FieldError, SchemaFormat } from "./types.ts";
import { isObject } from "./values.ts";

export interface ObjectMetaOptions {
  /** The kind is namespace-scoped: `namespace` is required; otherwise it is forbidden. */
  namespaced: boolean;
  /** Rule for `name` (default `dns1123-subdomain`). */
  nameFormat?: SchemaFormat;
  /** Path of the metadata object (default `metadata`). */
  basePath?: string;
}

const FINALIZER_ORPHAN = "orphan";
const FINALIZER_FOREGROUND = "foregroundDeletion";

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (isObject(v)) for (const [k, x] of Object.entries(v)) if (typeof x === "string") out[k] = x;
  return out;
}

export function validateObjectMeta(meta: unknown, opts: ObjectMetaOptions): FieldError[] {
  const base = opts.basePath ?? "metadata";
  const m = isObject(meta) ? meta : {};
  const errs: FieldError[] = [];
  const nameFn = nameValidator(opts.nameFormat ?? "dns1123-subdomain");

  const generateName = str(m.generateName);
  const name = str(m.name);
  if (generateName) {
    for (const msg of nameFn(generateName, true)) errs.push(fieldErrors.invalid(childPath(base, "generateName"), generateName, msg));
  }
  if (!name) {
    if (!generateName) errs.push(fieldErrors.required(childPath(base, "name"), "name or generateName is required"));
  } else {
    for (const msg of nameFn(name, false)) errs.push(fieldErrors.invalid(childPath(base, "name"), name, msg));
  }

  const namespace = str(m.namespace);
  if (opts.namespaced) {
    if (!namespace) errs.push(fieldErrors.required(childPath(base, "namespace")));
    else for (const msg of isDNS1123Label(namespace)) errs.push(fieldErrors.invalid(childPath(base, "namespace"), namespace, msg));
  } else if (namespace) {
    errs.push(fieldErrors.forbidden(childPath(base, "namespace"), "not allowed on this type"));
  }

  if (typeof m.generation === "number" && m.generation < 0) {
    errs.push(fieldErrors.invalid(childPath(base, "generation"), m.generation, "must be greater than or equal to 0"));
  }

  errs.push(...validateLabels(stringMap(m.labels), childPath(base, "labels")));
  errs.push(...validateAnnotations(stringMap(m.annotations), childPath(base, "annotations")));
  errs.push(...validateFinalizers(m.finalizers, childPath(base, "finalizers")));
  errs.push(...validateOwnerReferences(m.ownerReferences, childPath(base, "ownerReferences")));
  errs.push(...validateManagedFields(m.managedFields, childPath(base, "managedFields")));
  return errs;
}

/** Label keys are qualified names, values label values; errors carry the map's path. */
export function validateLabels(labels: Record<string, string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels)) {
    for (const msg of isQualifiedName(k)) errs.push(fieldErrors.invalid(path, k, msg));
    for (const msg of isLabelValue(v)) errs.push(fieldErrors.invalid(path, v, msg));
  }
  return errs;
}

/** Annotation keys are qualified names (case-insensitive); all keys and values together at most 256 KiB. */
export function validateAnnotations(annotations: Record<string, string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of Object.keys(annotations)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(fieldErrors.invalid(path, k, msg));
  }
  if (annotationsSize(annotations) > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(fieldErrors.tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

/** Finalizer names are qualified names; `orphan` and `foregroundDeletion` exclude each other. */
export function validateFinalizers(finalizers: unknown, path: string): FieldError[] {
  if (!Array.isArray(finalizers)) return [];
  const errs: FieldError[] = [];
  const names = finalizers.filter((f): f is string => typeof f === "string");
  for (const f of names) for (const msg of isQualifiedName(f)) errs.push(fieldErrors.invalid(path, f, msg));
  if (names.includes(FINALIZER_ORPHAN) && names.includes(FINALIZER_FOREGROUND)) {
    errs.push(fieldErrors.invalid(path, names, `finalizer ${FINALIZER_ORPHAN} and ${FINALIZER_FOREGROUND} cannot be both set`));
  }
  return errs;
}

function validateOwnerReferences(refs: unknown, path: string): FieldError[] {
  if (!Array.isArray(refs)) return [];
  const errs: FieldError[] = [];
  let firstController = "";
  for (const ref of refs) {
    if (!isObject(ref)) continue;
    const apiVersion = str(ref.apiVersion);
    const version = apiVersion.includes("/") ? apiVersion.slice(apiVersion.indexOf("/") + 1) : apiVersion;
    if (!version) errs.push(fieldErrors.invalid(childPath(path, "apiVersion"), apiVersion, "version must not be empty"));
    for (const f of ["kind", "name", "uid"]) {
      if (!str(ref[f])) errs.push(fieldErrors.invalid(childPath(path, f), str(ref[f]), "must not be empty"));
    }
    if (ref.controller === true) {
      const current = `${str(ref.kind)}/${str(ref.name)}`;
      if (firstController) {
        errs.push(
          fieldErrors.invalid(path, refs, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`),
        );
      } else firstController = current;
    }
  }
  return errs;
}

function validateManagedFields(entries: unknown, path: string): FieldError[] {
  if (!Array.isArray(entries)) return [];
  const errs: FieldError[] = [];
  entries.forEach((e, i) => {
    if (!isObject(e)) return;
    const p = indexPath(path, i);
    if (e.operation !== "Apply" && e.operation !== "Update") errs.push(fieldErrors.invalid(childPath(p, "operation"), e.operation ?? "", "must be `Apply` or `Update`"));
    if (typeof e.fieldsType === "string" && e.fieldsType !== "" && e.fieldsType !== "FieldsV1") {
      errs.push(fieldErrors.invalid(childPath(p, "fieldsType"), e.fieldsType, "must be `FieldsV1`"));
    }
  });
  return errs;
}
