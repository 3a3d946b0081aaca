/**
 * Errors of the strategic merge patch, worded as the platform words them, and
 * the HTTP status the platform answers them with: 400 for malformed directive
 * lists and documents, 422 for lists of lists, 500 (with no reason) for the rest
 * (a missing merge key, an unknown `$patch` value...).
 *
 * Values inside messages are printed the way the platform's own formatting
 * prints decoded JSON (`map[image:nginx name:web]`, `[a b]`, `<nil>`).
 */
import { isObject } from "./values.ts";

export type StrategicMergeErrorCode = 400 | 422 | 500;

export class StrategicMergeError extends Error {
  /** HTTP status of the failed request. */
  readonly code: StrategicMergeErrorCode;
  /** The message without any value of the patch or the object: what a server may answer and log. */
  readonly safeMessage: string;

  constructor(message: string, code: StrategicMergeErrorCode = 500, safeMessage: string = message) {
    super(message);
    this.name = "StrategicMergeError";
    this.code = code;
    this.safeMessage = safeMessage;
  }
}

export const errBadJSONDoc = (): StrategicMergeError => new StrategicMergeError("invalid JSON document", 400);
export const errNoListOfLists = (): StrategicMergeError => new StrategicMergeError("lists of lists are not supported", 422);
export const errBadPatchFormatForPrimitiveList = (): StrategicMergeError => new StrategicMergeError("invalid patch format of primitive list", 400);
export const errBadPatchFormatForRetainKeys = (): StrategicMergeError => new StrategicMergeError("invalid patch format of retainKeys", 400);
export const errBadPatchFormatForSetElementOrderList = (): StrategicMergeError =>
  new StrategicMergeError("invalid patch format of setElementOrder list", 400);

export function errNoMergeKey(m: Record<string, unknown>, key: string): StrategicMergeError {
  return new StrategicMergeError(`map: ${goFormat(m)} does not contain declared merge key: ${key}`, 500, `a list item does not contain declared merge key: ${key}`);
}

export function errBadPatchType(directive: unknown, m: Record<string, unknown>): StrategicMergeError {
  return new StrategicMergeError(`unknown patch type: ${goString(directive)} in map: ${goFormat(m)}`, 500, "unknown patch type in a $patch directive");
}

/** A value was not of the expected shape: `expected a map[string]interface {}, but received a string`. */
export function errBadArgType(expected: "map" | "slice", actual: unknown): StrategicMergeError {
  const want = expected === "map" ? "map[string]interface {}" : "[]interface {}";
  return new StrategicMergeError(`expected a ${want}, but received a ${goTypeName(actual)}`);
}

/** The type name the platform prints for a decoded JSON value. */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return "%!s(<nil>)";
  if (Array.isArray(v)) return "[]interface {}";
  if (isObject(v)) return "map[string]interface {}";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "bigint" || (typeof v === "number" && Number.isInteger(v))) return "int64";
  return "float64";
}

/** `%s` of a value: strings as they are, other values marked as a wrong verb. */
function goString(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "%!s(<nil>)";
  return `%!s(${goTypeName(v)}=${goFormat(v)})`;
}

/** `%v` of a decoded JSON value. */
export function goFormat(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (Array.isArray(v)) return `[${v.map(goFormat).join(" ")}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goFormat(v[k])}`).join(" ")}]`;
  }
  if (typeof v === "number") return goNumber(v);
  return String(v);
}

function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  if (!Number.isFinite(n)) return n > 0 ? "+Inf" : n < 0 ? "-Inf" : "NaN";
  const [mantissa, exp] = n.toExponential().split("e");
  const e = Number(exp);
  if (e < -4 || e >= 6) return `${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  return String(n);
}
