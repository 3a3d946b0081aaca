/** NoExecute eviction decisions as a table. */
import { describe, expect, it } from "vitest";
import { evictionTime, type Taint, type Toleration } from "./tolerations.ts";

const NOW = Date.parse("2026-01-01T00:00:10Z");
const unreachable: Taint = { key: "u", effect: "NoExecute", timeAdded: "2026-01-01T00:00:00Z" };

describe("evictionTime", () => {
  const rows: Array<[string, Taint[], Toleration[], number | undefined]> = [
    ["no NoExecute taint: stays", [{ key: "u", effect: "NoSchedule" }], [], undefined],
    ["untolerated: now", [unreachable], [], NOW],
    ["tolerated forever: stays", [unreachable], [{ key: "u", operator: "Exists", effect: "NoExecute" }], undefined],
    ["tolerated 300 s: timeAdded + 300 s", [unreachable], [{ key: "u", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 }], Date.parse("2026-01-01T00:05:00Z")],
    ["Exists without key tolerates all", [unreachable, { key: "n", effect: "NoExecute" }], [{ operator: "Exists" }], undefined],
    ["one of two taints untolerated: now", [unreachable, { key: "n", effect: "NoExecute" }], [{ key: "u", operator: "Exists" }], NOW],
    ["Equal needs the value", [{ key: "k", value: "v", effect: "NoExecute" }], [{ key: "k", value: "w" }], NOW],
    ["negative seconds: at once", [unreachable], [{ key: "u", operator: "Exists", tolerationSeconds: -5 }], Date.parse("2026-01-01T00:00:00Z")],
  ];
  for (const [name, taints, tolerations, want] of rows) it(name, () => expect(evictionTime(taints, tolerations, NOW)).toBe(want));
});
