/**
 * TaintNodesByCondition: a Node created through the main resource gets the
 * not-ready NoSchedule taint unless it already carries one with that key and
 * effect; the node lifecycle controller removes it once the node is Ready.
 */
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { AdmissionPlugin, PluginFactory } from "../interfaces.ts";
import { arr, child, isResource } from "./util.ts";

export const TAINT_NODES_BY_CONDITION_PLUGIN = "TaintNodesByCondition";

export function addNotReadyTaint(node: JsonObject, profile: PlatformProfile): void {
  const spec = child(node, "spec");
  const key = profile.taints.notReady;
  const taints = arr(spec.taints);
  if (taints.some((t) => isObject(t) && t.key === key && t.effect === "NoSchedule")) return;
  spec.taints = [...taints, { key, effect: "NoSchedule" }];
}

export const taintNodesByConditionPlugin: PluginFactory = (ctx): AdmissionPlugin => ({
  name: TAINT_NODES_BY_CONDITION_PLUGIN,
  handles: (op) => op === "CREATE",
  admit(a) {
    if (!isResource(a, "", "nodes") || !a.object) return;
    addNotReadyTaint(a.object, ctx.profile);
  },
});
