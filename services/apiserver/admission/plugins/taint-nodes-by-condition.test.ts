import { describe, expect, it } from "vitest";
import { getProfile } from "../../../../shared/platform/index.ts";
import type { JsonObject } from "../../storage/object.ts";
import { addNotReadyTaint } from "./taint-nodes-by-condition.ts";

const p = getProfile("kubernetes");
const NR = p.taints.notReady;

describe("TaintNodesByCondition core", () => {
  it.each<[string, JsonObject | undefined, JsonObject[]]>([
    ["no spec", undefined, [{ key: NR, effect: "NoSchedule" }]],
    ["other taints kept", { taints: [{ key: "a", effect: "NoExecute" }] }, [{ key: "a", effect: "NoExecute" }, { key: NR, effect: "NoSchedule" }]],
    ["already tainted", { taints: [{ key: NR, effect: "NoSchedule", value: "x" }] }, [{ key: NR, effect: "NoSchedule", value: "x" }]],
    ["same key other effect", { taints: [{ key: NR, effect: "NoExecute" }] }, [{ key: NR, effect: "NoExecute" }, { key: NR, effect: "NoSchedule" }]],
  ])("%s", (_n, spec, want) => {
    const node: JsonObject = spec ? { spec } : {};
    addNotReadyTaint(node, p);
    expect((node.spec as JsonObject).taints).toEqual(want);
  });
});
