/**
 * Objects the store holds but this server cannot decode (garbage written under a key,
 * or bytes no codec understands): the platform calls them corrupt.
 *
 * Contract:
 * - `decodeStored` never throws: an undecodable value becomes a placeholder object that
 *   carries only the name, namespace and resourceVersion from its key and revision, and
 *   is marked (a symbol property, invisible to JSON) so readers can tell. The watch cache
 *   keeps placeholders, so one corrupt key never stops it from serving the others.
 * - Reads that meet a placeholder fail: `corruptionOf` gives the error; a list reports
 *   every corrupt key it met (`corruptListError`). The message is the platform's storage
 *   error text, so a Status reads "Internal error occurred: StorageError: corrupt object,
 *   Code: 7, Key: <key>, ResourceVersion: 0, AdditionalErrorMsg: <decode error>".
 */
import { decodeFromStorage, type JsonObject } from "./object.ts";

const CORRUPT = Symbol("corrupt object");

export class CorruptObjectError extends Error {
  constructor(
    readonly key: string,
    readonly detail: string,
  ) {
    super(`StorageError: corrupt object, Code: 7, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: ${detail}`);
    this.name = "CorruptObjectError";
  }
}

/** The name and namespace a storage key names (`/registry/<group>/<plural>[/<namespace>]/<name>`). */
function identityOf(key: string): { name: string; namespace?: string } {
  const parts = key.split("/").filter((p) => p !== "");
  const name = parts[parts.length - 1] ?? "";
  return parts.length >= 5 ? { name, namespace: parts[parts.length - 2] } : { name };
}

/** The object under `key`, or a marked placeholder when its bytes do not decode. */
export function decodeStored(key: string, bytes: Uint8Array, modRevision: number): JsonObject {
  try {
    return decodeFromStorage(bytes, modRevision);
  } catch (err) {
    const placeholder: JsonObject = { metadata: { ...identityOf(key), resourceVersion: String(modRevision) } };
    Object.defineProperty(placeholder, CORRUPT, { value: new CorruptObjectError(key, err instanceof Error ? err.message : String(err)), enumerable: false });
    return placeholder;
  }
}

/** The object under `key`; throws a CorruptObjectError when its bytes do not decode. */
export function decodeStoredOrThrow(key: string, bytes: Uint8Array, modRevision: number): JsonObject {
  const obj = decodeStored(key, bytes, modRevision);
  const corrupt = corruptionOf(obj);
  if (corrupt) throw corrupt;
  return obj;
}

/** The error of a placeholder, undefined for a real object. */
export function corruptionOf(obj: Readonly<JsonObject>): CorruptObjectError | undefined {
  return (obj as { [CORRUPT]?: CorruptObjectError })[CORRUPT];
}

/** One error for every corrupt object a list met (one alone keeps its own message; several are listed as `[a, b]`). */
export function corruptListError(errors: readonly CorruptObjectError[]): Error {
  if (errors.length === 1) return errors[0];
  return new Error(`[${errors.map((e) => e.message).join(", ")}]`);
}
