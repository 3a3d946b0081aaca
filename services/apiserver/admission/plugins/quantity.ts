/**
 * Exact resource quantities for the plugins that add and compare them (LimitRanger,
 * ResourceQuota, RuntimeClass): the value in nano units as a bigint (the platform
 * keeps nine decimal places and rounds finer values up), plus the format the text
 * was written in, so that sums print the way the platform prints them
 * (`1500m`, `2Gi`, `1e3`). Syntax checking is shared/schema's `parseQuantity`.
 */
import { parseQuantity } from "../../../../shared/schema/formats.ts";

export type QuantityFormat = "DecimalSI" | "BinarySI" | "DecimalExponent";

export interface Quantity {
  /** The value times 10^9. */
  readonly nano: bigint;
  readonly format: QuantityFormat;
}

const NANO = 1_000_000_000n;
export const ZERO: Quantity = { nano: 0n, format: "DecimalSI" };

function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b === 0n ? q : a > 0n ? q + 1n : q;
}

/** Parses a quantity; undefined when the text is not one. */
export function quantity(text: unknown): Quantity | undefined {
  if (typeof text === "number" && Number.isFinite(text)) text = String(text);
  if (typeof text !== "string") return undefined;
  const p = parseQuantity(text);
  if ("error" in p) return undefined;
  const [whole, frac = ""] = p.number.split(".");
  let num = BigInt((whole || "0") + frac) * NANO;
  let den = 10n ** BigInt(frac.length);
  if (p.base === 2) num *= 2n ** BigInt(p.exponent);
  else if (p.exponent >= 0) num *= 10n ** BigInt(p.exponent);
  else den *= 10n ** BigInt(-p.exponent);
  const nano = ceilDiv(num, den);
  const format: QuantityFormat = p.base === 2 ? "BinarySI" : /^[eE]/.test(p.suffix) ? "DecimalExponent" : "DecimalSI";
  return { nano: p.negative ? -nano : nano, format };
}

/** A quantity that must parse (for values already validated by the schema); zero otherwise. */
export function q(text: unknown): Quantity {
  return quantity(text) ?? ZERO;
}

export function add(a: Quantity, b: Quantity): Quantity {
  return { nano: a.nano + b.nano, format: a.nano === 0n ? b.format : a.format };
}

export function sub(a: Quantity, b: Quantity): Quantity {
  return { nano: a.nano - b.nano, format: a.nano === 0n ? b.format : a.format };
}

export function cmp(a: Quantity, b: Quantity): -1 | 0 | 1 {
  return a.nano < b.nano ? -1 : a.nano > b.nano ? 1 : 0;
}

/** A whole count as a quantity (`pods`, `count/...`). */
export function count(n: number): Quantity {
  return { nano: BigInt(n) * NANO, format: "DecimalSI" };
}

const DECIMAL_SUFFIX: Record<number, string> = { [-9]: "n", [-6]: "u", [-3]: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E" };
const BINARY_SUFFIX = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

/** The canonical text, as the platform prints a quantity. */
export function format(x: Quantity): string {
  if (x.nano === 0n) return "0";
  const sign = x.nano < 0n ? "-" : "";
  const abs = x.nano < 0n ? -x.nano : x.nano;
  if (x.format === "BinarySI" && abs >= 1024n * NANO && abs % NANO === 0n) {
    let m = abs / NANO;
    let i = 0;
    while (i < BINARY_SUFFIX.length - 1 && m % 1024n === 0n) {
      m /= 1024n;
      i++;
    }
    return `${sign}${m}${BINARY_SUFFIX[i]}`;
  }
  let m = abs;
  let e = -9;
  while (e < 18 && m % 1000n === 0n) {
    m /= 1000n;
    e += 3;
  }
  const suffix = x.format === "DecimalExponent" ? (e === 0 ? "" : `e${e}`) : DECIMAL_SUFFIX[e];
  return `${sign}${m}${suffix}`;
}

/** The value rounded up to a whole number (as the platform's `Value()`). */
export function ceilValue(x: Quantity): bigint {
  return ceilDiv(x.nano, NANO);
}

/** The value as a float (ratios). */
export function toNumber(x: Quantity): number {
  return Number(x.nano) / 1e9;
}
