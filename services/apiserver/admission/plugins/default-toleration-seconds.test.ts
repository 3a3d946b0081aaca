import { describe, expect, it } from "vitest";
import { getProfile } from "../../../../shared/platform/index.ts";
import type { JsonObject } from "../../storage/object.ts";
import { addDefaultTolerations } from "./default-toleration-seconds.ts";

const p = getProfile("plat");
const NR = p.taints.notReady;
const UR = p.taints.unreachable;
const def = (key: string) => ({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 });

describe("DefaultTolerationSeconds core", () => {
  it.each<[string, JsonObject[], JsonObject[]]>([
    ["none", [], [def(NR), def(UR)]],
    ["not-ready NoExecute already", [{ key: NR, operator: "Exists", effect: "NoExecute", tolerationSeconds: 10 }], [{ key: NR, operator: "Exists", effect: "NoExecute", tolerationSeconds: 10 }, def(UR)]],
    ["all-effects toleration of unreachable", [{ key: UR, operator: "Exists" }], [{ key: UR, operator: "Exists" }, def(NR)]],
    ["empty key tolerates all NoExecute", [{ operator: "Exists", effect: "NoExecute" }], [{ operator: "Exists", effect: "NoExecute" }]],
    ["NoSchedule does not count", [{ key: NR, operator: "Exists", effect: "NoSchedule" }], [{ key: NR, operator: "Exists", effect: "NoSchedule" }, def(NR), def(UR)]],
  ])("%s", (_name, given, want) => {
    const pod: JsonObject = { spec: { containers: [], tolerations: given } };
    addDefaultTolerations(pod, p);
    expect((pod.spec as JsonObject).tolerations).toEqual(want);
  });
});
