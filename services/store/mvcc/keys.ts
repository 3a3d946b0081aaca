import type { KeyRange } from "./types.ts";

/**
 * Keys are indexed by their latin1 string form: one UTF-16 code unit per byte,
 * so JS string order (`<`) is exactly bytewise order and Map lookups are cheap.
 */
export type KeyId = string;

export const EMPTY_BYTES: Uint8Array = new Uint8Array(0);

export function keyId(bytes: Uint8Array): KeyId {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}

export function keyBytes(id: KeyId): Uint8Array {
  return new Uint8Array(Buffer.from(id, "latin1"));
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i] - b[i];
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return compareBytes(a, b) === 0;
}

/** The range end that selects every key with the given prefix (clientv3's GetPrefixRangeEnd). */
export function prefixEnd(prefix: Uint8Array): Uint8Array {
  const end = Uint8Array.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i]++;
      return end.slice(0, i + 1);
    }
  }
  // All bytes are 0xff (or the prefix is empty): every key >= prefix.
  return Uint8Array.of(0);
}

/** A normalized key interval: a single key, or [start, end) with end null meaning unbounded. */
export type KeyInterval = { single: true; start: KeyId } | { single: false; start: KeyId; end: KeyId | null };

export function toInterval(range: KeyRange): KeyInterval {
  const start = keyId(range.key);
  const end = range.rangeEnd;
  if (end === undefined || end.length === 0) return { single: true, start };
  if (end.length === 1 && end[0] === 0) return { single: false, start, end: null };
  return { single: false, start, end: keyId(end) };
}

export function intervalContains(iv: KeyInterval, id: KeyId): boolean {
  if (iv.single) return id === iv.start;
  return id >= iv.start && (iv.end === null || id < iv.end);
}
