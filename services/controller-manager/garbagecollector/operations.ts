/**
 * The garbage collector's writes, all through the API: drop owner references from a
 * dependent, remove a finalizer from an owner (the server completes a Terminating
 * object's deletion when its last finalizer goes), and delete with a propagation
 * policy and a uid precondition. Metadata edits are JSON merge patches carrying the
 * resourceVersion that was read (a precondition); a conflict re-reads and retries.
 * NotFound and a changed uid mean the work is moot and count as done.
 */
import { isStatusError } from "../../../shared/api/status.ts";
import { deleteDiscardingAnswer, type ApiObject, type ObjectClient } from "../../../shared/client/object-client.ts";
import type { ObjectIdentity } from "./graph.ts";

const CONFLICT_RETRIES = 5;

/** Reads the object, applies `edit` to its metadata (undefined: nothing to do) and patches; true when a write happened. */
async function editMetadata(client: ObjectClient, id: ObjectIdentity, edit: (obj: ApiObject) => Record<string, unknown> | undefined): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    let obj: ApiObject;
    try {
      obj = await client.get(id.resource, id.name, { namespace: id.namespace });
    } catch (err) {
      if (isStatusError(err, "NotFound")) return false;
      throw err;
    }
    if (obj.metadata.uid !== id.uid) return false;
    const change = edit(obj);
    if (!change) return false;
    try {
      await client.patch(id.resource, id.name, "merge", { metadata: { ...change, uid: id.uid, resourceVersion: obj.metadata.resourceVersion } }, { namespace: id.namespace });
      return true;
    } catch (err) {
      if (isStatusError(err, "NotFound")) return false;
      if (isStatusError(err, "Conflict") && attempt < CONFLICT_RETRIES) continue;
      throw err;
    }
  }
}

export function dropOwnerReferences(client: ObjectClient, dependent: ObjectIdentity, ownerUids: string[]): Promise<boolean> {
  return editMetadata(client, dependent, (obj) => {
    const refs = obj.metadata.ownerReferences ?? [];
    const kept = refs.filter((r) => !ownerUids.includes(r.uid));
    if (kept.length === refs.length) return undefined;
    return { ownerReferences: kept.length > 0 ? kept : null };
  });
}

export function removeFinalizer(client: ObjectClient, owner: ObjectIdentity, finalizer: string): Promise<boolean> {
  return editMetadata(client, owner, (obj) => {
    const finalizers = obj.metadata.finalizers ?? [];
    if (!finalizers.includes(finalizer)) return undefined;
    const kept = finalizers.filter((f) => f !== finalizer);
    return { finalizers: kept.length > 0 ? kept : null };
  });
}

/** Deletes exactly this object (uid precondition); true when the request was accepted. The answer's object is not decoded. */
export async function deleteObject(client: ObjectClient, id: ObjectIdentity, policy: "Background" | "Foreground" | "Orphan"): Promise<boolean> {
  try {
    await deleteDiscardingAnswer(client, id.resource, id.name, { namespace: id.namespace, propagationPolicy: policy, preconditions: { uid: id.uid } });
    return true;
  } catch (err) {
    if (isStatusError(err, "NotFound") || isStatusError(err, "Conflict")) return false;
    throw err;
  }
}
