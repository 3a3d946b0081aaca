/**
 * The strict JSON decoder against the platform's native parser, as properties:
 * on any document without duplicate keys it gives JSON.parse's value (integers
 * beyond 2^53 compared as numbers), and it accepts exactly the texts JSON.parse
 * accepts (strings with escapes, control characters and broken escapes included),
 * except numbers too large for a float64, which it refuses as the platform does.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DecodeError, decodeJsonStrict } from "./strict-json.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20261126);

function asNumbers(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? Number(x) : x))) as unknown;
}

/** JSON.parse accepts the text and every number in it is finite (the platform refuses numbers a float64 cannot hold). */
function nativeParses(text: string): boolean {
  let finite = true;
  try {
    JSON.parse(text, (_k, v: unknown) => {
      if (typeof v === "number" && !Number.isFinite(v)) finite = false;
      return v;
    });
    return finite;
  } catch {
    return false;
  }
}

describe("decodeJsonStrict agrees with JSON.parse", () => {
  it("on generated documents (any strings, escapes and numbers)", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.boolean(), (v, pretty) => {
        const text = JSON.stringify(v, null, pretty ? 2 : 0) ?? "null";
        const r = decodeJsonStrict(text);
        expect(r.duplicates).toEqual([]);
        expect(asNumbers(r.value)).toEqual(JSON.parse(text));
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it("on which texts are JSON at all", () => {
    const pieces = fc.constantFrom('"', "\\", "\\u00e9", "\\u12", "\\x", "\u0001", "\t", ",", "{", "}", "[", "]", ":", "1", "-", "e", "tru", "null", ' "a" ');
    const texts = fc.oneof(
      fc.array(pieces, { maxLength: 12 }).map((p) => p.join("")),
      fc.string({ maxLength: 30 }).map((s) => `"${s}"`),
      fc.tuple(fc.jsonValue({ maxDepth: 3 }), fc.nat(), pieces).map(([v, at, piece]) => {
        const t = JSON.stringify(v) ?? "null";
        const p = at % (t.length + 1);
        return t.slice(0, p) + piece + t.slice(p);
      }),
    );
    fc.assert(
      fc.property(texts, (text) => {
        let ok = true;
        try {
          decodeJsonStrict(text);
        } catch (err) {
          expect(err).toBeInstanceOf(DecodeError);
          ok = false;
        }
        expect(ok).toBe(nativeParses(text));
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });
});
