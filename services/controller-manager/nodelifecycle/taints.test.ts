/** Condition taints and Unknown conditions of node lifecycle, as tables. */
import { describe, expect, it } from "vitest";
import { reconcileTaints, unknownConditions, type Taint } from "./taints.ts";

const keys = { unreachable: "node.x/unreachable", notReady: "node.x/not-ready" };
const T = "2026-01-01T00:00:00Z";
const t = (key: string, effect: string, timeAdded?: string): Taint => (timeAdded ? { key, effect, timeAdded } : { key, effect });

describe("reconcileTaints", () => {
  const rows: Array<[string, Taint[], string | undefined, Taint[] | undefined]> = [
    ["Ready True, no taints: nothing to do", [], "True", undefined],
    ["Ready True: condition taints removed, others kept", [t("a", "NoSchedule"), t(keys.unreachable, "NoExecute", "x")], "True", [t("a", "NoSchedule")]],
    ["Ready False: not-ready NoSchedule and NoExecute", [], "False", [t(keys.notReady, "NoSchedule"), t(keys.notReady, "NoExecute", T)]],
    ["Ready Unknown: unreachable replaces not-ready", [t(keys.notReady, "NoExecute", "old")], "Unknown", [t(keys.unreachable, "NoSchedule"), t(keys.unreachable, "NoExecute", T)]],
    ["already right: timeAdded kept, nothing to do", [t(keys.unreachable, "NoSchedule"), t(keys.unreachable, "NoExecute", "old")], "Unknown", undefined],
    ["no Ready condition yet: taints left alone", [t(keys.unreachable, "NoSchedule")], undefined, undefined],
  ];
  for (const [name, current, ready, want] of rows) it(name, () => expect(reconcileTaints(keys, current, ready, T)).toEqual(want));
});

describe("unknownConditions", () => {
  it("sets reported conditions Unknown, keeps heartbeats, adds the missing monitored ones", () => {
    const out = unknownConditions([{ type: "Ready", status: "True", lastHeartbeatTime: "hb" }], T);
    expect(out[0]).toEqual({ type: "Ready", status: "Unknown", reason: "NodeStatusUnknown", message: "Kubelet stopped posting node status.", lastHeartbeatTime: "hb", lastTransitionTime: T });
    expect(out.map((c) => c.type)).toEqual(["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"]);
  });
  it("a node that never reported: NodeStatusNeverUpdated", () => {
    expect(unknownConditions([], T).every((c) => c.reason === "NodeStatusNeverUpdated" && c.status === "Unknown")).toBe(true);
  });
});
