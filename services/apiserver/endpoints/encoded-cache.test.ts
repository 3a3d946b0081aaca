import { describe, expect, it } from "vitest";
import { encodedOnce } from "./encoded-cache.ts";

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
