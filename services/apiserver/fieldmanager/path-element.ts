/**
 * Path elements of field paths, in the style of structured-merge-diff's
 * `fieldpath` package. An element names one step below a value:
 *
 * - `field`: a field of an object (struct field or map key)      → `f:<name>`
 * - `key`:   an item of a list-map, by its key fields (sorted)    → `k:{"name":"x"}`
 * - `value`: a member of a set (a list of scalars)               → `v:"x"`
 * - `index`: an item of a list by position (only read, never made
 *            from the typed schema: atomic lists are leaves)      → `i:0`
 *
 * Elements are totally ordered like the platform orders them (fields, then
 * keys, then values, then indexes; strings compared by UTF-8 bytes), which
 * fixes the key order of the FieldsV1 serialization. Values inside `k:` and
 * `v:` are written as the platform's JSON encoder writes them (sorted object
 * keys, `<`, `>`, `&`, U+2028 and U+2029 escaped).
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type PathElement =
  | { readonly kind: "field"; readonly name: string }
  | { readonly kind: "key"; readonly fields: ReadonlyArray<readonly [string, JsonValue]> }
  | { readonly kind: "value"; readonly value: JsonValue }
  | { readonly kind: "index"; readonly index: number };

export type Path = readonly PathElement[];

export function fieldElement(name: string): PathElement {
  return { kind: "field", name };
}

/** A key element; the fields are sorted by name. */
export function keyElement(fields: ReadonlyArray<readonly [string, JsonValue]>): PathElement {
  return { kind: "key", fields: [...fields].sort((a, b) => compareStrings(a[0], b[0])) };
}

export function valueElement(value: JsonValue): PathElement {
  return { kind: "value", value };
}

export function indexElement(index: number): PathElement {
  return { kind: "index", index };
}

/** Compares strings by Unicode code point, which is the order of their UTF-8 bytes. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca === cb) continue;
    // Surrogates (U+D800..U+DFFF) encode code points above U+FFFF, which sort after U+E000..U+FFFF.
    const sa = ca >= 0xd800 && ca <= 0xdfff;
    const sb = cb >= 0xd800 && cb <= 0xdfff;
    if (sa !== sb) return sa ? 1 : -1;
    return ca < cb ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

function rank(v: JsonValue): number {
  if (typeof v === "number") return 0;
  if (typeof v === "string") return 1;
  if (typeof v === "boolean") return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null) return 4;
  return 5;
}

/** The platform's total order of values: numbers, strings, booleans, lists, maps, null. */
export function compareValues(a: JsonValue, b: JsonValue): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (typeof a === "number" && typeof b === "number") return a === b ? 0 : a < b ? -1 : 1;
  if (typeof a === "string" && typeof b === "string") return compareStrings(a, b);
  if (typeof a === "boolean" && typeof b === "boolean") return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compareValues(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const ka = Object.keys(a).sort(compareStrings);
    const kb = Object.keys(b).sort(compareStrings);
    for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
      const c = compareStrings(ka[i], kb[i]) || compareValues(a[ka[i]], b[kb[i]]);
      if (c !== 0) return c;
    }
    return ka.length === kb.length ? 0 : ka.length < kb.length ? -1 : 1;
  }
  return 0;
}

function isJsonObject(v: JsonValue): v is { [key: string]: JsonValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function compareKeyFields(a: ReadonlyArray<readonly [string, JsonValue]>, b: ReadonlyArray<readonly [string, JsonValue]>): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareStrings(a[i][0], b[i][0]) || compareValues(a[i][1], b[i][1]);
    if (c !== 0) return c;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

const KIND_ORDER = { field: 0, key: 1, value: 2, index: 3 } as const;

/** Orders elements: fields by name, then keys, then values, then indexes. */
export function compareElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return KIND_ORDER[a.kind] < KIND_ORDER[b.kind] ? -1 : 1;
  switch (a.kind) {
    case "field":
      return compareStrings(a.name, (b as typeof a).name);
    case "key":
      return compareKeyFields(a.fields, (b as typeof a).fields);
    case "value":
      return compareValues(a.value, (b as typeof a).value);
    case "index": {
      const bi = (b as typeof a).index;
      return a.index === bi ? 0 : a.index < bi ? -1 : 1;
    }
  }
}

const ESCAPES: Record<string, string> = { "<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029" };

/** JSON as the platform's encoder writes it: sorted object keys, HTML-safe strings. */
export function goJson(v: JsonValue): string {
  if (typeof v === "string") return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => ESCAPES[c]);
  if (typeof v === "number" || typeof v === "boolean" || v === null) return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(goJson).join(",")}]`;
  const keys = Object.keys(v).sort(compareStrings);
  return `{${keys.map((k) => `${goJson(k)}:${goJson(v[k])}`).join(",")}}`;
}

/**
 * Serialized forms of key and value elements already serialized (their JSON is costly; a
 * field's form is one concatenation). Elements are immutable values, and a set keys its
 * nodes by this form on every lookup, so each such element is serialized once.
 */
const serialized = new WeakMap<PathElement, string>();

/** The serialized form of an element (`f:name`, `k:{...}`, `v:...`, `i:3`); also its identity. */
export function serializeElement(pe: PathElement): string {
  if (pe.kind === "field") return `f:${pe.name}`;
  let s = serialized.get(pe);
  if (s === undefined) {
    s = serializeFresh(pe);
    serialized.set(pe, s);
  }
  return s;
}

function serializeFresh(pe: PathElement): string {
  switch (pe.kind) {
    case "field":
      return `f:${pe.name}`;
    case "key":
      return `k:{${pe.fields.map(([k, v]) => `${goJson(k)}:${goJson(v)}`).join(",")}}`;
    case "value":
      return `v:${goJson(pe.value)}`;
    case "index":
      return `i:${pe.index}`;
  }
}

export class PathElementError extends Error {
  override readonly name = "PathElementError";
}

/**
 * Parses a serialized element. Returns undefined for an unknown prefix (a
 * newer form this server does not know: ignored, as the platform does);
 * throws PathElementError for a known prefix with a malformed body.
 */
export function deserializeElement(s: string): PathElement | undefined {
  if (s.length < 2 || s[1] !== ":") return undefined;
  const body = s.slice(2);
  switch (s[0]) {
    case "f":
      return fieldElement(body);
    case "v":
      return valueElement(parseJson(s, body));
    case "k": {
      const obj = parseJson(s, body);
      if (!isJsonObject(obj)) throw new PathElementError(`parsing key as path element: ${s}: key must be a JSON object`);
      return keyElement(Object.entries(obj));
    }
    case "i": {
      if (!/^[+-]?\d+$/.test(body)) throw new PathElementError(`parsing key as path element: ${s}: invalid index`);
      const n = Number(body);
      if (!Number.isSafeInteger(n)) throw new PathElementError(`parsing key as path element: ${s}: index out of range`);
      return indexElement(n === 0 ? 0 : n);
    }
    default:
      return undefined;
  }
}

function parseJson(whole: string, body: string): JsonValue {
  try {
    return JSON.parse(body) as JsonValue;
  } catch (e) {
    throw new PathElementError(`parsing key as path element: ${whole}: ${(e as Error).message}`);
  }
}

/** A value as the platform prints it inside a path: strings quoted, maps as `k=v` runs. */
function valueString(v: JsonValue): string {
  if (v === null) return "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(valueString).join(",")}]`;
  return Object.keys(v)
    .sort(compareStrings)
    .map((k) => `${k}=${valueString(v[k])}`)
    .join("");
}

/** `.name`, `[name="x",protocol="TCP"]`, `[="x"]`, `[0]`. */
export function elementString(pe: PathElement): string {
  switch (pe.kind) {
    case "field":
      return `.${pe.name}`;
    case "key":
      return `[${pe.fields.map(([k, v]) => `${k}=${valueString(v)}`).join(",")}]`;
    case "value":
      return `[=${valueString(pe.value)}]`;
    case "index":
      return `[${pe.index}]`;
  }
}

/** `.spec.template.spec.containers[name="nginx"].image`. */
export function pathString(path: Path): string {
  return path.map(elementString).join("");
}
