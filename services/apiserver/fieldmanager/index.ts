/**
 * Server-side apply and managedFields: the facade for handlers.
 *
 *   // PATCH with application/apply-patch+yaml (live is undefined when the apply creates):
 *   const obj = applyPatch({ kind, live, patch, manager: fieldManager, force, now: new Date() });
 *   // POST, PUT and non-apply PATCH, before admission:
 *   const obj = recordUpdate({ kind, live, object, manager, now: new Date() });
 *
 * `kind` is `{ schema, apiVersion, kind, subresource?, resetFields? }`; `applyPatch`
 * throws StatusErrors (`ApplyConflictError` is the 409 with one cause per
 * conflicting field). The handler validates the `fieldManager` query parameter
 * (required for apply; `validateFieldManager`) and defaults the result afterwards.
 */
import { FieldSet, fieldElement } from "./fieldpath.ts";

export { applyPatch, recordUpdate, capUpdateManagers, formatTime, DEFAULT_MAX_UPDATE_MANAGERS, ANCIENT_CHANGES_MANAGER } from "./manager.ts";
export type { ApplyRequest, KindContext, Obj, UpdateRequest } from "./manager.ts";
export { ApplyConflictError, conflictMessage } from "./conflict.ts";
export type { ConflictCause } from "./conflict.ts";
export {
  decodeManagedFields,
  encodeManagedFields,
  isResetManagedFields,
  ManagedFieldsError,
  managerIdentifier,
  validateFieldManager,
  validateManagedFields,
  STRIPPED_FIELDS,
} from "./managed-fields.ts";
export type { Managed, ManagedFieldsEntry, Operation } from "./managed-fields.ts";
export { FieldSet, fieldElement, fromFieldsV1, toFieldsV1, FieldsV1Error, pathString } from "./fieldpath.ts";
export type { Path, PathElement } from "./fieldpath.ts";
export { compare, toFieldSet } from "./typed.ts";
export { applyObject, mergeObjects } from "./merge.ts";

/** A set of dotted field paths (`"status"`, `"metadata.labels"`), e.g. a kind's reset fields. */
export function fieldPaths(...dotted: string[]): FieldSet {
  return FieldSet.of(...dotted.map((d) => d.split(".").map(fieldElement)));
}
