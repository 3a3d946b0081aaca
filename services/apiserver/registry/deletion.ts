/**
 * Deletion with the platform's states: the first delete of an object with finalizers
 * (or a propagation policy that adds one) sets `deletionTimestamp` and keeps it
 * (Terminating); it is removed when the last finalizer goes. Kinds whose strategy
 * gives a grace period (pods bound to a node) wait for it; everything else goes at once.
 */
import { badRequest, conflict, invalid } from "../../../shared/api/status.ts";
import { StorageError } from "../storage/interface.ts";
import { fieldErrors } from "../../../shared/schema/field-errors.ts";
import type { FieldError } from "../../../shared/schema/types.ts";
import type { Preconditions } from "../storage/interface.ts";
import { isObject, meta, type JsonObject } from "../storage/object.ts";
import type { Registry, WriteContext } from "./registry.ts";
import { timestamp } from "./system-meta.ts";
import { withOwn } from "../../../shared/schema/values.ts";
import { deleteCorruptObject } from "./unsafe-delete.ts";

export const ORPHAN_FINALIZER = "orphan";
export const FOREGROUND_FINALIZER = "foregroundDeletion";

export interface DeleteRequest {
  gracePeriodSeconds?: number;
  propagationPolicy?: "Orphan" | "Background" | "Foreground";
  orphanDependents?: boolean;
  preconditions?: Preconditions;
  dryRun?: boolean;
  ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
  /** Checks the extra `unsafe-delete-ignore-read-errors` verb (the handler's authorizer); throws 403. */
  authorizeUnsafeDelete?: () => Promise<void>;
}

export interface DeleteResult {
  /** In the registry's version. */
  object: JsonObject;
  /** True when the object is gone from the store; false when it is now Terminating. */
  deleted: boolean;
}

/** The DeleteOptions fields of a decoded body (a DELETE's, or an Eviction's `deleteOptions`); a dryRun value other than All is 400. */
export function deleteRequestFromObject(body: JsonObject): DeleteRequest {
  const opts: DeleteRequest = {};
  if (typeof body.gracePeriodSeconds === "number") opts.gracePeriodSeconds = body.gracePeriodSeconds;
  if (typeof body.propagationPolicy === "string") opts.propagationPolicy = body.propagationPolicy as DeleteRequest["propagationPolicy"];
  if (typeof body.orphanDependents === "boolean") opts.orphanDependents = body.orphanDependents;
  if (isObject(body.preconditions)) {
    const p = body.preconditions;
    opts.preconditions = { uid: typeof p.uid === "string" ? p.uid : undefined, resourceVersion: typeof p.resourceVersion === "string" ? p.resourceVersion : undefined };
  }
  if (Array.isArray(body.dryRun)) {
    for (const d of body.dryRun) if (d !== "All") throw badRequest(`Invalid dryRun value: "${String(d)}": supported values: "All"`);
    opts.dryRun = body.dryRun.length > 0;
  }
  if (body.ignoreStoreReadErrorWithClusterBreakingPotential === true) opts.ignoreStoreReadErrorWithClusterBreakingPotential = true;
  return opts;
}

/**
 * The platform's DeleteOptions checks; a failure is 422 Invalid for `kind`/`name` (the
 * DELETE handler passes DeleteOptions of the meta group and "", as the platform's does).
 * With ignoreStoreReadErrorWithClusterBreakingPotential each of the five other options
 * that is set is its own error, in the platform's order and words.
 */
export function validateDeleteOptions(opts: DeleteRequest, kind: string, name: string, group = ""): void {
  const errors: FieldError[] = [];
  if (opts.gracePeriodSeconds !== undefined && (!Number.isInteger(opts.gracePeriodSeconds) || opts.gracePeriodSeconds < 0)) {
    errors.push(fieldErrors.invalid("gracePeriodSeconds", opts.gracePeriodSeconds, "must be greater than or equal to 0"));
  }
  if (opts.orphanDependents !== undefined && opts.propagationPolicy !== undefined) {
    errors.push(fieldErrors.invalid("propagationPolicy", opts.propagationPolicy, "orphanDependents and deletionPropagation cannot be both set"));
  }
  if (opts.propagationPolicy !== undefined && !["Orphan", "Background", "Foreground"].includes(opts.propagationPolicy)) {
    errors.push(fieldErrors.notSupported("propagationPolicy", opts.propagationPolicy, ["Foreground", "Background", "Orphan", "nil"]));
  }
  if (opts.ignoreStoreReadErrorWithClusterBreakingPotential) {
    const others: Array<[string, boolean]> = [
      ["dryRun", !!opts.dryRun],
      ["propagationPolicy", opts.propagationPolicy !== undefined],
      ["orphanDependents", opts.orphanDependents !== undefined],
      ["gracePeriodSeconds", opts.gracePeriodSeconds !== undefined],
      ["preconditions", opts.preconditions !== undefined],
    ];
    for (const [option, set] of others) if (set) errors.push(fieldErrors.invalid("ignoreStoreReadErrorWithClusterBreakingPotential", true, `cannot be set together with .${option}`));
  }
  if (errors.length > 0) throw invalid(kind, name, errors, group);
}

function wantsFinalizer(opts: DeleteRequest): string | undefined {
  if (opts.propagationPolicy === "Orphan" || opts.orphanDependents === true) return ORPHAN_FINALIZER;
  if (opts.propagationPolicy === "Foreground") return FOREGROUND_FINALIZER;
  return undefined;
}

/** Default grace period of the object's kind, or undefined when deletion is immediate (strategy decides). */
function gracePeriodFor(obj: Readonly<JsonObject>, registry: Registry): number | undefined {
  return registry.strategy.gracePeriodSeconds?.(obj as JsonObject);
}

/** How a delete treats `obj`: the finalizer the options add, the grace period, and whether the object goes at once. */
function deletionPlan(registry: Registry, obj: Readonly<JsonObject>, opts: DeleteRequest): { extraFinalizer?: string; grace?: number; graceful: boolean; atOnce: boolean } {
  const extraFinalizer = wantsFinalizer(opts);
  const grace = opts.gracePeriodSeconds ?? gracePeriodFor(obj, registry);
  const finalizers = (obj.metadata as { finalizers?: unknown[] } | undefined)?.finalizers ?? [];
  const hasFinalizers = finalizers.length > 0 || !!registry.strategy.deletionBlocked?.(obj as JsonObject);
  const graceful = grace !== undefined && grace > 0 && gracePeriodFor(obj, registry) !== undefined;
  return { extraFinalizer, grace, graceful, atOnce: !hasFinalizers && !extraFinalizer && !graceful };
}

/** The stored object no longer goes at once (a finalizer or grace period came): the delete takes the Terminating path. */
class NotAtOnce extends Error {}

/** How often a delete decides again after the stored object changed its plan under it. */
const MAX_PLAN_CHANGES = 5;

/**
 * A delete that the watch cache's object shows going at once: one guarded delete with
 * that object as the guess, without a fresh read first (the platform's cached existing
 * object). The preconditions, the plan and admission are checked on each attempt's
 * object, the store's own after a conflict, as the platform's deleteValidation is.
 * Undefined when the stored object turns out to need the Terminating path.
 */
async function deleteCachedAtOnce(registry: Registry, key: string, name: string, guess: Readonly<JsonObject>, opts: DeleteRequest, wctx: WriteContext): Promise<DeleteResult | undefined> {
  try {
    const object = await registry.storage.delete(key, {
      preconditions: opts.preconditions,
      dryRun: wctx.dryRun,
      suggestion: guess,
      validateDeletion: async (current) => {
        if (!deletionPlan(registry, current, opts).atOnce) throw new NotAtOnce();
        await registry.admitDelete(current, wctx);
        await registry.validatePhase("DELETE", undefined, current, wctx);
      },
    });
    return { object: await registry.toRequest(object), deleted: true };
  } catch (err) {
    if (err instanceof NotAtOnce) return undefined;
    registry.fail(err, name);
  }
}

export async function deleteObject(registry: Registry, namespace: string | undefined, name: string, opts: DeleteRequest, ctx: Omit<WriteContext, "resource" | "name">): Promise<DeleteResult> {
  validateDeleteOptions(opts, registry.resource.kind, name);
  const key = registry.key(namespace, name);
  // Without the gate the option changes nothing (the storage has no unsafe deletion).
  if (opts.ignoreStoreReadErrorWithClusterBreakingPotential && registry.storage.deleteUnreadable) return deleteCorruptObject(registry, key, name, opts.authorizeUnsafeDelete);
  const wctx: WriteContext = withOwn(ctx, { resource: registry.resource, name });
  const guess = registry.storage.cachedGuess?.(key);
  if (guess && deletionPlan(registry, guess, opts).atOnce) {
    const done = await deleteCachedAtOnce(registry, key, name, guess, opts, wctx);
    if (done) return done;
  }
  // The stored object changed its plan between the read and the delete: decided again on a new read.
  for (let attempt = 0; attempt < MAX_PLAN_CHANGES; attempt++) {
    const done = await deleteAfterRead(registry, key, namespace, name, opts, wctx);
    if (done) return done;
  }
  registry.fail(new StorageError("Conflict", key, `too many changes deleting ${key}`), name);
}

/** Deletes from a fresh read of the object: Terminating (finalizers, grace period) or at once; undefined when the plan changed before the delete. */
async function deleteAfterRead(registry: Registry, key: string, namespace: string | undefined, name: string, opts: DeleteRequest, wctx: WriteContext): Promise<DeleteResult | undefined> {
  const current = await registry.getStored(namespace, name, undefined);
  if (opts.preconditions?.uid && opts.preconditions.uid !== meta(current).uid) {
    registry.fail(new StorageError("PreconditionFailed", key, `Precondition failed: UID in precondition: ${opts.preconditions.uid}, UID in object meta: ${meta(current).uid ?? ""}`), name);
  }
  await registry.admitDelete(current, wctx);
  await registry.validatePhase("DELETE", undefined, current, wctx);
  const { extraFinalizer, grace, graceful, atOnce } = deletionPlan(registry, current, opts);
  if (!atOnce) {
    // Terminating: record deletionTimestamp (once) and keep the object.
    let becameDeletable = false;
    const updated = await registry.storage
      .guaranteedUpdate(
        key,
        (obj) => {
          if (!obj) return undefined;
          const m = meta(obj);
          if (opts.preconditions?.resourceVersion && opts.preconditions.resourceVersion !== m.resourceVersion) {
            throw conflict(registry.resource.plural, name, registry.resource.group, `Precondition failed: ResourceVersion in precondition: ${opts.preconditions.resourceVersion}, ResourceVersion in object meta: ${m.resourceVersion ?? ""}`);
          }
          const now = registry.now();
          if (!m.deletionTimestamp) {
            m.deletionTimestamp = timestamp(now + (graceful ? (grace as number) * 1000 : 0));
            m.deletionGracePeriodSeconds = graceful ? (grace as number) : 0;
            registry.strategy.markTerminating?.(obj);
          } else if (graceful && grace !== undefined && grace < (m.deletionGracePeriodSeconds ?? Infinity)) {
            m.deletionTimestamp = timestamp(now + grace * 1000);
            m.deletionGracePeriodSeconds = grace;
          }
          if (extraFinalizer && !(m.finalizers ?? []).includes(extraFinalizer)) m.finalizers = [...(m.finalizers ?? []), extraFinalizer];
          becameDeletable = (m.finalizers ?? []).length === 0 && !graceful && !registry.strategy.deletionBlocked?.(obj);
          return obj;
        },
        { dryRun: wctx.dryRun },
      )
      .catch((err: unknown) => registry.fail(err, name));
    if (!becameDeletable) return { object: await registry.toRequest(updated), deleted: false };
  }
  try {
    // Gone at once as read: a finalizer or grace period that came since sends it through the plan again.
    const validateDeletion = atOnce
      ? (obj: JsonObject) => {
          if (!deletionPlan(registry, obj, opts).atOnce) throw new NotAtOnce();
        }
      : undefined;
    const object = await registry.storage.delete(key, { preconditions: opts.preconditions, dryRun: wctx.dryRun, validateDeletion });
    return { object: await registry.toRequest(object), deleted: true };
  } catch (err) {
    if (err instanceof NotAtOnce) return undefined;
    registry.fail(err, name);
  }
}
