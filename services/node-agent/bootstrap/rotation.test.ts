import { describe, expect, it } from "vitest";
import { rotationDeadline } from "./rotation.ts";
import { csrName } from "./tls-bootstrap.ts";

describe("rotationDeadline", () => {
  it.each([
    [0, 1000, 0.7, 700],
    [0, 1000, 0.9, 900],
    [0, 1000, 0.8, 800],
    [1000, 2000, 0.5, 1700],
    [1000, 2000, 1.5, 1900],
  ])("valid %i..%i, fraction %s → %i", (notBefore, notAfter, fraction, at) => {
    expect(rotationDeadline(notBefore, notAfter, fraction)).toBeCloseTo(at, 6);
  });
});

describe("csrName", () => {
  it("is stable for the same request and differs for another key", () => {
    const a = csrName("KEY-A", "system:node:n1", ["system:nodes"], ["digital signature", "client auth"]);
    expect(a).toBe(csrName("KEY-A", "system:node:n1", ["system:nodes"], ["digital signature", "client auth"]));
    expect(a).not.toBe(csrName("KEY-B", "system:node:n1", ["system:nodes"], ["digital signature", "client auth"]));
    expect(a).toMatch(/^node-csr-[0-9a-f]{64}$/);
  });
});
