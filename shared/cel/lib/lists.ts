/**
 * The platform's lists library: `<list<T>>.isSorted()`, `.min()`, `.max()`
 * for comparable T (int, uint, double, bool, duration, timestamp, string,
 * bytes), `.sum()` for summable T (int, uint, double, duration; an empty list
 * sums to zero) and `<list<A>>.indexOf(A)`, `.lastIndexOf(A)` with CEL
 * equality (-1 when absent). min/max of an empty list are errors with the
 * platform's text.
 */
import type { Environment } from "@marcbachmann/cel-js";
import { Duration, UnsignedInt } from "@marcbachmann/cel-js/evaluator";
import { CelEvaluationError } from "../errors.ts";
import { celEquals } from "./equality.ts";

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const DURATION = "google.protobuf.Duration";
const TIMESTAMP = "google.protobuf.Timestamp";
const COMPARABLE = ["int", "uint", "double", "bool", DURATION, TIMESTAMP, "string", "bytes"] as const;

const nanosOf = (d: Duration): bigint => d.seconds * 1_000_000_000n + BigInt(d.nanos);

/** Orders two values of one comparable type: -1, 0 or 1. */
export function compareValues(a: unknown, b: unknown): number {
  const sign = (x: number | bigint): number => (x < 0 ? -1 : x > 0 ? 1 : 0);
  if (typeof a === "bigint" && typeof b === "bigint") return sign(a - b);
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return sign(Number(a) - Number(b));
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (a instanceof UnsignedInt && b instanceof UnsignedInt) return sign(a.value - b.value);
  if (a instanceof Duration && b instanceof Duration) return sign(nanosOf(a) - nanosOf(b));
  if (a instanceof Date && b instanceof Date) return sign(a.getTime() - b.getTime());
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b);
  throw new CelEvaluationError("no such overload");
}

function isSorted(list: readonly unknown[]): boolean {
  for (let i = 1; i < list.length; i++) if (compareValues(list[i - 1], list[i]) > 0) return false;
  return true;
}

function extreme(name: "min" | "max", list: readonly unknown[]): unknown {
  if (list.length === 0) throw new CelEvaluationError(`${name} called on empty list`);
  let best = list[0];
  for (const x of list.slice(1)) {
    const c = compareValues(best, x);
    if (name === "min" ? c > 0 : c < 0) best = x;
  }
  return best;
}

function sumInts(list: readonly bigint[]): bigint {
  let acc = 0n;
  for (const x of list) {
    acc += x;
    if (acc < INT64_MIN || acc > INT64_MAX) throw new CelEvaluationError("integer overflow");
  }
  return acc;
}

function indexOf(list: readonly unknown[], item: unknown, last: boolean): bigint {
  if (last) {
    for (let i = list.length - 1; i >= 0; i--) if (celEquals(list[i], item)) return BigInt(i);
  } else {
    for (let i = 0; i < list.length; i++) if (celEquals(list[i], item)) return BigInt(i);
  }
  return -1n;
}

/** Registers the list functions. */
export function registerLists(env: Environment): Environment {
  let out = env;
  for (const t of COMPARABLE) {
    out = out
      .registerFunction(`list<${t}>.isSorted(): bool`, (l: unknown[]) => isSorted(l))
      .registerFunction(`list<${t}>.min(): ${t}`, (l: unknown[]) => extreme("min", l))
      .registerFunction(`list<${t}>.max(): ${t}`, (l: unknown[]) => extreme("max", l));
  }
  return out
    .registerFunction("list<int>.sum(): int", (l: bigint[]) => sumInts(l))
    .registerFunction("list<uint>.sum(): uint", (l: UnsignedInt[]) => new UnsignedInt(l.reduce((acc, x) => acc + x.value, 0n)))
    .registerFunction("list<double>.sum(): double", (l: number[]) => l.reduce((acc, x) => acc + x, 0))
    .registerFunction(`list<${DURATION}>.sum(): ${DURATION}`, (l: Duration[]) => l.reduce((acc, x) => acc.addDuration(x), new Duration(0n, 0)))
    .registerFunction("list<A>.indexOf(A): int", (l: unknown[], x: unknown) => indexOf(l, x, false))
    .registerFunction("list<A>.lastIndexOf(A): int", (l: unknown[], x: unknown) => indexOf(l, x, true));
}
