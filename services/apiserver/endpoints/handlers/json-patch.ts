/**
 * The PATCH handler's JSON patch: the shared bounded engine (shared/patch) with its
 * refusals answered as the platform answers a PATCH request: a body that is not an
 * array of operations is 400, more than 10,000 operations 413, an operation that
 * does not apply (or copies beyond the byte budget) 422 Invalid. Messages name
 * operations and paths, never values.
 */
import { badRequest, requestEntityTooLarge, statusError, type StatusError } from "../../../../shared/api/status.ts";
import { applyJsonPatchBounded as applyBounded, JsonPatchError, type JsonPatchLimits } from "../../../../shared/patch/json-patch.ts";

/** The Status a PATCH request gets for a refused JSON patch. */
export function jsonPatchStatus(err: JsonPatchError): StatusError {
  switch (err.kind) {
    case "malformed":
      return badRequest(err.message);
    case "too-many-operations":
      return requestEntityTooLarge(err.message);
    default:
      return statusError({ code: 422, reason: "Invalid", message: `the server rejected our request due to an error in our request: ${err.message}` });
  }
}

/** Applies a decoded JSON patch to a copy of `doc`; refusals are thrown as Status errors. */
export async function applyJsonPatchBounded(doc: unknown, ops: unknown, limits: JsonPatchLimits = {}): Promise<unknown> {
  try {
    return await applyBounded(doc, ops, limits);
  } catch (err) {
    throw err instanceof JsonPatchError ? jsonPatchStatus(err) : err;
  }
}
