/**
 * The strategy of one custom resource version: the generic strategy over the
 * converted schema, with the custom resource rules of the platform:
 * `metadata.generation` starts at 1 and grows on every change outside metadata
 * (and outside status when the status subresource is on), and the CEL rules of
 * the schema (`validations`) run after the schema checks; every write is pruned by
 * the schema before defaulting (what mutating admission added included). Unlike the
 * generic strategy's, this `applyDefaults` copies on write: its result shares what it
 * neither prunes nor defaults with its input (the input itself when that is nothing),
 * and it never changes its input.
 */
import { statusError } from "../../../shared/api/status.ts";
import type { KindDefinition } from "../../../shared/schema/types.ts";
import { prune } from "../../../shared/schema/prune.ts";
import { cloneValue, deepEqual } from "../../../shared/schema/values.ts";
import { genericStrategy, type Strategy } from "../registry/strategy.ts";
import { meta, type JsonObject } from "../storage/object.ts";
import type { CelRules } from "./cel-rules.ts";
import { hasUnknownFields, withDefaults } from "./write-plan.ts";

function content(obj: JsonObject, withoutStatus: boolean): JsonObject {
  const { metadata: _m, ...rest } = obj;
  if (withoutStatus) delete rest.status;
  return rest;
}

/** What the controller tells the strategies of a CRD's versions while it is served. */
export interface CrdState {
  /** The CRD is Terminating: creates are refused (405), as on the platform. */
  terminating: boolean;
  /** Open watches of the CRD's resources: ended when the CRD stops being served. */
  watchers?: Set<{ stop(): void }>;
}

export function customResourceStrategy(def: KindDefinition, rules: CelRules | undefined, state: CrdState): Strategy {
  const base = genericStrategy(def);
  const hasStatus = base.hasStatus;
  return {
    ...base,
    prepareForCreate(obj) {
      if (state.terminating) {
        throw statusError({ code: 405, reason: "MethodNotAllowed", message: "create not allowed while custom resource definition is terminating", details: { group: def.group, kind: def.plural } });
      }
      if (hasStatus) delete obj.status;
      meta(obj).generation = 1;
    },
    prepareForUpdate(obj, old) {
      if (hasStatus) {
        if (old.status === undefined) delete obj.status;
        else obj.status = cloneValue(old.status);
      }
      const oldGeneration = meta(old).generation ?? 1;
      meta(obj).generation = deepEqual(content(obj, hasStatus), content(old, hasStatus)) ? oldGeneration : oldGeneration + 1;
    },
    // Pruned before defaulting on every write: also what mutating admission added (as the platform prunes webhook results).
    // Copied on write: what is neither pruned nor defaulted is shared with `obj` (which is not changed).
    applyDefaults(obj) {
      const pruned = hasUnknownFields(def.schema, obj) ? (prune(def.schema, obj).value as JsonObject) : obj;
      return def.defaulter ? base.applyDefaults(pruned) : (withDefaults(def.schema, pruned) as JsonObject);
    },
    // No in-place variant: the generic one would skip the pruning above (the registry then calls applyDefaults).
    applyDefaultsInPlace: undefined,
    validate(obj) {
      const errors = base.validate(obj);
      if (errors.length === 0 && rules) errors.push(...rules.validate(obj, undefined));
      return errors;
    },
    validateUpdate(obj, old) {
      const errors = base.validate(obj);
      if (errors.length === 0 && rules) errors.push(...rules.validate(obj, old));
      return errors;
    },
  };
}
