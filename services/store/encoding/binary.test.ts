import { describe, expect, it } from "vitest";
import { BinaryDecodeError, BinaryReader, BinaryWriter } from "./binary.ts";

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const bytesOf = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, "hex"));

class FormatError extends Error {}
const reader = (b: Uint8Array): BinaryReader => new BinaryReader(b, (m) => new FormatError(m));

describe("binary: uvarint", () => {
  it.each([
    [0, "00"],
    [1, "01"],
    [127, "7f"],
    [128, "8001"],
    [300, "ac02"],
    [16383, "ff7f"],
    [16384, "808001"],
    [2 ** 21 - 1, "ffff7f"],
    [2 ** 21, "80808001"],
    [2 ** 28, "8080808001"],
    [2 ** 32 + 5, "8580808010"],
    [2 ** 49, "80808080808080" + "01"],
    [Number.MAX_SAFE_INTEGER, "ffffffffffffff0f"],
  ])("%d is %s and reads back", (n, h) => {
    const b = new BinaryWriter().uvarint(n).finish();
    expect(hex(b)).toBe(h);
    const r = reader(b);
    expect(r.uvarint()).toBe(n);
    r.end();
  });

  it.each([-1, 1.5, Number.MAX_SAFE_INTEGER + 1, Number.NaN, Number.POSITIVE_INFINITY])("refuses to write %d", (n) => {
    expect(() => new BinaryWriter().uvarint(n, "term")).toThrow(RangeError);
    expect(() => new BinaryWriter().uvarint(n, "term")).toThrow(/^term /);
  });

  it.each([
    ["ffffffffffffff10", "varint out of range"], // 2^53, 8 bytes
    ["ffffffffffffffff01", "varint too long"], // a ninth byte
    ["80", "unexpected end"],
    ["", "unexpected end"],
  ])("reading %s fails: %s", (h, message) => {
    expect(() => reader(bytesOf(h)).uvarint()).toThrow(FormatError);
    expect(() => reader(bytesOf(h)).uvarint()).toThrow(message);
  });
});

describe("binary: svarint and i64", () => {
  it.each([
    [0, "00"],
    [-1, "01"],
    [1, "02"],
    [-64, "7f"],
    [64, "8001"],
    [2 ** 51 - 1, "feffffffffffff07"],
    [2 ** 51, "8080808080808008"],
    [-(2 ** 51), "ffffffffffffff07"],
    [Number.MAX_SAFE_INTEGER, "feffffffffffff1f"],
    [Number.MIN_SAFE_INTEGER, "fdffffffffffff1f"],
  ])("svarint %d is %s, the same bytes as i64, and reads back", (n, h) => {
    const b = new BinaryWriter().svarint(n).finish();
    expect(hex(b)).toBe(h);
    expect(hex(new BinaryWriter().i64(BigInt(n)).finish())).toBe(h);
    const r = reader(b);
    expect(r.svarint()).toBe(n);
    r.end();
  });

  it.each([0n, -1n, 1n, (1n << 51n) - 1n, 1n << 51n, -(1n << 51n), (1n << 62n) + 3n, (1n << 63n) - 1n, -(1n << 63n)])("i64 %s reads back", (v) => {
    const r = reader(new BinaryWriter().i64(v).finish());
    expect(r.i64()).toBe(v);
    r.end();
  });

  it("encodes the int64 extremes in 10 bytes", () => {
    expect(hex(new BinaryWriter().i64((1n << 63n) - 1n).finish())).toBe("feffffffffffffffff01");
    expect(hex(new BinaryWriter().i64(-(1n << 63n)).finish())).toBe("ffffffffffffffffff01");
  });

  it("refuses values outside the domain", () => {
    expect(() => new BinaryWriter().i64(1n << 63n)).toThrow(RangeError);
    expect(() => new BinaryWriter().i64(-(1n << 63n) - 1n)).toThrow(RangeError);
    expect(() => new BinaryWriter().svarint(0.5)).toThrow(RangeError);
    expect(() => new BinaryWriter().svarint(2 ** 53)).toThrow(RangeError);
  });

  it.each([
    ["ffffffffffffffffff03", "int64 out of range"], // 2^64 after zigzag
    ["ffffffffffffffffffff01", "int64 varint too long"],
    ["ffffffff", "unexpected end"],
  ])("i64 reading %s fails: %s", (h, message) => {
    expect(() => reader(bytesOf(h)).i64()).toThrow(FormatError);
    expect(() => reader(bytesOf(h)).i64()).toThrow(message);
  });

  it("svarint refuses an int64 beyond the safe range", () => {
    const b = new BinaryWriter().i64(BigInt(Number.MAX_SAFE_INTEGER) + 1n).finish();
    expect(() => reader(b).svarint()).toThrow("integer out of the safe range");
  });
});

describe("binary: strings, lists and the rest", () => {
  it("round-trips every kind in one buffer", () => {
    const w = new BinaryWriter(1)
      .u8(0x1ff)
      .bool(true)
      .bool(undefined)
      .bytes(Uint8Array.of(1, 2, 3))
      .raw(Uint8Array.of(9))
      .str("näme")
      .uvarints([1, 300, 0], "id")
      .strs(["a", "", "ü"])
      .raw(Uint8Array.of(7, 8));
    const b = w.finish();
    expect(w.length).toBe(b.length);
    const r = reader(b);
    expect(r.u8()).toBe(0xff);
    expect(r.bool()).toBe(true);
    expect(r.bool()).toBe(false);
    expect([...r.bytes()]).toEqual([1, 2, 3]);
    expect([...r.raw(1)]).toEqual([9]);
    expect(r.str()).toBe("näme");
    expect(r.uvarints()).toEqual([1, 300, 0]);
    expect(r.strs()).toEqual(["a", "", "ü"]);
    expect(r.remaining).toBe(2);
    expect([...r.rest()]).toEqual([7, 8]);
    expect(r.done).toBe(true);
    r.end();
  });

  it("fails on every truncation of a valid encoding, with the reader's error", () => {
    const b = new BinaryWriter().uvarint(300).svarint(-5).i64(1n << 60n).bool(true).bytes(Uint8Array.of(1, 2)).str("xy").uvarints([1, 2]).strs(["q"]).finish();
    const readAll = (r: BinaryReader): void => {
      r.uvarint();
      r.svarint();
      r.i64();
      r.bool();
      r.bytes();
      r.str();
      r.uvarints();
      r.strs();
      r.end();
    };
    readAll(reader(b));
    for (let n = 0; n < b.length; n++) expect(() => readAll(reader(b.subarray(0, n)))).toThrow(FormatError);
  });

  it.each([
    ["trailing bytes", "0000", (r: BinaryReader) => (r.u8(), r.end()), "1 trailing bytes"],
    ["a byte string longer than the input", "0501", (r: BinaryReader) => r.bytes(), "unexpected end"],
    ["raw beyond the input", "01", (r: BinaryReader) => r.raw(2), "unexpected end"],
    ["a list count beyond the input", "0301", (r: BinaryReader) => r.uvarints(), "list longer than the input"],
    ["a string list count beyond the input", "0900", (r: BinaryReader) => r.strs(), "list longer than the input"],
    ["a boolean of 2", "02", (r: BinaryReader) => r.bool(), "bad boolean 2"],
    ["invalid UTF-8", "01ff", (r: BinaryReader) => r.str(), "invalid UTF-8"],
  ])("refuses %s", (_what, h, read, message) => {
    expect(() => read(reader(bytesOf(h)))).toThrow(FormatError);
    expect(() => read(reader(bytesOf(h)))).toThrow(message);
  });

  it("throws BinaryDecodeError without a factory", () => {
    expect(() => new BinaryReader(new Uint8Array(0)).u8()).toThrow(BinaryDecodeError);
  });

  it("hands out copies of byte strings and a view for the rest", () => {
    const b = new BinaryWriter().bytes(Uint8Array.of(5, 6)).raw(Uint8Array.of(7)).finish();
    const r = reader(b);
    const copy = r.bytes();
    const rest = r.rest();
    b[1] = 0;
    b[3] = 0;
    expect([...copy]).toEqual([5, 6]);
    expect([...rest]).toEqual([0]);
  });

  it("grows past its initial size without changing what was written", () => {
    const w = new BinaryWriter(2);
    const big = new Uint8Array(1000).map((_, i) => i % 256);
    w.u8(1).bytes(big).u8(2);
    const r = reader(w.finish());
    expect(r.u8()).toBe(1);
    expect(r.bytes()).toEqual(big);
    expect(r.u8()).toBe(2);
    r.end();
  });
});
