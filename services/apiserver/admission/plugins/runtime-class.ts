/**
 * RuntimeClass, for pod creates naming `spec.runtimeClassName`:
 * - the class must exist (403 `pod rejected: RuntimeClass "<name>" not found`);
 * - admit sets `spec.overhead` to the class's `overhead.podFixed` (a pod that
 *   already has a different overhead is refused) and merges the class's
 *   `scheduling.nodeSelector` (a conflicting pod value is refused) and tolerations;
 * - validate refuses an overhead that differs from the class's, or an overhead
 *   without a class overhead.
 */
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { AdmissionPlugin, Attributes, PluginContext, PluginFactory } from "../interfaces.ts";
import { cmp, quantity } from "./quantity.ts";
import { admissionForbidden, arr, child, getFresh, isResource, obj, str } from "./util.ts";

export const RUNTIME_CLASS_PLUGIN = "RuntimeClass";
const OVERHEAD_MISMATCH = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";
const OVERHEAD_WITHOUT_CLASS = "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead";

/** Two resource lists with the same names and equal quantities. */
export function sameResources(a: JsonObject, b: JsonObject): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => {
    const x = quantity(a[k]);
    const y = quantity(b[k]);
    return x !== undefined && y !== undefined && cmp(x, y) === 0;
  });
}

type Toleration = JsonObject;

function sameToleration(a: Toleration, b: Toleration): boolean {
  const keys = ["key", "operator", "value", "effect", "tolerationSeconds"];
  return keys.every((k) => (a[k] ?? "") === (b[k] ?? ""));
}

/** Whether `ss` tolerates everything `t` does. */
export function isSuperset(ss: Toleration, t: Toleration): boolean {
  if (sameToleration(ss, t)) return true;
  if (str(t.key) !== str(ss.key) && (str(ss.key) !== "" || ss.operator !== "Exists")) return false;
  if (str(t.effect) !== str(ss.effect) && str(ss.effect) !== "") return false;
  if (ss.effect === "NoExecute" && typeof ss.tolerationSeconds === "number") {
    if (typeof t.tolerationSeconds !== "number" || t.tolerationSeconds > ss.tolerationSeconds) return false;
  }
  switch (str(ss.operator)) {
    case "":
    case "Equal":
      return (str(t.operator) === "Equal" || str(t.operator) === "") && str(t.value) === str(ss.value);
    case "Exists":
      return true;
    default:
      return false;
  }
}

/** Union of two toleration lists keeping only the widest of overlapping ones (first wins on equals). */
export function mergeTolerations(first: Toleration[], second: Toleration[]): Toleration[] {
  const all = [...first, ...second];
  const merged: Toleration[] = [];
  all.forEach((t, i) => {
    if (merged.some((m) => isSuperset(m, t))) return;
    if (all.slice(i + 1).some((t2) => !sameToleration(t, t2) && isSuperset(t2, t))) return;
    merged.push(t);
  });
  return merged;
}

/** Phase-1 changes; an error text when the pod conflicts with its class. */
export function applyRuntimeClass(pod: JsonObject, rc: JsonObject): string | undefined {
  const spec = child(pod, "spec");
  const podFixed = obj(obj(rc.overhead)?.podFixed);
  if (podFixed) {
    const current = obj(spec.overhead);
    if (current && Object.keys(current).length > 0 && !sameResources(podFixed, current)) return OVERHEAD_MISMATCH;
    spec.overhead = { ...podFixed };
  }
  const scheduling = obj(rc.scheduling);
  if (scheduling) {
    const selector = (obj(scheduling.nodeSelector) ?? {}) as Record<string, string>;
    const podSelector = obj(spec.nodeSelector) as Record<string, string> | undefined;
    if (!podSelector) {
      if (Object.keys(selector).length > 0) spec.nodeSelector = { ...selector };
    } else {
      for (const [k, v] of Object.entries(selector)) {
        if (k in podSelector && podSelector[k] !== v) {
          return `conflict: runtimeClass.scheduling.nodeSelector[${k}] = ${v}; pod.spec.nodeSelector[${k}] = ${podSelector[k]}`;
        }
        podSelector[k] = v;
      }
    }
    const merged = mergeTolerations(arr(spec.tolerations).filter(isObject), arr(scheduling.tolerations).filter(isObject));
    if (merged.length > 0) spec.tolerations = merged;
  }
  return undefined;
}

/** Phase-2 check of the overhead; an error text when it does not match the class. */
export function overheadViolation(pod: JsonObject, rc: JsonObject | undefined): string | undefined {
  const podFixed = obj(obj(rc?.overhead)?.podFixed);
  const overhead = obj(obj(pod.spec)?.overhead);
  if (podFixed) return sameResources(podFixed, overhead ?? {}) ? undefined : OVERHEAD_MISMATCH;
  return overhead ? OVERHEAD_WITHOUT_CLASS : undefined;
}

class RuntimeClassPlugin implements AdmissionPlugin {
  readonly name = RUNTIME_CLASS_PLUGIN;
  constructor(private readonly ctx: PluginContext) {}

  handles(op: string): boolean {
    return op === "CREATE";
  }

  private async runtimeClass(a: Attributes & { object: JsonObject }): Promise<JsonObject | undefined> {
    const name = obj(a.object.spec)?.runtimeClassName;
    if (typeof name !== "string") return undefined;
    const rc = await getFresh(this.ctx.objects, { group: this.ctx.profile.group("node"), resource: "runtimeclasses", name });
    if (!rc) throw admissionForbidden(a, `pod rejected: RuntimeClass ${JSON.stringify(name)} not found`);
    return rc;
  }

  private applies(a: Attributes): a is Attributes & { object: JsonObject } {
    return isResource(a, "", "pods") && a.object !== undefined;
  }

  // Synchronous for everything but pods.
  admit(a: Attributes): Promise<void> | undefined {
    return this.applies(a) ? this.admitPod(a) : undefined;
  }

  private async admitPod(a: Attributes): Promise<void> {
    if (!this.applies(a)) return;
    const rc = await this.runtimeClass(a);
    if (!rc) return;
    const err = applyRuntimeClass(a.object, rc);
    if (err) throw admissionForbidden(a, err);
  }

  validate(a: Attributes): Promise<void> | undefined {
    return this.applies(a) ? this.validatePod(a) : undefined;
  }

  private async validatePod(a: Attributes): Promise<void> {
    if (!this.applies(a)) return;
    const err = overheadViolation(a.object, await this.runtimeClass(a));
    if (err) throw admissionForbidden(a, err);
  }
}

export const runtimeClassPlugin: PluginFactory = (ctx) => new RuntimeClassPlugin(ctx);
