/**
 * CEL equality on evaluator values, for library functions that search lists:
 * numbers compare across int, uint and double; lists element-wise; maps by
 * keys and values; bytes, timestamps and durations by value; other objects
 * (library types) by class and text. Pure.
 */
import { Duration, UnsignedInt } from "@marcbachmann/cel-js/evaluator";

const numeric = (v: unknown): number | bigint | undefined => {
  if (typeof v === "bigint" || typeof v === "number") return v;
  if (v instanceof UnsignedInt) return v.value;
  return undefined;
};

function entriesOf(v: object): Array<[unknown, unknown]> {
  return v instanceof Map ? [...(v as Map<unknown, unknown>).entries()] : Object.entries(v);
}

function lookup(v: object, key: unknown): { found: boolean; value?: unknown } {
  if (v instanceof Map) return (v as Map<unknown, unknown>).has(key) ? { found: true, value: (v as Map<unknown, unknown>).get(key) } : { found: false };
  if (typeof key !== "string" || !Object.prototype.hasOwnProperty.call(v, key)) return { found: false };
  return { found: true, value: (v as Record<string, unknown>)[key] };
}

/** True when two CEL values are equal. */
export function celEquals(a: unknown, b: unknown): boolean {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined || y !== undefined) {
    if (x === undefined || y === undefined) return false;
    if (typeof x === "number" || typeof y === "number") return Number(x) === Number(y);
    return x === y;
  }
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => celEquals(v, b[i]));
  if (a instanceof Uint8Array || b instanceof Uint8Array) return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.compare(a, b) === 0;
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (a instanceof Duration || b instanceof Duration) return a instanceof Duration && b instanceof Duration && a.seconds === b.seconds && a.nanos === b.nanos;
  const pa: unknown = Object.getPrototypeOf(a);
  const pb: unknown = Object.getPrototypeOf(b);
  const plain = (p: unknown, v: object): boolean => p === Object.prototype || p === null || v instanceof Map;
  if (plain(pa, a) && plain(pb, b)) {
    const ea = entriesOf(a);
    if (ea.length !== entriesOf(b).length) return false;
    return ea.every(([k, v]) => {
      const other = lookup(b, k);
      return other.found && celEquals(v, other.value);
    });
  }
  return pa === pb && String(a) === String(b);
}
