/**
 * Field management of one write, as the platform layers it (outermost first):
 * version check → cap of update managers → manager identity → time stamps →
 * stripping of untracked metadata → ownership bookkeeping (updater.ts).
 *
 * - `recordUpdate`: a create, update or non-apply patch. Never fails: an
 *   internal failure leaves the object without managedFields, as the platform
 *   does. The request's own managedFields are used when they decode to at
 *   least one manager (clients may edit them); `[{}]` resets them first; an
 *   empty or invalid list falls back to the live object's. Writes to a
 *   subresource always start from the live object's entries.
 * - `applyPatch`: server-side apply; throws StatusErrors (400 for a bad
 *   configuration, 409 ApplyConflictError, 500 when the stored entries do not
 *   decode).
 *
 * Time is passed in; entries get RFC 3339 seconds in UTC.
 */
import { badRequest, internalError } from "../../../shared/api/status.ts";
import type { Schema } from "../../../shared/schema/types.ts";
import { isObject, TypedValueError } from "./atoms.ts";
import { ApplyConflictError } from "./conflict.ts";
import type { FieldSet } from "./fieldpath.ts";
import {
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  isResetManagedFields,
  managerIdentifier,
  STRIPPED_FIELDS,
  type Managed,
} from "./managed-fields.ts";
import { dropNulls } from "./nulls.ts";
import { compareStrings } from "./path-element.ts";
import { apply, MergeConflicts, update, type VersionedSet } from "./updater.ts";
import { cloneValue, hasOwn, setOwn } from "../../../shared/schema/values.ts";

export type Obj = Record<string, unknown>;

/** What the field manager knows about the resource being written. */
export interface KindContext {
  /** The kind's schema at the request's version. */
  schema: Schema;
  /** The request's `apiVersion` (`v1`, `apps/v1`). */
  apiVersion: string;
  kind: string;
  /** Set for writes to a subresource (`status`, `scale`). */
  subresource?: string;
  /** Fields nobody gains ownership of through this endpoint (`status` on the main resource, `spec` on `status`...). */
  resetFields?: FieldSet;
  /** Update managers kept before the oldest are merged into `ancient-changes` (default 10). */
  maxUpdateManagers?: number;
}

export const DEFAULT_MAX_UPDATE_MANAGERS = 10;
export const ANCIENT_CHANGES_MANAGER = "ancient-changes";
const CURRENT_OPERATION = "\u0000current-operation";

/** The last second formatted: writes in the same second share its text. */
let formatted = { second: Number.NaN, text: "" };

/** RFC 3339 in whole seconds (UTC), as managedFields times are written. */
export function formatTime(now: Date): string {
  const second = Math.floor(now.getTime() / 1000);
  if (second !== formatted.second) formatted = { second, text: new Date(second * 1000).toISOString().replace(".000Z", "Z") };
  return formatted.text;
}

function metadataOf(o: Obj): Obj | undefined {
  return isObject(o.metadata) ? o.metadata : undefined;
}

/**
 * The object without `metadata.managedFields`: a new top level and a new metadata, everything
 * under them shared with `o` (an update only reads the live object and only sets the result's
 * managedFields; whoever stores the result copies it first).
 */
function shallowWithoutManagedFields(o: Obj): Obj {
  const meta = metadataOf(o);
  if (!meta) return { ...o };
  const { managedFields: _managedFields, ...rest } = meta;
  return { ...o, metadata: rest };
}

/**
 * A deep copy without `metadata.managedFields`, keys in their order. The key is left out of
 * the copy rather than deleted from it: a delete makes the metadata a slow (dictionary) object.
 */
function withoutManagedFields(o: Obj): Obj {
  const copy: Obj = {};
  for (const k in o) {
    if (!hasOwn(o, k)) continue;
    const v = o[k];
    if (k !== "metadata" || !isObject(v)) {
      setOwn(copy, k, cloneValue(v));
      continue;
    }
    const meta: Obj = {};
    for (const mk in v) if (mk !== "managedFields" && hasOwn(v, mk)) setOwn(meta, mk, cloneValue(v[mk]));
    setOwn(copy, k, meta);
  }
  return copy;
}

function setManagedFields(o: Obj, managed: Managed): Obj {
  const entries = encodeManagedFields(managed);
  const meta = metadataOf(o);
  if (entries) {
    if (meta) meta.managedFields = entries;
    else o.metadata = { managedFields: entries };
  } else if (meta) delete meta.managedFields;
  return o;
}

function decodeOrEmpty(entries: unknown): Managed {
  try {
    return decodeManagedFields(entries);
  } catch {
    return emptyManaged();
  }
}

function decodeLiveOrNew(live: Obj, next: Obj, ignoreRequest: boolean): Managed {
  const liveEntries = metadataOf(live)?.managedFields;
  if (ignoreRequest) return decodeOrEmpty(liveEntries);
  const requested = metadataOf(next)?.managedFields;
  if (isResetManagedFields(requested)) return emptyManaged();
  const managed = decodeOrEmpty(requested);
  return managed.fields.size > 0 ? managed : decodeOrEmpty(liveEntries);
}

function stripSet(vs: VersionedSet): VersionedSet | undefined {
  const set = vs.set.difference(STRIPPED_FIELDS);
  return set.empty() ? undefined : { ...vs, set };
}

export interface UpdateRequest {
  kind: KindContext;
  /** The stored object; undefined on create. */
  live: Obj | undefined;
  /** The object about to be stored. */
  object: Obj;
  /** The field manager (from `fieldManager` or the user agent); `unknown` when empty. */
  manager: string;
  now: Date;
}

/**
 * The object to store, with `metadata.managedFields` recording the write. The result's
 * top level and metadata are its own; what lies under them is shared with `req.object`.
 */
export function recordUpdate(req: UpdateRequest): Obj {
  const { kind } = req;
  const live = req.live ?? {};
  const next = shallowWithoutManagedFields(req.object);
  try {
    const managed = decodeLiveOrNew(live, req.object, kind.subresource !== undefined && kind.subresource !== "");
    const id = managerIdentifier({ manager: req.manager || "unknown", operation: "Update", apiVersion: kind.apiVersion, subresource: kind.subresource });
    const fields = update(kind.schema, shallowWithoutManagedFields(live), next, kind.apiVersion, managed.fields, CURRENT_OPERATION, { ignored: kind.resetFields });
    const mine = fields.get(CURRENT_OPERATION);
    fields.delete(CURRENT_OPERATION);
    const stripped = mine && stripSet(mine);
    if (stripped) {
      const previous = fields.get(id);
      fields.set(id, { set: previous ? stripped.set.union(previous.set) : stripped.set, apiVersion: stripped.apiVersion, applied: false });
      managed.times.set(id, formatTime(req.now));
    }
    const capped = capUpdateManagers({ fields, times: managed.times }, kind.maxUpdateManagers ?? DEFAULT_MAX_UPDATE_MANAGERS);
    return setManagedFields(next, capped);
  } catch {
    return next;
  }
}

export interface ApplyRequest {
  kind: KindContext;
  /** The stored object; undefined when the apply creates it. */
  live: Obj | undefined;
  /** The decoded apply configuration (a partially specified object). */
  patch: unknown;
  manager: string;
  force: boolean;
  now: Date;
}

function gvkString(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === "string" ? apiVersion : "";
  const slash = av.indexOf("/");
  const [group, version] = slash >= 0 ? [av.slice(0, slash), av.slice(slash + 1)] : ["", av];
  return `${group}/${version}, Kind=${typeof kind === "string" ? kind : ""}`;
}

/** The object after applying `patch` for `manager`, with managedFields updated. */
export function applyPatch(req: ApplyRequest): Obj {
  const { kind, patch } = req;
  if (!isObject(patch)) throw badRequest("error decoding YAML: the apply configuration must be an object");
  if (patch.apiVersion !== kind.apiVersion || patch.kind !== kind.kind) throw badRequest(`invalid object type: ${gvkString(patch.apiVersion, patch.kind)}`);
  const patchMeta = metadataOf(patch);
  if (patchMeta && patchMeta.managedFields !== undefined && patchMeta.managedFields !== null) throw badRequest("metadata.managedFields must be nil");
  const live = req.live ?? {};
  let managed: Managed;
  try {
    managed = decodeManagedFields(metadataOf(live)?.managedFields);
  } catch (e) {
    throw internalError(new Error(`failed to decode managed fields: ${(e as Error).message}`));
  }
  const id = managerIdentifier({ manager: req.manager || "unknown", operation: "Apply", apiVersion: kind.apiVersion, subresource: kind.subresource });
  let result;
  try {
    result = apply(kind.schema, withoutManagedFields(live), patch, kind.apiVersion, managed.fields, id, req.force, { ignored: kind.resetFields });
  } catch (e) {
    if (e instanceof MergeConflicts) throw new ApplyConflictError(e.conflicts);
    if (e instanceof TypedValueError) throw badRequest(`failed to create typed patch object (${gvkString(patch.apiVersion, patch.kind)} ${objectName(patch)}): ${e.message}`);
    throw e;
  }
  const mine = result.managers.get(id);
  const stripped = mine && stripSet(mine);
  if (stripped) result.managers.set(id, stripped);
  else result.managers.delete(id);
  let object: Obj;
  if (result.object !== undefined && isObject(result.object)) {
    object = dropNulls(kind.schema, result.object) as Obj;
    managed.times.set(id, formatTime(req.now));
  } else object = withoutManagedFields(live);
  return setManagedFields(object, { fields: result.managers, times: managed.times });
}

function objectName(o: Obj): string {
  const meta = metadataOf(o);
  const ns = typeof meta?.namespace === "string" ? meta.namespace : "";
  const name = typeof meta?.name === "string" ? meta.name : "";
  return `${ns}/${name}`;
}

function seconds(t: string | undefined): number {
  const ms = t ? Date.parse(t) : NaN;
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/**
 * Keeps at most `max` Update managers: the oldest are merged, per API version,
 * into one `ancient-changes` entry (the first manager seen for a version
 * becomes the bucket when a second one of that version is merged).
 */
export function capUpdateManagers(managed: Managed, max: number): Managed {
  const { fields, times } = managed;
  const updaters = [...fields.entries()].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= max) return managed;
  updaters.sort((a, b) => seconds(times.get(a)) - seconds(times.get(b)) || compareStrings(a, b));
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i];
    const vs = fields.get(id);
    if (!vs) continue;
    const bucket = managerIdentifier({ manager: ANCIENT_CHANGES_MANAGER, operation: "Update", apiVersion: vs.apiVersion });
    const first = firstByVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstByVersion.set(vs.apiVersion, id);
      continue;
    }
    if (id === bucket) {
      // An existing bucket met after the first manager of its version: that manager joins it.
      fields.set(bucket, { ...vs, set: vs.set.union(fields.get(first)!.set) });
      fields.delete(first);
      firstByVersion.set(vs.apiVersion, bucket);
      length--;
      continue;
    }
    if (!fields.has(bucket)) {
      fields.set(bucket, fields.get(first)!);
      fields.delete(first);
    }
    fields.set(bucket, { set: vs.set.union(fields.get(bucket)!.set), apiVersion: vs.apiVersion, applied: false });
    fields.delete(id);
    length--;
    times.set(bucket, times.get(id));
  }
  return managed;
}
