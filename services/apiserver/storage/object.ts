import { hasOwn, setOwn } from "../../../shared/schema/values.ts";

/** The plain object form every registry and storage function passes around. */
export type JsonObject = Record<string, unknown>;

export interface ObjectMetaView {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  generateName?: string;
  selfLink?: string;
  managedFields?: unknown[];
  ownerReferences?: unknown[];
}

/** The metadata of an object, created when absent (callers own the object). */
export function meta(obj: JsonObject): ObjectMetaView {
  let m = obj.metadata;
  if (!m || typeof m !== "object" || Array.isArray(m)) {
    m = {};
    obj.metadata = m;
  }
  return m as ObjectMetaView;
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Takes `metadata.resourceVersion` out of `obj` (a new metadata object without it, keys in the
 * same order) rather than deleting the key: a delete turns the metadata into a slow
 * (dictionary) object, for every read and encoding of it after.
 */
export function dropResourceVersion(obj: JsonObject): void {
  const m = obj.metadata;
  if (!isObject(m) || !hasOwn(m, "resourceVersion")) return;
  const out: JsonObject = {};
  for (const k in m) if (k !== "resourceVersion" && hasOwn(m, k)) setOwn(out, k, m[k]);
  obj.metadata = out;
}

/** Storage encoding: JSON without the resourceVersion (the store's mod_revision is the version). */
export function encodeForStorage(obj: JsonObject): Uint8Array {
  const m = meta(obj);
  const rv = m.resourceVersion;
  if (rv === undefined) return encoder.encode(JSON.stringify(obj));
  // Undefined for the moment (JSON leaves the key out), not deleted: see dropResourceVersion.
  m.resourceVersion = undefined;
  try {
    return encoder.encode(JSON.stringify(obj));
  } finally {
    m.resourceVersion = rv;
  }
}

/** `encodeForStorage` of an object that must not be changed, even for a moment (a cached object): the same bytes. */
export function encodeSharedForStorage(obj: Readonly<JsonObject>): Uint8Array {
  const m = obj.metadata;
  if (!isObject(m) || m.resourceVersion === undefined) return encoder.encode(JSON.stringify(obj));
  const { resourceVersion: _rv, ...rest } = m;
  return encoder.encode(JSON.stringify({ ...obj, metadata: rest }));
}

export function decodeFromStorage(bytes: Uint8Array, modRevision: number): JsonObject {
  const obj = JSON.parse(decoder.decode(bytes)) as JsonObject;
  meta(obj).resourceVersion = String(modRevision);
  return obj;
}
