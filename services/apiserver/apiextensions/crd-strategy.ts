/**
 * The strategy of CustomResourceDefinition objects: the generic one (schema and
 * the rules of apiextensions-v1-rules.ts) plus what needs the server: CEL rules
 * must compile, printer column paths must be simple JSON paths, the storage
 * version is recorded in `status.storedVersions`, a stored version may not be
 * removed from `spec.versions`, and deletion goes through Terminating: the
 * cleanup finalizer and the `Terminating` condition hold the CRD until the
 * controller (controller.ts) has removed every custom resource.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { fieldErrors } from "../../../shared/schema/field-errors.ts";
import { FIELD_IMMUTABLE_MSG } from "../../../shared/schema/immutable.ts";
import type { FieldError, KindDefinition } from "../../../shared/schema/types.ts";
import { timestamp } from "../registry/system-meta.ts";
import { genericStrategy, type Strategy } from "../registry/strategy.ts";
import { isObject, meta, type JsonObject } from "../storage/object.ts";
import { ruleCostErrors } from "./cel-cost.ts";
import { compileRules } from "./cel-rules.ts";
import { checkPatterns } from "./schema-checks.ts";
import { conditionsOf, isEstablished, setCondition } from "./status.ts";

/** The finalizer that holds a deleted CRD until its custom resources are gone. */
export function cleanupFinalizer(profile: PlatformProfile): string {
  return `customresourcecleanup.${profile.group("apiextensions")}`;
}

function versionsOf(obj: JsonObject): Array<Record<string, unknown>> {
  const spec = isObject(obj.spec) ? obj.spec : {};
  return Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
}

function validateJsonPath(path: unknown, field: string): FieldError[] {
  const s = typeof path === "string" ? path : "";
  if (s === "") return [fieldErrors.invalid(field, s, "must not be empty")];
  if (!s.startsWith(".")) return [fieldErrors.invalid(field, s, "must be a simple json path starting with .")];
  return [];
}

function serverRules(obj: JsonObject, profile: PlatformProfile): FieldError[] {
  const errs: FieldError[] = [];
  versionsOf(obj).forEach((v, i) => {
    const p = `spec.versions[${i}]`;
    const schema = isObject(v.schema) ? v.schema.openAPIV3Schema : undefined;
    errs.push(...checkPatterns(schema, `${p}.schema.openAPIV3Schema`));
    const compileErrors = compileRules(schema, `${p}.schema.openAPIV3Schema`, profile.ext);
    errs.push(...compileErrors);
    // Costs are estimated once every rule compiles, as on the platform.
    if (compileErrors.length === 0) errs.push(...ruleCostErrors(schema, `${p}.schema.openAPIV3Schema`, profile.ext));
    const cols = Array.isArray(v.additionalPrinterColumns) ? v.additionalPrinterColumns : [];
    cols.forEach((c, j) => {
      if (isObject(c) && c.jsonPath !== undefined) errs.push(...validateJsonPath(c.jsonPath, `${p}.additionalPrinterColumns[${j}].jsonPath`));
    });
    const fields = Array.isArray(v.selectableFields) ? v.selectableFields : [];
    fields.forEach((f, j) => {
      if (isObject(f)) errs.push(...validateJsonPath(f.jsonPath, `${p}.selectableFields[${j}].jsonPath`));
    });
  });
  return errs;
}

/** What affects storage never changes; scope and kind are fixed once the CRD is Established. */
function immutableSpecFields(obj: JsonObject, old: JsonObject): FieldError[] {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const oldSpec = isObject(old.spec) ? old.spec : {};
  const names = isObject(spec.names) ? spec.names : {};
  const oldNames = isObject(oldSpec.names) ? oldSpec.names : {};
  const fields: Array<[string, unknown, unknown]> = [
    ["spec.group", spec.group, oldSpec.group],
    ["spec.names.plural", names.plural, oldNames.plural],
  ];
  if (isEstablished(old)) fields.unshift(["spec.scope", spec.scope, oldSpec.scope], ["spec.names.kind", names.kind, oldNames.kind]);
  return fields.filter(([, now, before]) => now !== before).map(([field, now]) => fieldErrors.invalid(field, now, FIELD_IMMUTABLE_MSG));
}

function storedVersions(obj: JsonObject): string[] {
  const status = isObject(obj.status) ? obj.status : {};
  return Array.isArray(status.storedVersions) ? status.storedVersions.filter((x): x is string => typeof x === "string") : [];
}

export function crdStrategy(def: KindDefinition, profile: PlatformProfile): Strategy {
  const base = genericStrategy(def);
  const finalizer = cleanupFinalizer(profile);
  const recordStorageVersion = (obj: JsonObject): void => {
    const storage = versionsOf(obj).find((v) => v.storage === true);
    if (!storage || typeof storage.name !== "string") return;
    const stored = storedVersions(obj);
    if (stored.includes(storage.name)) return;
    const status = isObject(obj.status) ? obj.status : (obj.status = {});
    status.storedVersions = [...stored, storage.name];
  };
  return {
    ...base,
    prepareForUpdate(obj, old) {
      base.prepareForUpdate(obj, old);
      recordStorageVersion(obj);
    },
    prepareForStatusUpdate(obj, old) {
      return base.prepareForStatusUpdate(obj, old);
    },
    validate(obj) {
      return [...base.validate(obj), ...serverRules(obj, profile)];
    },
    validateUpdate(obj, old) {
      const errs = base.validateUpdate(obj, old);
      errs.push(...serverRules(obj, profile));
      errs.push(...immutableSpecFields(obj, old));
      const names = new Set(versionsOf(obj).map((v) => v.name));
      storedVersions(obj).forEach((v, i) => {
        if (!names.has(v)) errs.push(fieldErrors.invalid(`status.storedVersions[${i}]`, v, "must appear in spec.versions"));
      });
      return errs;
    },
    // Every first delete goes through Terminating (the cleanup finalizer is added then).
    deletionBlocked(obj) {
      return !meta(obj).deletionTimestamp;
    },
    markTerminating(obj) {
      const m = meta(obj);
      if (!(m.finalizers ?? []).includes(finalizer)) m.finalizers = [...(m.finalizers ?? []), finalizer];
      const status = isObject(obj.status) ? obj.status : (obj.status = {});
      status.conditions = setCondition(
        conditionsOf(obj),
        { type: "Terminating", status: "True", reason: "InstanceDeletionInProgress", message: "CustomResource deletion is in progress" },
        timestamp(Date.now()),
      );
    },
  };
}
