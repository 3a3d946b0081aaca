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
 */
const encoded = new WeakMap<object, Map<string, Uint8Array>>();

/** The bytes of `variant` of `obj`: `encode()`'s result, computed at most once per pair. */
export function encodedOnce(obj: object, variant: string, encode: () => Uint8Array): Uint8Array {
  let byVariant = encoded.get(obj);
  const hit = byVariant?.get(variant);
  if (hit) return hit;
  const bytes = encode();
  if (!byVariant) encoded.set(obj, (byVariant = new Map()));
  byVariant.set(variant, bytes);
  return bytes;
}

/** The bytes of `variant` of `obj` when already encoded, without computing or storing anything (lists reuse, never fill, the cache). */
export function encodedIfCached(obj: object, variant: string): Uint8Array | undefined {
  return encoded.get(obj)?.get(variant);
}

/** Variant of a GET's whole-object body in the request's encoding (also the item bytes a list reuses). */
export function objectVariant(s: { encoding: string; mediaType: string; pretty: boolean; resource: { apiVersion: string; kind: string } }): string {
  return `object|${s.encoding}|${s.mediaType}|${s.pretty ? "pretty" : ""}|${s.resource.apiVersion}|${s.resource.kind}`;
}
