/**
 * Helpers over decoded JSON values (objects, arrays, strings, numbers, bigints
 * for integers beyond 2^53, booleans, null). Pure; never mutate their inputs.
 */

/** A plain JSON object (not an array, not null). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Own-property lookup that ignores the prototype chain (keys like `__proto__` or `constructor`). */
export function hasOwn(o: Record<string, unknown>, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/**
 * Sets an own data property, even for `__proto__`, so that copies never change an object's prototype.
 * Every other key is a plain assignment (the only setter on a plain object's prototype chain is
 * `__proto__`); defining each property costs several times an assignment on every copy.
 */
export function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === "__proto__") Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

/**
 * `{ ...base, ...extra }` for plain objects: the same own enumerable string keys in the
 * same order (a key of `extra` that `base` has keeps its place), the ordinary prototype,
 * `__proto__` kept as an own key as spread keeps it; symbol keys are not copied.
 * Why not the spread itself on hot paths: node 20's V8 gives every object that a spread
 * followed by a key it did not bring makes (`{ ...a, k: v }` without `k` in `a`) a hidden
 * class of its own. Making one costs ~1.5 us against ~0.3 us here, and every later read
 * of its properties, wherever it goes, misses the inline caches: four reads cost ~1 us
 * against ~0.05 us on objects that share their class (values.test.ts checks the classes).
 * A spread that only overrides keys `base` has (`{ ...obj, metadata }`) is not affected.
 */
export function withOwn<T extends object, U extends object>(base: T, extra: U): Omit<T, keyof U> & U {
  const out: Record<string, unknown> = {};
  const from = base as Record<string, unknown>;
  const add = extra as Record<string, unknown>;
  for (const k in from) if (hasOwn(from, k)) setOwn(out, k, from[k]);
  for (const k in add) if (hasOwn(add, k)) setOwn(out, k, add[k]);
  return out as Omit<T, keyof U> & U;
}

/** Structural equality of JSON values; integers compare equal across number and bigint. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((typeof a === "bigint" || typeof a === "number") && (typeof b === "bigint" || typeof b === "number")) {
    return typeof a === "bigint" || typeof b === "bigint" ? Number.isInteger(Number(a)) && Number.isInteger(Number(b)) && BigInt(a) === BigInt(b) : false;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (isObject(a) && isObject(b)) {
    // Own enumerable keys counted and compared without building key arrays.
    let keys = 0;
    for (const k in a) {
      if (!hasOwn(a, k)) continue;
      keys++;
      if (!hasOwn(b, k) || !deepEqual(a[k], b[k])) return false;
    }
    for (const k in b) if (hasOwn(b, k)) keys--;
    return keys === 0;
  }
  return false;
}

/**
 * Deep copy of a decoded value, e.g. of an object the server is about to change.
 *
 * Contract: the result equals `structuredClone(v)` for every value a decoded object can
 * hold (plain objects, arrays, strings, numbers, bigints, booleans, null, undefined as a
 * property value) and shares nothing with `v`; a plain object's copy has the ordinary
 * prototype and the same own enumerable string keys in the same order (`__proto__`
 * included, as an own property). Anything else below `v` (typed arrays, dates, maps, ...)
 * is copied by `structuredClone` itself. Unlike it, an object reached twice is copied
 * twice (decoded objects are trees). Copying a JSON tree in JavaScript costs a fraction
 * of `structuredClone`'s serialize-and-read-back.
 */
export function cloneValue<T>(v: T): T;
export function cloneValue(v: unknown): unknown {
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype) return structuredClone(v);
    const out: unknown[] = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = cloneValue(v[i]);
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const src = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k in src) if (hasOwn(src, k)) setOwn(out, k, cloneValue(src[k]));
  return out;
}

/** JSON text of a value; bigints print as their digits. */
export function toJSONText(v: unknown): string {
  const marked = JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? `\u0000big:${x}` : x));
  return marked === undefined ? "null" : marked.replace(/"\\u0000big:(-?\d+)"/g, "$1");
}

/** The JSON type name of a value as the OpenAPI validator prints it (`string`, `integer`, `null`…). */
export function jsonTypeName(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "bigint") return "integer";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "boolean";
  if (Array.isArray(v)) return "array";
  return "object";
}
