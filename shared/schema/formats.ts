/**
 * Value formats of the typed schema, with the platform's exact messages.
 *
 * Contract: every checker returns a list of detail messages, empty when the
 * value is valid. The messages are the platform's (`a lowercase RFC 1123 label
 * must consist of ...`); the caller wraps them into field errors. Length limits
 * count bytes of the UTF-8 encoding, as the platform does.
 */
import type { SchemaFormat } from "./types.ts";

export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
export const QUALIFIED_NAME_MAX_LENGTH = 63;
export const LABEL_VALUE_MAX_LENGTH = 63;
/** Total size of all annotation keys and values of one object (256 KiB). */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
/** The platform's quantity regular expression, as printed in its message. */
export const QUANTITY_REGEX_TEXT = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";
export const QUANTITY_FORMAT_MSG = `quantities must match the regular expression '${QUANTITY_REGEX_TEXT}'`;
export const QUANTITY_SUFFIX_MSG = "unable to parse quantity's suffix";

const dns1123LabelRe = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const dns1123SubdomainRe = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const qualifiedNameRe = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const labelValueRe = new RegExp(`^${LABEL_VALUE_FMT}$`);
const quantityRe = new RegExp(QUANTITY_REGEX_TEXT);

/**
 * Length in bytes of the UTF-8 encoding (the platform's `len(string)`), counted without
 * encoding: a surrogate pair is 4 bytes, a lone surrogate 3 (it encodes as U+FFFD).
 */
export function byteLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // the pair's two units count 4 bytes
      i++;
    } else n += 2;
  }
  return n;
}

/** `must be no more than N characters`. */
export function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

/** The platform's regex explanation: `msg (e.g. 'a',  or 'b', regex used for validation is 'fmt')`. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let out = `${msg} (e.g. `;
  examples.forEach((ex, i) => {
    if (i > 0) out += " or ";
    out += `'${ex}', `;
  });
  return `${out}regex used for validation is '${fmt}')`;
}

export function inclusiveRangeError(lo: number | bigint, hi: number | bigint): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

/** DNS-1123 label: at most 63 bytes, `[a-z0-9]([-a-z0-9]*[a-z0-9])?`. */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelRe.test(value)) {
    if (dns1123SubdomainRe.test(value)) errs.push("must not contain dots");
    else errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"));
  }
  return errs;
}

/** DNS-1123 subdomain: at most 253 bytes, dot-separated labels. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainRe.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"));
  return errs;
}

/** A name usable as one URL path segment: not `.` or `..`, no `/` or `%`. */
export function isPathSegmentName(value: string): string[] {
  if (value === "." || value === "..") return [`may not be '${value}'`];
  return isPathSegmentPrefix(value);
}

/** A prefix of a path-segment name (`generateName`): no `/` or `%`. */
export function isPathSegmentPrefix(value: string): string[] {
  const errs: string[] = [];
  for (const bad of ["/", "%"]) if (value.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

/** Qualified name (label key, annotation key, finalizer): `[prefix/]name`. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push("prefix part must be non-empty");
    else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!qualifiedNameRe.test(name)) errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}`);
  return errs;
}

/** Label value: empty, or at most 63 bytes of `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`. */
export function isLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRe.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  return errs;
}

/** Sum of the byte lengths of all annotation keys and values. */
export function annotationsSize(annotations: Record<string, string>): number {
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) total += byteLength(k) + byteLength(String(v));
  return total;
}

/** A parsed quantity: `<sign><digits>[.<digits>]<suffix>`; base 2 for Ki..Ei, otherwise base 10. */
export interface ParsedQuantity {
  negative: boolean;
  /** The decimal number as written without sign (`1.5`, `.5`, `5.`). */
  number: string;
  suffix: string;
  base: 2 | 10;
  /** Power of the base the suffix stands for (`Ki` → 10, `m` → -3, `e6` → 6). */
  exponent: number;
  /** The value as a float (approximate for very large or precise values). */
  approx: number;
}

const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** Parses a quantity (`500m`, `1Gi`, `1e3`, `-0.5`); returns the platform's message on failure. */
export function parseQuantity(text: string): ParsedQuantity | { error: string } {
  const m = quantityRe.exec(text);
  if (!m || text.length === 0) return { error: QUANTITY_FORMAT_MSG };
  let num = m[1];
  const suffix = m[2];
  let negative = false;
  if (num[0] === "+" || num[0] === "-") {
    negative = num[0] === "-";
    num = num.slice(1);
  }
  // The number part: digits with at most one dot and at least one digit.
  if (!/^(?:[0-9]+\.?[0-9]*|\.[0-9]+)$/.test(num)) return { error: QUANTITY_FORMAT_MSG };
  let base: 2 | 10;
  let exponent: number;
  if (suffix in BINARY_SUFFIXES) {
    base = 2;
    exponent = BINARY_SUFFIXES[suffix];
  } else if (suffix in DECIMAL_SUFFIXES) {
    base = 10;
    exponent = DECIMAL_SUFFIXES[suffix];
  } else if (/^[eE][-+]?[0-9]+$/.test(suffix)) {
    base = 10;
    exponent = Number(suffix.slice(1));
  } else {
    return { error: QUANTITY_SUFFIX_MSG };
  }
  const approx = (negative ? -1 : 1) * Number(num) * Math.pow(base, exponent);
  return { negative, number: num, suffix, base, exponent, approx };
}

export function isQuantity(value: string): string[] {
  const q = parseQuantity(value);
  return "error" in q ? [q.error] : [];
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** An integral number in the int32 range. */
export function isInt32(value: number | bigint): string[] {
  const n = typeof value === "bigint" ? value : Number.isInteger(value) ? BigInt(value) : undefined;
  if (n === undefined || n < BigInt(INT32_MIN) || n > BigInt(INT32_MAX)) return [inclusiveRangeError(INT32_MIN, INT32_MAX)];
  return [];
}

/** An integral number in the int64 range (bigint carries values beyond 2^53 exactly). */
export function isInt64(value: number | bigint): string[] {
  let n: bigint | undefined;
  if (typeof value === "bigint") n = value;
  else if (Number.isInteger(value)) n = BigInt(value);
  if (n === undefined || n < INT64_MIN || n > INT64_MAX) return [inclusiveRangeError(INT64_MIN, INT64_MAX)];
  return [];
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function validDate(y: string, mo: string, d: string): boolean {
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

const dateTimeRe = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** RFC 3339 date-time (`2024-01-02T03:04:05Z`, `...05.123+01:00`). */
export function isDateTime(value: string): boolean {
  const m = dateTimeRe.exec(value);
  if (!m) return false;
  if (!validDate(m[1], m[2], m[3])) return false;
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 60) return false;
  if (m[7] && (Number(m[8]) > 23 || Number(m[9]) > 59)) return false;
  return true;
}

/** RFC 3339 full-date (`2024-01-02`). */
export function isDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  return m !== null && validDate(m[1], m[2], m[3]);
}

/** The units of Go's `time.ParseDuration`, both spellings of micro included. */
const goDurationRe = /^[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|\u00b5s|\u03bcs|ms|s|m|h))+$/;
/** The OpenAPI validator's second chance: `<digits> <unit>` anywhere in the text. */
const durationPartRe = /(\d+)\s*([A-Za-z\u00b5]+)/g;
/** Unit spellings by unit; the last of each group also matches as a prefix (`hours`, `minutes`). */
const DURATION_UNITS: readonly (readonly string[])[] = [["ns", "nano"], ["us", "\u00b5s", "micro"], ["ms", "milli"], ["s", "sec"], ["m", "min"], ["h", "hr", "hour"], ["d", "day"], ["w", "wk", "week"]];
const MAX_INT64 = 2n ** 63n - 1n;

function isDurationUnit(unit: string): boolean {
  return DURATION_UNITS.some((variants) => variants.some((v, i) => v === unit || (i === variants.length - 1 && unit.startsWith(v))));
}

/**
 * The OpenAPI `duration` format: what Go's `time.ParseDuration` accepts (`1h30m`,
 * `1.5s`, `-0`), else at least one `<integer> <unit>` part with a unit of ns, us,
 * ms, s, m, h, d or w spelled short or long (`3 days`, `2 hours`); an integer
 * beyond int64 fails the whole value, as the validator's Atoi does. Overflow of the
 * Go form falls through to the second form, as it does there.
 */
export function isDuration(value: string): boolean {
  if (goDurationRe.test(value) || /^[-+]?0$/.test(value)) return true;
  let ok = false;
  for (const [, digits, unit] of value.matchAll(durationPartRe)) {
    if (BigInt(digits) > MAX_INT64) return false;
    if (isDurationUnit(unit.toLowerCase())) ok = true;
  }
  return ok;
}

/** Standard base64 with padding (the encoding of `[]byte` fields). */
export function isBase64(value: string): boolean {
  return value.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(value) && !/=[^=]/.test(value);
}

/** A UUID (`8-4-4-4-12` hex digits). */
export function isUID(value: string): boolean {
  return /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(value);
}

/** Dotted-quad IPv4 without leading zeros. */
export function isIPv4(value: string): boolean {
  const parts = value.split(".");
  return parts.length === 4 && parts.every((p) => /^(0|[1-9][0-9]{0,2})$/.test(p) && Number(p) <= 255);
}

/** IPv6 in any RFC 4291 text form (with `::` and an embedded IPv4 tail), no zone. */
export function isIPv6(value: string): boolean {
  const halves = value.split("::");
  if (halves.length > 2) return false;
  const groups = (s: string) => (s === "" ? [] : s.split(":"));
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  const all = [...head, ...tail];
  let count = all.length;
  const last = all[all.length - 1];
  if (last !== undefined && last.includes(".")) {
    if (!isIPv4(last)) return false;
    all.pop();
    count += 1; // an IPv4 tail fills two groups
  }
  if (!all.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return false;
  return halves.length === 2 ? count <= 7 : count === 8;
}

export function isIP(value: string): boolean {
  return isIPv4(value) || isIPv6(value);
}

/**
 * Formats checked the way the OpenAPI validator does: a failure reads
 * `<path> in body must be of type <format>: "<value>"` rather than a detail list.
 */
export const OPENAPI_TYPE_FORMATS: ReadonlySet<SchemaFormat> = new Set<SchemaFormat>(["byte", "date-time", "date", "duration", "uid", "ip"]);

/**
 * Checks one value against a format. Strings are checked for string formats,
 * numbers (or bigints) for integer formats; values of another JS type pass
 * here (the type check reports them). Returns detail messages.
 */
export function checkFormat(format: SchemaFormat, value: unknown): string[] {
  if (typeof value === "number" || typeof value === "bigint") {
    if (format === "int32") return isInt32(value);
    if (format === "int64") return isInt64(value);
    return [];
  }
  if (typeof value !== "string") return [];
  switch (format) {
    case "dns1123-label":
      return isDNS1123Label(value);
    case "dns1123-subdomain":
      return isDNS1123Subdomain(value);
    case "path-segment-name":
      return isPathSegmentName(value);
    case "label-key":
      return isQualifiedName(value);
    case "label-value":
      return isLabelValue(value);
    case "quantity":
      return isQuantity(value);
    case "date-time":
      return isDateTime(value) ? [] : [`must be of type ${format}`];
    case "date":
      return isDate(value) ? [] : [`must be of type ${format}`];
    case "duration":
      return isDuration(value) ? [] : [`must be of type ${format}`];
    case "byte":
      return isBase64(value) ? [] : [`must be of type ${format}`];
    case "uid":
      return isUID(value) ? [] : [`must be of type ${format}`];
    case "ip":
      return isIP(value) ? [] : [`must be of type ${format}`];
    case "int32":
    case "int64":
    case "double":
      return [];
  }
}

/** The name validator for a kind's `nameFormat` (prefix=true validates a `generateName`). */
export function nameValidator(format: SchemaFormat): (name: string, prefix: boolean) => string[] {
  switch (format) {
    case "dns1123-label":
      return (n, prefix) => isDNS1123Label(prefix ? maskTrailingDash(n) : n);
    case "path-segment-name":
      return (n, prefix) => (prefix ? isPathSegmentPrefix(n) : isPathSegmentName(n));
    case "dns1123-subdomain":
      return (n, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(n) : n);
    default:
      return (n) => checkFormat(format, n);
  }
}

/** A generateName may end with `-`: validate it as if a random suffix followed. */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith("-") ? `${name.slice(0, -1)}a` : name;
}
