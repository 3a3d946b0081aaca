/**
 * Field errors as the platform prints them. `message` is the error body
 * (`Invalid value: "x": detail`), `formatFieldError` prepends the path
 * (`spec.replicas: Invalid value: ...`). Values render like the platform's:
 * strings quoted, numbers and booleans bare, anything else as JSON.
 */
import type { FieldError, FieldErrorType } from "./types.ts";
import { toJSONText } from "./values.ts";

const TITLES: Record<FieldErrorType, string> = {
  FieldValueRequired: "Required value",
  FieldValueInvalid: "Invalid value",
  FieldValueTypeInvalid: "Invalid value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueDuplicate: "Duplicate value",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  FieldValueForbidden: "Forbidden",
  FieldValueNotFound: "Not found",
  FieldValueUnknown: "Unknown field",
};

/** Types whose body never shows the value. */
const NO_VALUE: ReadonlySet<FieldErrorType> = new Set<FieldErrorType>(["FieldValueRequired", "FieldValueForbidden", "FieldValueTooLong"]);

/** Renders a bad value: `"text"`, `42`, `true`, or JSON. */
export function renderValue(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" || typeof v === "bigint" || typeof v === "boolean") return String(v);
  return toJSONText(v);
}

function make(type: FieldErrorType, field: string, detail: string, value?: unknown, hasValue = true): FieldError {
  let message = TITLES[type];
  if (hasValue && !NO_VALUE.has(type)) message += `: ${renderValue(value)}`;
  if (detail) message += `: ${detail}`;
  const e: FieldError = { type, field, message };
  if (hasValue && value !== undefined) e.value = value;
  return e;
}

export const fieldErrors = {
  required: (field: string, detail = "") => make("FieldValueRequired", field, detail, undefined, false),
  invalid: (field: string, value: unknown, detail = "") => make("FieldValueInvalid", field, detail, value),
  typeInvalid: (field: string, value: unknown, detail = "") => make("FieldValueTypeInvalid", field, detail, value),
  notSupported: (field: string, value: unknown, supported: ReadonlyArray<string | number>) =>
    make("FieldValueNotSupported", field, supported.length ? `supported values: ${supported.map((s) => JSON.stringify(String(s))).join(", ")}` : "", value),
  duplicate: (field: string, value: unknown) => make("FieldValueDuplicate", field, "", value),
  forbidden: (field: string, detail = "") => make("FieldValueForbidden", field, detail, undefined, false),
  /** A string over a length limit (`may not be longer than N`). */
  tooLongMaxLength: (field: string, max: number) => make("FieldValueTooLong", field, `may not be longer than ${max}`, undefined, false),
  /** A byte-size limit (`must have at most N bytes`). */
  tooLong: (field: string, maxBytes: number) => make("FieldValueTooLong", field, `must have at most ${maxBytes} bytes`, undefined, false),
  tooMany: (field: string, actual: number, max: number) => make("FieldValueTooMany", field, `must have at most ${max} ${max === 1 ? "item" : "items"}`, actual),
  notFound: (field: string, value: unknown) => make("FieldValueNotFound", field, "", value),
};

/** `field: message`, the platform's one-line form of a field error. */
export function formatFieldError(e: FieldError): string {
  return e.field ? `${e.field}: ${e.message}` : e.message;
}
