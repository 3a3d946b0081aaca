/**
 * Helpers for kind-level validators (`validateKind`): the engine's field-error
 * constructors under short names (so messages are the platform's error bodies,
 * `Required value: ...`, `Invalid value: "x": ...`), small readers for plain
 * JSON objects, and the DNS-1035 label check that group files share.
 */
import { byteLength, DNS1123_LABEL_MAX_LENGTH, fieldErrors, maxLenError, regexError } from "../schema/index.ts";

type Obj = Record<string, unknown>;

export const required = fieldErrors.required;
export const invalid = fieldErrors.invalid;
export const notSupported = fieldErrors.notSupported;
export const forbidden = fieldErrors.forbidden;
export const duplicate = fieldErrors.duplicate;
/** A string over a length limit: `Too long: may not be longer than N`. */
export const tooLong = fieldErrors.tooLongMaxLength;

/** A plain JSON object (not an array, not null). */
export function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The object at `o[k]`, or undefined. */
export function objField(o: unknown, k: string): Obj | undefined {
  if (!isObj(o)) return undefined;
  const v = o[k];
  return isObj(v) ? v : undefined;
}

/** The array at `o[k]`, or an empty array. */
export function listField(o: unknown, k: string): unknown[] {
  if (!isObj(o)) return [];
  const v = o[k];
  return Array.isArray(v) ? v : [];
}

/** The string at `o[k]`, or "". */
export function strField(o: unknown, k: string): string {
  if (!isObj(o)) return "";
  const v = o[k];
  return typeof v === "string" ? v : "";
}

/** String items of the array at `o[k]` (non-strings are left to the schema's type check). */
export function strList(o: unknown, k: string): string[] {
  return listField(o, k).filter((x): x is string => typeof x === "string");
}

/** True when `o[k]` is present and not null. */
export function has(o: unknown, k: string): boolean {
  return isObj(o) && Object.prototype.hasOwnProperty.call(o, k) && o[k] !== null && o[k] !== undefined;
}

const DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const dns1035LabelRe = new RegExp(`^${DNS1035_LABEL_FMT}$`);

/** DNS-1035 label (API versions, resource names of custom resources), with the platform's messages. */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1035LabelRe.test(value)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL_FMT,
        "my-name",
        "abc-123",
      ),
    );
  }
  return errs;
}
