import { describe, expect, it } from "vitest";
import { encodedForList, encodedIfCached, encodedOnce, listFilledBytes } from "./encoded-cache.ts";

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

describe("encodedOnce", () => {
  it("encodes an object's variant once and hands out the same bytes after", () => {
    const obj = { metadata: { name: "a" } };
    let calls = 0;
    const encode = () => (calls++, bytes("a"));
    const first = encodedOnce(obj, "json", encode);
    expect(encodedOnce(obj, "json", encode)).toBe(first);
    expect(calls).toBe(1);
  });

  it("keeps variants and objects apart", () => {
    const a = { metadata: { name: "a" } };
    const b = { metadata: { name: "a" } };
    expect(new TextDecoder().decode(encodedOnce(a, "json", () => bytes("a-json")))).toBe("a-json");
    expect(new TextDecoder().decode(encodedOnce(a, "yaml", () => bytes("a-yaml")))).toBe("a-yaml");
    // An equal but distinct object (a new version stored by the cache) gets its own bytes.
    expect(new TextDecoder().decode(encodedOnce(b, "json", () => bytes("b-json")))).toBe("b-json");
  });
});

describe("encodedForList", () => {
  it("keeps a listed item's bytes for the next list and the next GET", () => {
    const obj = { metadata: { name: "listed" } };
    let calls = 0;
    const encode = () => (calls++, bytes("listed"));
    const before = listFilledBytes();
    const first = encodedForList(obj, "json", encode);
    expect(first && new TextDecoder().decode(first)).toBe("listed");
    expect(encodedForList(obj, "json", encode)).toBe(first);
    expect(encodedOnce(obj, "json", encode)).toBe(first);
    expect(calls).toBe(1);
    expect(listFilledBytes() - before).toBe(6);
  });

  it("reuses bytes a GET made without counting them against the lists' budget", () => {
    const obj = { metadata: { name: "got" } };
    const got = encodedOnce(obj, "json", () => bytes("got"));
    const before = listFilledBytes();
    expect(encodedForList(obj, "json", () => bytes("other"), before)).toBe(got);
    expect(listFilledBytes()).toBe(before);
  });

  it("past the budget encodes nothing and keeps nothing (the list encodes the item itself)", () => {
    const obj = { metadata: { name: "late" } };
    let calls = 0;
    const budget = listFilledBytes();
    expect(encodedForList(obj, "json", () => (calls++, bytes("late")), budget)).toBeUndefined();
    expect(calls).toBe(0);
    expect(encodedIfCached(obj, "json")).toBeUndefined();
    expect(encodedForList(obj, "json", () => bytes("late"), budget + 4)).toBeDefined();
  });
});
