/** Quota amounts and namespace usage, as tables. */
import { describe, expect, it } from "vitest";
import type { ApiObject } from "../../../shared/client/object-client.ts";
import { formatAmount, namespaceUsage, parseAmount, usedFor } from "./usage.ts";

describe("amounts", () => {
  const rows: Array<[string[], string]> = [
    [["500m", "1"], "1500m"],
    [["256Mi", "1Gi"], "1280Mi"],
    [["1G", "1G"], "2G"],
    [["0.5", "0.5"], "1"],
    [["1Ki", "1"], "1025"],
    [["100m", "-100m"], "0"],
  ];
  for (const [parts, want] of rows) {
    it(`${parts.join(" + ")} = ${want}`, () => {
      const sum = parts.map((p) => parseAmount(p)).reduce((a, b) => ({ nano: (a?.nano ?? 0n) + (b?.nano ?? 0n), binary: !!(a?.binary || b?.binary) }));
      expect(formatAmount(sum ?? { nano: 0n, binary: false })).toBe(want);
    });
  }
  it("refuses what is not a quantity", () => expect(parseAmount("1x")).toBeUndefined());
});

describe("namespaceUsage", () => {
  const pod = (name: string, extra: Record<string, unknown> = {}, phase = "Running"): ApiObject => ({
    metadata: { name },
    spec: { containers: [{ resources: { requests: { cpu: "250m" } } }], initContainers: [{ resources: { requests: { cpu: "1" } } }], ...extra },
    status: { phase },
  });
  it("counts a pod's requests as max(sum of containers, init containers) and skips finished pods", () => {
    const t = namespaceUsage({ pods: [pod("a"), pod("b", {}, "Failed")], services: [], pvcs: [], counted: {} }, [], 0);
    expect(formatAmount(t.get("requests.cpu") ?? { nano: 0n, binary: false })).toBe("1");
    expect(formatAmount(t.get("pods") ?? { nano: 0n, binary: false })).toBe("1");
  });
  it("honours the Terminating scope", () => {
    const t = namespaceUsage({ pods: [pod("a"), pod("b", { activeDeadlineSeconds: 5 })], services: [], pvcs: [], counted: {} }, ["Terminating"], 0);
    expect(formatAmount(t.get("pods") ?? { nano: 0n, binary: false })).toBe("1");
  });
  it("writes 0 for tracked names nothing uses and keeps untracked names as they were", () => {
    expect(usedFor({ pods: "5", "count/widgets.example.com": "3" }, new Map(), { "count/widgets.example.com": "2" })).toEqual({ pods: "0", "count/widgets.example.com": "2" });
  });
});
