/**
 * The platform's quantity library: `quantity(<string>)`, `isQuantity(<string>)`
 * and the methods of `kubernetes.Quantity` (sign, isInteger, asInteger,
 * asApproximateFloat, compareTo, isGreaterThan, isLessThan, add and sub of a
 * quantity or an int). Values are exact decimals (unscaled bigint × 10^-scale),
 * so comparisons and sums never lose precision; syntax and its messages are
 * shared/schema's. Pure.
 */
import type { Environment } from "@marcbachmann/cel-js";
import { parseQuantity } from "../../schema/formats.ts";
import { CelEvaluationError } from "../errors.ts";

export const QUANTITY_TYPE = "kubernetes.Quantity";

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** Scales further apart than this are compared by magnitude instead of aligned exactly. */
const MAX_ALIGN = 2048;

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** An exact decimal: `unscaled × 10^-scale`. */
export class Quantity {
  constructor(
    readonly unscaled: bigint,
    readonly scale: number,
    private readonly text?: string,
  ) {}

  /** Parses quantity text; throws CelEvaluationError with the platform's message. */
  static parse(text: string): Quantity {
    const p = parseQuantity(text);
    if ("error" in p) throw new CelEvaluationError(p.error);
    const [whole, frac = ""] = p.number.split(".");
    let unscaled = BigInt((whole || "0") + frac);
    let scale = frac.length;
    if (p.base === 2) unscaled *= 2n ** BigInt(p.exponent);
    else scale -= p.exponent;
    if (p.negative) unscaled = -unscaled;
    return new Quantity(unscaled, scale, text);
  }

  static fromInt(n: bigint): Quantity {
    return new Quantity(n, 0);
  }

  sign(): number {
    return this.unscaled > 0n ? 1 : this.unscaled < 0n ? -1 : 0;
  }

  /** The value as an int64, or undefined when it is fractional or out of range. */
  asInt64(): bigint | undefined {
    let v: bigint;
    if (this.scale <= 0) {
      if (this.unscaled !== 0n && -this.scale > 19) return undefined;
      v = this.unscaled * pow10(-this.scale);
    } else {
      if (this.scale > MAX_ALIGN) return this.unscaled === 0n ? 0n : undefined;
      const d = pow10(this.scale);
      if (this.unscaled % d !== 0n) return undefined;
      v = this.unscaled / d;
    }
    return v >= INT64_MIN && v <= INT64_MAX ? v : undefined;
  }

  asApproximateFloat(): number {
    const digits = this.unscaled.toString();
    return Number(`${digits}e${-this.scale}`);
  }

  /** -1, 0 or 1. */
  compareTo(other: Quantity): number {
    const s = this.sign();
    const o = other.sign();
    if (s !== o) return s < o ? -1 : 1;
    if (s === 0) return 0;
    if (Math.abs(this.scale - other.scale) > MAX_ALIGN) {
      // Magnitudes differ by more than 10^MAX_ALIGN unless the digit counts say otherwise.
      const mag = (q: Quantity): number => q.unscaled.toString().replace("-", "").length - q.scale;
      const a = mag(this);
      const b = mag(other);
      if (a !== b) return (a < b ? -1 : 1) * s;
    }
    const [x, y] = align(this, other);
    return x < y ? -1 : x > y ? 1 : 0;
  }

  add(other: Quantity): Quantity {
    const [x, y, scale] = align(this, other);
    return new Quantity(x + y, scale);
  }

  sub(other: Quantity): Quantity {
    const [x, y, scale] = align(this, other);
    return new Quantity(x - y, scale);
  }

  /** The text it was parsed from, or a plain decimal. */
  toString(): string {
    if (this.text !== undefined) return this.text;
    if (this.scale <= 0) return (this.unscaled * pow10(-this.scale)).toString();
    const neg = this.unscaled < 0n;
    const digits = (neg ? -this.unscaled : this.unscaled).toString().padStart(this.scale + 1, "0");
    const int = digits.slice(0, digits.length - this.scale);
    const frac = digits.slice(digits.length - this.scale).replace(/0+$/, "");
    return `${neg ? "-" : ""}${int}${frac ? `.${frac}` : ""}`;
  }
}

/** Both unscaled values at the common (larger) scale. */
function align(a: Quantity, b: Quantity): [bigint, bigint, number] {
  if (Math.abs(a.scale - b.scale) > MAX_ALIGN) throw new CelEvaluationError("quantity out of range");
  const scale = Math.max(a.scale, b.scale);
  return [a.unscaled * pow10(scale - a.scale), b.unscaled * pow10(scale - b.scale), scale];
}

function isQuantity(s: string): boolean {
  return !("error" in parseQuantity(s));
}

function asInteger(q: Quantity): bigint {
  const v = q.asInt64();
  if (v === undefined) throw new CelEvaluationError("cannot convert value to integer");
  return v;
}

/** Registers the quantity type and functions. */
export function registerQuantity(env: Environment): Environment {
  const Q = QUANTITY_TYPE;
  return env
    .registerType(Q, Quantity)
    .registerFunction(`quantity(string): ${Q}`, (s: string) => Quantity.parse(s))
    .registerFunction("isQuantity(string): bool", isQuantity)
    .registerFunction(`${Q}.sign(): int`, (q: Quantity) => BigInt(q.sign()))
    .registerFunction(`${Q}.isInteger(): bool`, (q: Quantity) => q.asInt64() !== undefined)
    .registerFunction(`${Q}.asInteger(): int`, asInteger)
    .registerFunction(`${Q}.asApproximateFloat(): double`, (q: Quantity) => q.asApproximateFloat())
    .registerFunction(`${Q}.compareTo(${Q}): int`, (a: Quantity, b: Quantity) => BigInt(a.compareTo(b)))
    .registerFunction(`${Q}.isGreaterThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.compareTo(b) === 1)
    .registerFunction(`${Q}.isLessThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.compareTo(b) === -1)
    .registerFunction(`${Q}.add(${Q}): ${Q}`, (a: Quantity, b: Quantity) => a.add(b))
    .registerFunction(`${Q}.add(int): ${Q}`, (a: Quantity, n: bigint) => a.add(Quantity.fromInt(n)))
    .registerFunction(`${Q}.sub(${Q}): ${Q}`, (a: Quantity, b: Quantity) => a.sub(b))
    .registerFunction(`${Q}.sub(int): ${Q}`, (a: Quantity, n: bigint) => a.sub(Quantity.fromInt(n)))
    .registerOperator(`${Q} == ${Q}`, (a: Quantity, b: Quantity) => a.compareTo(b) === 0);
}
