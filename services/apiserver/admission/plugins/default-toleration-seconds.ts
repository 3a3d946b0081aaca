/**
 * DefaultTolerationSeconds: every pod written (create, update; not subresources)
 * that does not already tolerate the not-ready and unreachable NoExecute taints
 * gets `{key, operator: Exists, effect: NoExecute, tolerationSeconds: 300}` for each.
 * A toleration with an empty key (all taints) or an empty effect (all effects) counts.
 */
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { AdmissionPlugin, Attributes, PluginFactory } from "../interfaces.ts";
import { arr, child, isResource, str } from "./util.ts";

export const DEFAULT_TOLERATION_SECONDS_PLUGIN = "DefaultTolerationSeconds";
export const DEFAULT_TOLERATION_SECONDS = 300;

function tolerates(tolerations: unknown[], key: string): boolean {
  return tolerations.some((t) => isObject(t) && (str(t.key) === key || !t.key) && (t.effect === "NoExecute" || !t.effect));
}

/** Adds the two default tolerations to a pod where missing. */
export function addDefaultTolerations(pod: JsonObject, profile: PlatformProfile, seconds = DEFAULT_TOLERATION_SECONDS): void {
  const spec = child(pod, "spec");
  const tolerations = arr(spec.tolerations);
  const added: JsonObject[] = [];
  for (const key of [profile.taints.notReady, profile.taints.unreachable]) {
    if (!tolerates(tolerations, key)) added.push({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: seconds });
  }
  if (added.length > 0) spec.tolerations = [...tolerations, ...added];
}

export const defaultTolerationSecondsPlugin: PluginFactory = (ctx): AdmissionPlugin => ({
  name: DEFAULT_TOLERATION_SECONDS_PLUGIN,
  handles: (op) => op === "CREATE" || op === "UPDATE",
  admit(a: Attributes) {
    if (!isResource(a, "", "pods") || !a.object) return;
    addDefaultTolerations(a.object, ctx.profile);
  },
});
