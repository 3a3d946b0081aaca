import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { crc32c } from "./crc32c.ts";

/** Bit-at-a-time reference, independent of the tables. */
function reference(data: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of data) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

describe("crc32c", () => {
  it("matches the published check values", () => {
    expect(crc32c(new TextEncoder().encode("123456789"))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(0))).toBe(0);
    // RFC 3720 (iSCSI) appendix B.4
    expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa);
    expect(crc32c(new Uint8Array(32).fill(0xff))).toBe(0x62a8ab43);
    expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i))).toBe(0x46dd794e);
    expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => 31 - i))).toBe(0x113fdb5c);
  });

  it("agrees with a bitwise reference on every length and alignment", () => {
    const buf = randomBytes(300);
    for (let start = 0; start < 9; start++) {
      for (let end = start; end <= buf.length; end += 7) {
        expect(crc32c(buf, 0, start, end)).toBe(reference(buf.subarray(start, end)));
      }
    }
  });

  it("chains: crc(b, crc(a)) equals crc(a‖b)", () => {
    const a = randomBytes(37);
    const b = randomBytes(101);
    const ab = new Uint8Array([...a, ...b]);
    expect(crc32c(b, crc32c(a))).toBe(crc32c(ab));
    expect(crc32c(ab, 0, 37)).toBe(crc32c(b));
  });
});
