/**
 * Encoded bytes of the watch cache's objects, serialized once per object and variant
 * and reused by every GET and watch frame that needs the same bytes.
 *
 * Keyed by object identity (WeakMap): the watch cache never mutates an object it has
 * handed out — a change stores a new object under the key — so bytes kept for an
 * object describe that object version forever and cannot be stale; they are collected
 * with it. `variant` must name everything else the bytes depend on (what is encoded:
 * object or watch event type; encoding, media type, pretty; apiVersion and kind
 * stamped on it). Only objects that are never mutated may be used as keys, and only
 * for output that depends on nothing per request (not Tables, whose headers depend
 * on the request).
 *
 * Lists add the bytes of the items they encode (`encodedForList`) while the bytes
 * lists have added and not yet released stay under a budget (`LIST_FILL_BUDGET_BYTES`);
 * past it a list encodes without keeping. Bytes are released when their object is
 * collected (a FinalizationRegistry), so the budget bounds what lists add to the
 * server's memory at once, and a repeated list of the same objects is copied, not
 * encoded again.
 */
const encoded = new WeakMap<object, Map<string, Uint8Array>>();

/** Bytes that lists may keep in the cache at once (beyond what GETs and watches keep). */
export const LIST_FILL_BUDGET_BYTES = 64 * 1024 * 1024;

/** What lists have added and not yet released (by the collection of their objects). */
const listFill = { bytes: 0 };
const listFillReleased = new FinalizationRegistry<number>((n) => {
  listFill.bytes -= n;
});

/** Bytes lists keep in the cache now (for tests and metrics). */
export function listFilledBytes(): number {
  return listFill.bytes;
}

/** The bytes of `variant` of `obj`: `encode()`'s result, computed at most once per pair. */
export function encodedOnce(obj: object, variant: string, encode: () => Uint8Array): Uint8Array {
  const hit = encodedIfCached(obj, variant);
  if (hit) return hit;
  return keep(obj, variant, encode());
}

function keep(obj: object, variant: string, bytes: Uint8Array): Uint8Array {
  let byVariant = encoded.get(obj);
  if (!byVariant) encoded.set(obj, (byVariant = new Map()));
  byVariant.set(variant, bytes);
  return bytes;
}

/** The bytes of `variant` of `obj` when already encoded, without computing or storing anything. */
export function encodedIfCached(obj: object, variant: string): Uint8Array | undefined {
  return encoded.get(obj)?.get(variant);
}

/**
 * The bytes of `variant` of `obj` for a list: the cached bytes, else, while the bytes
 * lists keep are under `budget`, `encode()`'s, kept for the next list or GET; else
 * undefined (the list encodes the item its own way, keeping nothing).
 */
export function encodedForList(obj: object, variant: string, encode: () => Uint8Array, budget = LIST_FILL_BUDGET_BYTES): Uint8Array | undefined {
  const hit = encodedIfCached(obj, variant);
  if (hit || listFill.bytes >= budget) return hit;
  const bytes = keep(obj, variant, encode());
  listFill.bytes += bytes.length;
  listFillReleased.register(obj, bytes.length);
  return bytes;
}

/** Variant of a GET's whole-object body in the request's encoding (also the item bytes a list reuses). */
export function objectVariant(s: { encoding: string; mediaType: string; pretty: boolean; resource: { apiVersion: string; kind: string } }): string {
  return `object|${s.encoding}|${s.mediaType}|${s.pretty ? "pretty" : ""}|${s.resource.apiVersion}|${s.resource.kind}`;
}
