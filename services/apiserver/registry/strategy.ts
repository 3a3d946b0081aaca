/**
 * Per-kind behaviour the generic registry calls, derived from the kind definition:
 * what the server resets on create and update, defaulting, validation, and the
 * status subresource split. A strategy knows one kind and nothing about HTTP.
 */
import { applyDefaults, validate, validateImmutable, validateObjectMeta } from "../../../shared/schema/index.ts";
import { applyDefaultsInPlace } from "../../../shared/schema/defaults.ts";
import type { FieldError, KindDefinition } from "../../../shared/schema/types.ts";
import { cloneValue, deepEqual, setOwn } from "../../../shared/schema/values.ts";
import { meta, type JsonObject } from "../storage/object.ts";

/** The requesting user, for kinds that record it (CertificateSigningRequest). */
export interface RequestUser {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface Strategy {
  readonly def: KindDefinition;
  /** Resets fields the client may not set on create (status when a status subresource exists); `user` is the requester. */
  prepareForCreate(obj: JsonObject, user?: RequestUser): void;
  /** Keeps what an update of the main resource may not change; bumps generation on spec change. */
  prepareForUpdate(obj: JsonObject, old: JsonObject): void;
  /** For the status subresource: only status changes; the rest comes from the old object. */
  prepareForStatusUpdate(obj: JsonObject, old: JsonObject): JsonObject;
  /** The defaulted object, a copy: `obj` is not changed. */
  applyDefaults(obj: JsonObject): JsonObject;
  /**
   * `applyDefaults` of an object the caller owns (no part of it shared with a cache, the
   * request or a constant): the same result, made by changing `obj` where this strategy's
   * defaulting allows it (then the result is `obj`). Absent: call `applyDefaults`. A strategy
   * that overrides `applyDefaults` must leave this out (or set it undefined), since it
   * would otherwise keep the generic defaulting.
   */
  applyDefaultsInPlace?(obj: JsonObject): JsonObject;
  validate(obj: JsonObject): FieldError[];
  validateUpdate(obj: JsonObject, old: JsonObject): FieldError[];
  readonly allowCreateOnUpdate: boolean;
  readonly allowUnconditionalUpdate: boolean;
  readonly hasStatus: boolean;
  /** Update through a kind-specific subresource (namespaces: finalize); returns the object to store. */
  prepareForSubresource?(subresource: string, obj: JsonObject, old: JsonObject): JsonObject | undefined;
  /** Validation of an update through such a subresource, in place of `validateUpdate` (undefined: `validateUpdate`). */
  validateSubresourceUpdate?(subresource: string, obj: JsonObject, old: JsonObject): FieldError[] | undefined;
  /** Validation of a Scale written through the scale subresource (absent: registry/scale-validation.ts `validateScaleSpec`). */
  validateScale?(scale: JsonObject, oldScale: JsonObject): FieldError[];
  /** Grace period of a graceful deletion, or undefined when the object is removed at once. */
  gracePeriodSeconds?(obj: JsonObject): number | undefined;
  /** True while something other than metadata.finalizers keeps a deleted object (namespaces: spec.finalizers). */
  deletionBlocked?(obj: JsonObject): boolean;
  /** Changes made when the object becomes Terminating (namespaces: status.phase). */
  markTerminating?(obj: JsonObject): void;
}

/** Fields outside metadata and status whose change bumps `metadata.generation`. */
function specPart(obj: JsonObject): JsonObject {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

/**
 * `obj` with an empty `metadata` last, for the schema walk (ObjectMeta has its own
 * checks): a shallow copy, as `{ ...rest, metadata: {} }` without the rest's runtime copy.
 */
function withEmptyMetadata(obj: JsonObject): JsonObject {
  const body: JsonObject = {};
  for (const k of Object.keys(obj)) if (k !== "metadata") setOwn(body, k, obj[k]);
  body.metadata = {};
  return body;
}

function pushAll<T>(into: T[], from: readonly T[]): void {
  for (const x of from) into.push(x);
}

/** The schema's defaults, then the kind's defaulter, on a copy. */
function defaultsOf(def: KindDefinition): (obj: JsonObject) => JsonObject {
  return (obj) => {
    const out = applyDefaults(def.schema, obj) as JsonObject;
    def.defaulter?.(out);
    return out;
  };
}

export function genericStrategy(def: KindDefinition): Strategy {
  const hasStatus = (def.subresources ?? []).includes("status");
  // Only kinds with a desired state (spec) track generations, as on the platform.
  const tracksGeneration = !!def.schema.properties?.spec;
  const metaOptions = { namespaced: def.namespaced, nameFormat: def.nameFormat ?? "dns1123-subdomain" } as const;
  const generic = defaultsOf(def);
  const validateOptions = { nullTimes: !def.custom };
  return {
    def,
    hasStatus,
    allowCreateOnUpdate: def.allowCreateOnUpdate ?? false,
    allowUnconditionalUpdate: def.allowUnconditionalUpdate ?? true,
    prepareForCreate(obj) {
      if (hasStatus) delete obj.status;
      if (tracksGeneration) meta(obj).generation = 1;
      else delete meta(obj).generation;
    },
    prepareForUpdate(obj, old) {
      if (hasStatus) {
        if (old.status === undefined) delete obj.status;
        else obj.status = cloneValue(old.status);
      }
      const m = meta(obj);
      if (!tracksGeneration) {
        delete m.generation;
        return;
      }
      const oldGeneration = meta(old).generation ?? 1;
      m.generation = deepEqual(specPart(obj), specPart(old)) ? oldGeneration : oldGeneration + 1;
    },
    prepareForStatusUpdate(obj, old) {
      const next = cloneValue(old);
      if (obj.status === undefined) delete next.status;
      else next.status = cloneValue(obj.status);
      meta(next).resourceVersion = meta(obj).resourceVersion;
      return next;
    },
    applyDefaults: generic,
    applyDefaultsInPlace(obj) {
      const out = applyDefaultsInPlace(def.schema, obj) as JsonObject;
      def.defaulter?.(out);
      return out;
    },
    validate(obj) {
      const errors = validateObjectMeta(obj.metadata ?? {}, metaOptions);
      pushAll(errors, validate(def.schema, withEmptyMetadata(obj), "", validateOptions));
      const kindErrors = def.validateKind?.(obj);
      if (kindErrors) pushAll(errors, kindErrors);
      return errors;
    },
    validateUpdate(obj, old) {
      const errors = this.validate(obj);
      errors.push(...validateImmutable(def.schema, old, obj));
      return errors;
    },
  };
}
