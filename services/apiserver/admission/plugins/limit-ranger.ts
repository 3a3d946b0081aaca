/**
 * LimitRanger: the LimitRanges of the request's namespace applied to pods (create)
 * and PersistentVolumeClaims (create, update); subresources are ignored.
 * - admit: each container and init container gets the Container items'
 *   `default` limits and `defaultRequest` requests it lacks; the pod is annotated
 *   `LimitRanger plugin set: cpu, memory request for container app; ...`;
 * - validate: Container items check min, max and maxLimitRequestRatio per container,
 *   Pod items the pod-wide sums, PersistentVolumeClaim items min and max of the
 *   claim's requests. Violations are one 403 listing every message (`[a, b]` when
 *   several), as the platform words them.
 */
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { AdmissionPlugin, Attributes, PluginContext, PluginFactory } from "../interfaces.ts";
import { cmp, format, quantity, type Quantity } from "./quantity.ts";
import { containerList, podList, type ResourceList } from "./resources.ts";
import { admissionForbidden, arr, child, isResource, listFresh, obj } from "./util.ts";

export const LIMIT_RANGER_PLUGIN = "LimitRanger";

type Item = JsonObject;

function items(lr: JsonObject): Item[] {
  return arr(obj(lr.spec)?.limits).filter(isObject);
}

function entries(v: unknown): Array<[string, Quantity]> {
  const out: Array<[string, Quantity]> = [];
  for (const [k, raw] of Object.entries(obj(v) ?? {})) {
    const parsed = quantity(raw);
    if (parsed) out.push([k, parsed]);
  }
  return out;
}

/** Merges the defaults into one container; returns the annotation parts. */
function mergeContainer(c: JsonObject, limits: Map<string, unknown>, requests: Map<string, unknown>, label: string): string[] {
  const res = child(c, "resources");
  const setLimits: string[] = [];
  const setRequests: string[] = [];
  const have = (which: string) => obj(res[which]) ?? {};
  for (const [k, v] of limits) {
    if (k in have("limits")) continue;
    child(res, "limits")[k] = v;
    setLimits.push(k);
  }
  for (const [k, v] of requests) {
    if (k in have("requests")) continue;
    child(res, "requests")[k] = v;
    setRequests.push(k);
  }
  if (Object.keys(res).length === 0) delete c.resources;
  const out: string[] = [];
  if (setRequests.length > 0) out.push(`${setRequests.sort().join(", ")} request for ${label} ${String(c.name)}`);
  if (setLimits.length > 0) out.push(`${setLimits.sort().join(", ")} limit for ${label} ${String(c.name)}`);
  return out;
}

/** Phase 1 on a pod: default requests and limits from the Container items of all ranges. */
export function defaultPodResources(pod: JsonObject, ranges: JsonObject[], profile: PlatformProfile): void {
  const limits = new Map<string, unknown>();
  const requests = new Map<string, unknown>();
  for (const lr of ranges) {
    for (const item of items(lr)) {
      if (item.type !== "Container") continue;
      for (const [k, v] of Object.entries(obj(item.defaultRequest) ?? {})) requests.set(k, v);
      for (const [k, v] of Object.entries(obj(item.default) ?? {})) limits.set(k, v);
    }
  }
  if (limits.size === 0 && requests.size === 0) return;
  const spec = child(pod, "spec");
  const notes: string[] = [];
  for (const c of arr(spec.containers)) if (isObject(c)) notes.push(...mergeContainer(c, limits, requests, "container"));
  for (const c of arr(spec.initContainers)) if (isObject(c)) notes.push(...mergeContainer(c, limits, requests, "init container"));
  if (notes.length > 0) child(child(pod, "metadata"), "annotations")[profile.admission.limitRanger] = `LimitRanger plugin set: ${notes.join("; ")}`;
}

function minConstraint(type: string, name: string, enforced: Quantity, req: ResourceList, lim: ResourceList): string | undefined {
  const r = req.get(name);
  const l = lim.get(name);
  if (!r) return `minimum ${name} usage per ${type} is ${format(enforced)}.  No request is specified`;
  if (cmp(r, enforced) < 0) return `minimum ${name} usage per ${type} is ${format(enforced)}, but request is ${format(r)}`;
  if (l && cmp(l, enforced) < 0) return `minimum ${name} usage per ${type} is ${format(enforced)}, but limit is ${format(l)}`;
  return undefined;
}

function maxConstraint(type: string, name: string, enforced: Quantity, req: ResourceList, lim: ResourceList): string | undefined {
  const r = req.get(name);
  const l = lim.get(name);
  if (!l) return `maximum ${name} usage per ${type} is ${format(enforced)}.  No limit is specified`;
  if (cmp(l, enforced) > 0) return `maximum ${name} usage per ${type} is ${format(enforced)}, but limit is ${format(l)}`;
  if (r && cmp(r, enforced) > 0) return `maximum ${name} usage per ${type} is ${format(enforced)}, but request is ${format(r)}`;
  return undefined;
}

function maxRequestConstraint(type: string, name: string, enforced: Quantity, req: ResourceList): string | undefined {
  const r = req.get(name);
  if (!r) return `maximum ${name} usage per ${type} is ${format(enforced)}.  No request is specified`;
  if (cmp(r, enforced) > 0) return `maximum ${name} usage per ${type} is ${format(enforced)}, but request is ${format(r)}`;
  return undefined;
}

function ratioConstraint(type: string, name: string, enforced: Quantity, req: ResourceList, lim: ResourceList): string | undefined {
  const r = req.get(name);
  const l = lim.get(name);
  const e = format(enforced);
  if (!r || r.nano === 0n) return `${name} max limit to request ratio per ${type} is ${e}, but no request is specified or request is 0`;
  if (!l || l.nano === 0n) return `${name} max limit to request ratio per ${type} is ${e}, but no limit is specified or limit is 0`;
  // limit/request > enforced  ⇔  limit > enforced·request (exact, in nano units).
  if (l.nano * 1_000_000_000n > enforced.nano * r.nano) {
    return `${name} max limit to request ratio per ${type} is ${e}, but provided ratio is ${(Number(l.nano) / Number(r.nano)).toFixed(6)}`;
  }
  return undefined;
}

function checkItem(item: Item, type: string, req: ResourceList, lim: ResourceList, out: string[]): void {
  const push = (m: string | undefined) => m !== undefined && out.push(m);
  for (const [k, v] of entries(item.min)) push(minConstraint(type, k, v, req, lim));
  for (const [k, v] of entries(item.max)) push(maxConstraint(type, k, v, req, lim));
  for (const [k, v] of entries(item.maxLimitRequestRatio)) push(ratioConstraint(type, k, v, req, lim));
}

/** Phase 2 on a pod: every violation message of every range. */
export function podViolations(pod: JsonObject, ranges: JsonObject[]): string[] {
  const out: string[] = [];
  const spec = obj(pod.spec) ?? {};
  for (const lr of ranges) {
    for (const item of items(lr)) {
      if (item.type === "Container") {
        for (const list of ["containers", "initContainers"]) {
          for (const c of arr(spec[list])) if (isObject(c)) checkItem(item, "Container", containerList(c, "requests"), containerList(c, "limits"), out);
        }
      } else if (item.type === "Pod") {
        checkItem(item, "Pod", podList(pod, "requests"), podList(pod, "limits"), out);
      }
    }
  }
  return out;
}

/** Phase 2 on a claim: min and max of its requests. */
export function claimViolations(pvc: JsonObject, ranges: JsonObject[]): string[] {
  const out: string[] = [];
  const req = containerList(obj(pvc.spec) ?? {}, "requests");
  for (const lr of ranges) {
    for (const item of items(lr)) {
      if (item.type !== "PersistentVolumeClaim") continue;
      for (const [k, v] of entries(item.min)) {
        const m = minConstraint("PersistentVolumeClaim", k, v, req, new Map());
        if (m) out.push(m);
      }
      for (const [k, v] of entries(item.max)) {
        const m = maxRequestConstraint("PersistentVolumeClaim", k, v, req);
        if (m) out.push(m);
      }
    }
  }
  return out;
}

/** The platform's aggregate error text: duplicates dropped, `[a, b]` when several. */
export function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(", ")}]`;
}

class LimitRangerPlugin implements AdmissionPlugin {
  readonly name = LIMIT_RANGER_PLUGIN;
  constructor(private readonly ctx: PluginContext) {}

  handles(op: string): boolean {
    return op === "CREATE" || op === "UPDATE";
  }

  /** Pods on create, claims on create and update; main resource only. */
  /** The kind it acts on; the resource is checked before the object is read (a read costs the chain its copy, attributes.ts). */
  private kind(a: Attributes): "pod" | "pvc" | undefined {
    if (a.subresource) return undefined;
    const kind = isResource(a, "", "pods") ? (a.operation === "CREATE" ? "pod" : undefined) : isResource(a, "", "persistentvolumeclaims") ? "pvc" : undefined;
    return kind && a.object ? kind : undefined;
  }

  private ranges(a: Attributes): Promise<JsonObject[]> {
    return listFresh(this.ctx.objects, "", "limitranges", a.namespace, (items) => items.length > 0);
  }

  // Synchronous for the kinds it leaves alone.
  admit(a: Attributes): Promise<void> | undefined {
    return this.kind(a) === "pod" ? this.defaultPod(a) : undefined;
  }

  private async defaultPod(a: Attributes): Promise<void> {
    const ranges = await this.ranges(a);
    if (ranges.length > 0) defaultPodResources(a.object!, ranges, this.ctx.profile);
  }

  validate(a: Attributes): Promise<void> | undefined {
    const kind = this.kind(a);
    return kind ? this.check(a, kind) : undefined;
  }

  private async check(a: Attributes, kind: "pod" | "pvc"): Promise<void> {
    const ranges = await this.ranges(a);
    if (ranges.length === 0) return;
    const errs = kind === "pod" ? podViolations(a.object!, ranges) : claimViolations(a.object!, ranges);
    if (errs.length > 0) throw admissionForbidden(a, aggregate(errs));
  }
}

export const limitRangerPlugin: PluginFactory = (ctx) => new LimitRangerPlugin(ctx);
