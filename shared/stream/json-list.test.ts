import { describe, expect, it } from "vitest";
import { jsonListPieces, type JsonListParts } from "./json-list.ts";

const typeMeta = { apiVersion: "v1", kind: "ConfigMap" };
const utf8 = new TextEncoder();

function reference(envelope: Record<string, unknown>, items: Array<Record<string, unknown>>): string {
  return JSON.stringify({ ...envelope, items: items.map((o) => ({ ...typeMeta, ...o })) });
}

function joined(pieces: Iterable<string | Uint8Array>): string {
  const decoder = new TextDecoder();
  let out = "";
  for (const p of pieces) out += typeof p === "string" ? p : decoder.decode(p);
  return out;
}

function parts(envelope: Record<string, unknown>, items: Array<Record<string, unknown>>, cached?: (i: number) => Uint8Array | undefined): JsonListParts {
  return { envelope, arrayKey: "items", typeMeta, count: items.length, item: (i) => items[i], cached, text: (v) => JSON.stringify(v) };
}

const envelope = { kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "7" } };

describe("jsonListPieces: the bytes of stringifying the whole typed list", () => {
  const cases: Array<[string, Record<string, unknown>, Array<Record<string, unknown>>]> = [
    ["empty list", envelope, []],
    ["empty envelope", {}, [{ metadata: { name: "a" } }]],
    ["one item", envelope, [{ metadata: { name: "a" }, data: { k: "v" } }]],
    ["empty item", envelope, [{}]],
    ["item of undefined values only", envelope, [{ data: undefined }]],
    ["item carrying its own apiVersion", envelope, [{ apiVersion: "v2", metadata: { name: "a" } }]],
    ["item carrying its own kind", envelope, [{ metadata: { name: "a" }, kind: "Other" }]],
    ["item with an array-index key", envelope, [{ metadata: { name: "a" }, "7": "seven" }]],
    ["stored item: apiVersion and kind first", envelope, [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: { k: "v" } }]],
    ["stored item of another type: its own apiVersion and kind first", envelope, [{ apiVersion: "v2", kind: "Other", metadata: { name: "a" } }]],
    ["kind before apiVersion", envelope, [{ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "a" } }]],
    ["apiVersion first, kind later", envelope, [{ apiVersion: "v1", metadata: { name: "a" }, kind: "ConfigMap" }]],
    ["apiVersion alone", envelope, [{ apiVersion: "v1" }]],
    ["unicode and escapes", envelope, [{ metadata: { name: "ü" }, data: { s: 'é"\\\n\u2028😀' } }]],
    ["many items", envelope, Array.from({ length: 500 }, (_, i) => ({ metadata: { name: `o-${i}` }, data: { i: String(i) } }))],
  ];
  for (const [name, env, items] of cases) {
    it(name, () => {
      expect(joined(jsonListPieces(parts(env, items)))).toBe(reference(env, items));
      expect(joined(jsonListPieces(parts(env, items), 16))).toBe(reference(env, items));
    });
  }

  it.each([
    { name: "one cached item among others", cachedOf: (i: number) => i === 1 },
    { name: "every item cached", cachedOf: () => true },
    { name: "every other item cached", cachedOf: (i: number) => i % 2 === 0 },
    { name: "the first and last cached", cachedOf: (i: number) => i === 0 || i === 39 },
  ])("$name: cached item bytes in place, gathered into pieces of about the batch size", ({ cachedOf }) => {
    const items = Array.from({ length: 40 }, (_, i) => ({ metadata: { name: `o-${i}` }, data: { k: "v".repeat(i * 3) } }));
    const bytesOf = items.map((o) => utf8.encode(JSON.stringify({ ...typeMeta, ...o })));
    for (const batch of [16, 256, 4096, 1 << 16]) {
      const pieces = [...jsonListPieces(parts(envelope, items, (i) => (cachedOf(i) ? bytesOf[i] : undefined)), batch)];
      expect(joined(pieces), `batch ${batch}`).toBe(reference(envelope, items));
      const byteRuns = pieces.filter((p) => typeof p !== "string").length;
      if (batch === 1 << 16 && items.every((_, i) => cachedOf(i))) expect(byteRuns).toBe(1);
    }
  });

  it("passes a cached item larger than a batch through as it is", () => {
    const items = [{ metadata: { name: "a" } }, { metadata: { name: "b" }, data: { big: "x".repeat(5000) } }, { metadata: { name: "c" } }];
    const bytesOf = items.map((o) => utf8.encode(JSON.stringify({ ...typeMeta, ...o })));
    const pieces = [...jsonListPieces(parts(envelope, items, (i) => bytesOf[i]), 4096)];
    expect(pieces).toContain(bytesOf[1]);
    expect(joined(pieces)).toBe(reference(envelope, items));
  });

  it("hands text on in batches of about the batch size, not per item", () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({ metadata: { name: `o-${i}` } }));
    const pieces = [...jsonListPieces(parts(envelope, items), 4096)];
    const total = reference(envelope, items).length;
    expect(pieces.length).toBeLessThanOrEqual(Math.ceil(total / 4096) + 1);
    expect(pieces.length).toBeGreaterThan(1);
    for (const p of pieces.slice(0, -1)) expect((p as string).length).toBeGreaterThanOrEqual(4096);
  });
});
