/**
 * JSON ↔ CEL values. The evaluator represents CEL `int` as BigInt and `double`
 * as number, so JSON integers are converted before evaluation; results are
 * turned back into JSON-shaped values. Both directions are pure and total.
 */
import { Optional } from "@marcbachmann/cel-js";
import { Duration, UnsignedInt } from "@marcbachmann/cel-js/evaluator";

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Sets a key without invoking the `__proto__` setter of plain objects. */
function put(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/**
 * JSON value → CEL value: integral numbers within int64 become BigInt (CEL
 * `int`), other numbers stay doubles, BigInt is kept exactly, arrays and
 * objects are converted recursively. Anything else is returned unchanged.
 */
export function toCel(v: unknown): unknown {
  switch (typeof v) {
    case "number":
      if (Number.isInteger(v)) {
        const b = BigInt(v);
        if (b >= INT64_MIN && b <= INT64_MAX) return b;
      }
      return v;
    case "object": {
      if (v === null) return null;
      if (Array.isArray(v)) return v.map(toCel);
      if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) return v;
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) put(out, k, toCel(x));
      return out;
    }
    default:
      return v;
  }
}

function bigintToJson(b: bigint): number | bigint {
  const n = Number(b);
  return Number.isSafeInteger(n) ? n : b;
}

/**
 * CEL value → JSON-shaped value: BigInt becomes a number when it is a safe
 * integer and stays BigInt otherwise (exact), unsigned ints likewise, maps and
 * sets become objects and arrays, bytes become base64, timestamps RFC 3339
 * text, durations Go-style text ("1.5s"), an empty optional null.
 */
export function fromCel(v: unknown): unknown {
  switch (typeof v) {
    case "bigint":
      return bigintToJson(v);
    case "object": {
      if (v === null) return null;
      if (Array.isArray(v)) return v.map(fromCel);
      if (v instanceof UnsignedInt) return bigintToJson(v.value);
      if (v instanceof Uint8Array) return Buffer.from(v).toString("base64");
      if (v instanceof Date) return v.toISOString();
      if (v instanceof Duration) return v.toString();
      if (v instanceof Optional) return v.hasValue() ? fromCel(v.value()) : null;
      if (v instanceof Set) return [...v].map(fromCel);
      const out: Record<string, unknown> = {};
      if (v instanceof Map) {
        for (const [k, x] of v) put(out, String(k), fromCel(x));
        return out;
      }
      const proto: unknown = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return String(v);
      for (const [k, x] of Object.entries(v)) put(out, k, fromCel(x));
      return out;
    }
    default:
      return v;
  }
}

/**
 * A value converted once for many evaluations (e.g. the object of a request
 * that many policy expressions read): `evaluate` takes it as it is. The JSON
 * value must not change while the converted form is in use.
 */
export class CelValue {
  readonly value: unknown;
  constructor(json: unknown) {
    this.value = toCel(json);
  }
}

/** `v` converted once (kept when it already is). */
export function celValue(v: unknown): CelValue {
  return v instanceof CelValue ? v : new CelValue(v);
}

/** The CEL form of an activation entry: converted now, or already. */
export function celValueOf(v: unknown): unknown {
  return v instanceof CelValue ? v.value : toCel(v);
}
