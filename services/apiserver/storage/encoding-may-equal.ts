/**
 * A cheap test before a no-op check by bytes: can two objects have the same storage
 * encoding (`encodeForStorage`: JSON text without the top-level
 * `metadata.resourceVersion`)?
 *
 * Contract: `storageEncodingsMayBeEqual(a, b)` is false only when the encodings differ.
 * It is true whenever they are equal, and may be true when they differ (key order is
 * not compared; values that are not JSON data are not judged), so a true answer is
 * confirmed by comparing the bytes. A property whose value is `undefined` is absent, as
 * in JSON text.
 */
import { isObject, type JsonObject } from "./object.ts";

function isJsonScalar(v: unknown): boolean {
  return v === null || typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v));
}

function definedKeyCount(o: Record<string, unknown>, skip: string | undefined): number {
  let n = 0;
  for (const k in o) if (Object.hasOwn(o, k) && k !== skip && o[k] !== undefined) n++;
  return n;
}

function objectsMayBeEqual(a: Record<string, unknown>, b: Record<string, unknown>, skip: string | undefined, depth: number): boolean {
  let n = 0;
  for (const k in a) {
    if (!Object.hasOwn(a, k) || k === skip || a[k] === undefined) continue;
    n++;
    if (!Object.hasOwn(b, k) || b[k] === undefined) return false;
    // The top level's metadata is compared without its resourceVersion (not in the storage encoding).
    const topMetadata = depth === 0 && k === "metadata" && jsonKind(a[k]) === "object" && jsonKind(b[k]) === "object";
    if (!(topMetadata ? objectsMayBeEqual(a[k] as JsonObject, b[k] as JsonObject, "resourceVersion", 1) : valuesMayBeEqual(a[k], b[k], depth + 1))) return false;
  }
  return n === definedKeyCount(b, skip);
}

function valuesMayBeEqual(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true;
  if (isJsonScalar(a) && isJsonScalar(b)) return false; // distinct JSON scalars print differently (0 and -0 are ===)
  if (depth > 200) return true; // not judged: the bytes decide
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!valuesMayBeEqual(a[i], b[i], depth + 1)) return false;
    return true;
  }
  const ka = jsonKind(a);
  const kb = jsonKind(b);
  if (ka === "object" && kb === "object") return objectsMayBeEqual(a as JsonObject, b as JsonObject, undefined, depth);
  // One side is a container and the other a scalar: they print differently. Anything else is not judged.
  return ka === "other" || kb === "other" || ka === kb;
}

function jsonKind(v: unknown): "scalar" | "array" | "object" | "other" {
  if (isJsonScalar(v)) return "scalar";
  if (Array.isArray(v)) return "array";
  return isObject(v) && Object.getPrototypeOf(v) === Object.prototype ? "object" : "other";
}

export function storageEncodingsMayBeEqual(a: Readonly<JsonObject>, b: Readonly<JsonObject>): boolean {
  return objectsMayBeEqual(a, b, undefined, 0);
}
