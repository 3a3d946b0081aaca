/**
 * The identity checks of a patched object, as the platform makes them: the patch
 * may not change or drop the name (or move the object to another namespace), and a
 * uid set by the patch is a precondition on the current object's uid (409).
 */
import { badRequest, conflict } from "../../../../shared/api/status.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { RequestScope } from "../scope.ts";

function metaOf(o: JsonObject): JsonObject {
  return isObject(o.metadata) ? o.metadata : {};
}

function text(v: unknown): string {
  return typeof v === "string" ? v : "";
}

export function checkPatchedIdentity(s: RequestScope, current: JsonObject, patched: JsonObject): void {
  const m = metaOf(patched);
  const name = s.name ?? "";
  const objName = text(m.name);
  if (objName !== name) throw badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
  const objNamespace = text(m.namespace);
  if (s.namespace && objNamespace !== "" && objNamespace !== s.namespace) {
    throw badRequest(`the namespace of the object (${objNamespace}) does not match the namespace on the URL (${s.namespace})`);
  }
  const uid = text(m.uid);
  const currentUid = text(metaOf(current).uid);
  if (uid !== "" && uid !== currentUid) {
    throw conflict(s.resource.plural, name, s.resource.group, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${currentUid}`);
  }
}
