/**
 * Priority: resolves a pod's `priorityClassName` into `spec.priority` and
 * `spec.preemptionPolicy` on create (the globalDefault class, the lowest-valued
 * one when several, when the pod names none; priority 0 and PreemptLowerPriority
 * when there is no default), keeps the stored values on update, and refuses a
 * second globalDefault PriorityClass. The two system classes resolve to their
 * built-in values even before they are stored.
 */
import { SYSTEM_PRIORITY_CLASSES } from "../../../../shared/api/groups/scheduling-v1.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { AdmissionPlugin, Attributes, PluginContext, PluginFactory } from "../interfaces.ts";
import { admissionForbidden, arr, child, getFresh, isResource, listFresh, obj, str } from "./util.ts";

export const PRIORITY_PLUGIN = "Priority";

export interface ResolvedPriority {
  className: string;
  value: number;
  preemptionPolicy: string | undefined;
}

/** The globalDefault class with the lowest value, if any. */
export function defaultPriorityClass(classes: JsonObject[]): JsonObject | undefined {
  let best: JsonObject | undefined;
  for (const c of classes) {
    if (c.globalDefault === true && (!best || Number(best.value) > Number(c.value))) best = c;
  }
  return best;
}

function resolved(pc: JsonObject): ResolvedPriority {
  return { className: str(obj(pc.metadata)?.name), value: Number(pc.value ?? 0), preemptionPolicy: str(pc.preemptionPolicy) || undefined };
}

/** The built-in class of a system name, shaped as stored. */
export function systemPriorityClass(name: string): JsonObject | undefined {
  const value = SYSTEM_PRIORITY_CLASSES[name];
  return value === undefined ? undefined : { metadata: { name }, value, preemptionPolicy: "PreemptLowerPriority" };
}

/**
 * Applies a resolution to a pod being created; returns an error text when the pod
 * carries a priority or preemption policy that disagrees with it.
 */
export function applyPriority(pod: JsonObject, r: ResolvedPriority): string | undefined {
  const spec = child(pod, "spec");
  if (typeof spec.priority === "number" && spec.priority !== r.value) {
    return `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${r.value} from the given PriorityClass name`;
  }
  if (r.preemptionPolicy !== undefined && typeof spec.preemptionPolicy === "string" && spec.preemptionPolicy !== r.preemptionPolicy) {
    return `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${r.preemptionPolicy} from the given PriorityClass name`;
  }
  if (r.className) spec.priorityClassName = r.className;
  spec.priority = r.value;
  if (r.preemptionPolicy !== undefined) spec.preemptionPolicy = r.preemptionPolicy;
  return undefined;
}

class PriorityPlugin implements AdmissionPlugin {
  readonly name = PRIORITY_PLUGIN;
  constructor(private readonly ctx: PluginContext) {}

  handles(op: string): boolean {
    return op === "CREATE" || op === "UPDATE" || op === "DELETE";
  }

  /** Cached classes; the store is asked when the cache has no default (one may have just been made). */
  private classes(): Promise<JsonObject[]> {
    return listFresh(this.ctx.objects, this.ctx.profile.group("scheduling"), "priorityclasses", undefined, (items) => defaultPriorityClass(items) !== undefined);
  }

  // Synchronous for everything but pods.
  admit(a: Attributes): Promise<void> | undefined {
    return !isResource(a, "", "pods") || !a.object ? undefined : this.admitPod(a);
  }

  private async admitPod(a: Attributes): Promise<void> {
    if (!isResource(a, "", "pods") || !a.object) return;
    const spec = child(a.object, "spec");
    if (a.operation === "UPDATE") {
      const old = obj(a.oldObject?.spec) ?? {};
      if (spec.priority === undefined && old.priority !== undefined) spec.priority = old.priority;
      if (spec.preemptionPolicy === undefined && old.preemptionPolicy !== undefined) spec.preemptionPolicy = old.preemptionPolicy;
      return;
    }
    if (a.operation !== "CREATE") return;
    const name = str(spec.priorityClassName);
    let r: ResolvedPriority;
    if (!name) {
      const def = defaultPriorityClass(await this.classes());
      r = def ? resolved(def) : { className: "", value: 0, preemptionPolicy: "PreemptLowerPriority" };
    } else {
      const pc =
        (await getFresh(this.ctx.objects, { group: this.ctx.profile.group("scheduling"), resource: "priorityclasses", name })) ?? systemPriorityClass(name);
      if (!pc) throw admissionForbidden(a, `no PriorityClass with name ${name} was found`);
      r = resolved(pc);
    }
    const err = applyPriority(a.object, r);
    if (err) throw admissionForbidden(a, err);
  }

  // Synchronous for everything but PriorityClasses.
  validate(a: Attributes): Promise<void> | undefined {
    return !isResource(a, this.ctx.profile.group("scheduling"), "priorityclasses") || !a.object ? undefined : this.validateClass(a);
  }

  private async validateClass(a: Attributes): Promise<void> {
    if (!isResource(a, this.ctx.profile.group("scheduling"), "priorityclasses") || !a.object) return;
    if (a.operation !== "CREATE" && a.operation !== "UPDATE") return;
    if (a.object.globalDefault !== true) return;
    const def = defaultPriorityClass(arr(await this.classes()).filter(isObject));
    const defName = def ? str(obj(def.metadata)?.name) : "";
    if (def && (a.operation === "CREATE" || defName !== a.name)) {
      throw admissionForbidden(a, `PriorityClass ${defName} is already marked as default. Only one default can exist`);
    }
  }
}

export const priorityPlugin: PluginFactory = (ctx) => new PriorityPlugin(ctx);
