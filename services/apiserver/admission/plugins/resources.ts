/**
 * Resource lists of pods as the platform sums them (shared by LimitRanger and
 * ResourceQuota): a pod's requests or limits are the sum over its app containers
 * and restartable (sidecar) init containers, raised to the largest single init
 * container (plus the sidecars started before it) where that is larger. Overhead
 * is not included (callers add it where the platform does).
 */
import { isObject, type JsonObject } from "../../storage/object.ts";
import { add, cmp, quantity, type Quantity } from "./quantity.ts";
import { arr, obj } from "./util.ts";

export type ResourceList = Map<string, Quantity>;

/** The parsed `resources.<which>` of a container (unparseable values are skipped). */
export function containerList(c: JsonObject, which: "requests" | "limits"): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of Object.entries(obj(obj(c.resources)?.[which]) ?? {})) {
    const parsed = quantity(v);
    if (parsed) out.set(k, parsed);
  }
  return out;
}

export function addInto(into: ResourceList, more: ResourceList): void {
  for (const [k, v] of more) into.set(k, into.has(k) ? add(into.get(k)!, v) : v);
}

export function maxInto(into: ResourceList, other: ResourceList): void {
  for (const [k, v] of other) if (!into.has(k) || cmp(v, into.get(k)!) > 0) into.set(k, v);
}

/** Pod-wide requests or limits. */
export function podList(pod: JsonObject, which: "requests" | "limits"): ResourceList {
  const spec = obj(pod.spec) ?? {};
  const total: ResourceList = new Map();
  for (const c of arr(spec.containers)) if (isObject(c)) addInto(total, containerList(c, which));
  const sidecars: ResourceList = new Map();
  const initMax: ResourceList = new Map();
  for (const c of arr(spec.initContainers)) {
    if (!isObject(c)) continue;
    const own = containerList(c, which);
    if (c.restartPolicy === "Always") {
      addInto(total, own);
      addInto(sidecars, own);
      maxInto(initMax, sidecars);
    } else {
      const tmp: ResourceList = new Map();
      addInto(tmp, own);
      addInto(tmp, sidecars);
      maxInto(initMax, tmp);
    }
  }
  maxInto(total, initMax);
  return total;
}
