import { describe, expect, it } from "vitest";
import { add, cmp, format, quantity, sub, q } from "./quantity.ts";

describe("quantity", () => {
  it.each([
    ["1", "1"],
    ["1000m", "1"],
    ["1.5", "1500m"],
    ["0.1", "100m"],
    ["100", "100"],
    ["1100", "1100"],
    ["1000", "1k"],
    ["2048", "2048"],
    ["1Ki", "1Ki"],
    ["1536Mi", "1536Mi"],
    ["1024Mi", "1Gi"],
    ["0.5Gi", "512Mi"],
    ["1.5Ki", "1536"],
    ["100Mi", "100Mi"],
    ["1e3", "1e3"],
    ["1E6", "1e6"],
    ["1G", "1G"],
    ["0.1n", "1n"],
    ["-1.5", "-1500m"],
    ["0", "0"],
  ])("%s prints as %s", (text, want) => {
    const v = quantity(text);
    expect(v).toBeDefined();
    expect(format(v!)).toBe(want);
  });

  it("rejects bad input", () => {
    for (const bad of ["", "abc", "1.2.3", "1Qi", undefined, {}]) expect(quantity(bad)).toBeUndefined();
  });

  it("adds, subtracts and compares exactly, keeping the first non-zero operand's format", () => {
    expect(format(add(q("500m"), q("500m")))).toBe("1");
    expect(format(add(q("0"), q("1Gi")))).toBe("1Gi");
    expect(format(add(q("1Gi"), q("1Gi")))).toBe("2Gi");
    expect(format(sub(q("1"), q("300m")))).toBe("700m");
    expect(cmp(q("1Gi"), q("1073741824"))).toBe(0);
    expect(cmp(q("1G"), q("1Gi"))).toBe(-1);
    expect(cmp(q("2"), q("1999m"))).toBe(1);
  });
});
