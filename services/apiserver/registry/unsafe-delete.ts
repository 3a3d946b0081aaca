/**
 * Unsafe deletion of a corrupt object (`ignoreStoreReadErrorWithClusterBreakingPotential`,
 * behind AllowUnsafeMalformedObjectDeletion): only an object the store holds but this
 * server cannot read is removed this way, ignoring finalizers and preconditions, after
 * the requester is also allowed the `unsafe-delete-ignore-read-errors` verb on it. A
 * readable object is refused (422) so the option cannot bypass the normal flow.
 */
import { invalid } from "../../../shared/api/status.ts";
import { fieldErrors } from "../../../shared/schema/field-errors.ts";
import { CorruptObjectError } from "../storage/corrupt-object.ts";
import type { DeleteResult } from "./deletion.ts";
import type { Registry } from "./registry.ts";

export const UNSAFE_DELETE_VERB = "unsafe-delete-ignore-read-errors";

export async function deleteCorruptObject(registry: Registry, key: string, name: string, authorize: (() => Promise<void>) | undefined): Promise<DeleteResult> {
  const remove = registry.storage.deleteUnreadable?.bind(registry.storage);
  if (!remove) throw new Error("unsafe deletion is not enabled");
  let readable = true;
  try {
    await registry.storage.get(key);
  } catch (err) {
    if (!(err instanceof CorruptObjectError)) registry.fail(err, name);
    readable = false;
  }
  if (readable) {
    const why = "is exclusively used to delete corrupt object(s), try again by removing this option";
    throw invalid(registry.resource.kind, name, [fieldErrors.invalid("ignoreStoreReadErrorWithClusterBreakingPotential", true, why)]);
  }
  await authorize?.();
  try {
    return { object: await remove(key), deleted: true };
  } catch (err) {
    registry.fail(err, name);
  }
}
