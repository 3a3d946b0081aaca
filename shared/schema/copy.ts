/**
 * `copyJson`: the deep copy the server makes of an object it is about to change.
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
import { setOwn } from "./values.ts";

export function copyJson<T>(v: T): T;
export function copyJson(v: unknown): unknown {
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype) return structuredClone(v);
    const out: unknown[] = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = copyJson(v[i]);
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const src = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(src)) setOwn(out, k, copyJson(src[k]));
  return out;
}
