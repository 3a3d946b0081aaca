import { describe, expect, it } from "vitest";
import { keyOf, LimitEnforcer, parseLimits } from "./event-rate-limit.ts";

describe("EventRateLimit core", () => {
  it("keeps one bucket per key and evicts the least recently used", () => {
    const t = 0;
    const e = new LimitEnforcer({ type: "User", qps: 1, burst: 1, cacheSize: 1 }, () => t);
    expect(e.accept("a")).toBe(true);
    expect(e.accept("a")).toBe(false);
    expect(e.accept("b")).toBe(true);
    expect(e.accept("a")).toBe(true); // evicted, so a fresh bucket
  });

  it("parses and checks the configuration", () => {
    expect(parseLimits({ limits: [{ type: "Server", qps: 5, burst: 10 }] })).toEqual([{ type: "Server", qps: 5, burst: 10, cacheSize: 4096 }]);
    expect(() => parseLimits({})).toThrow(/limits: Required value/);
    expect(() => parseLimits({ limits: [{ type: "Cluster", qps: 1, burst: 1 }] })).toThrow(/Unsupported value: "Cluster"/);
    expect(() => parseLimits({ limits: [{ type: "User", qps: 0, burst: 1 }] })).toThrow(/qps/);
  });

  it("derives keys per limit type", () => {
    const a = {
      namespace: "ns",
      userInfo: { username: "u", groups: [] },
      object: { source: { component: "kubelet", host: "n1" }, involvedObject: { kind: "Pod", namespace: "ns", name: "p", uid: "1", apiVersion: "v1" } },
    };
    expect(keyOf("Server", a)).toBe("");
    expect(keyOf("Namespace", a)).toBe("ns");
    expect(keyOf("User", a)).toBe("u");
    expect(keyOf("SourceAndObject", a)).toBe("kubeletn1Podnsp1v1");
  });
});
