/**
 * What an object counts against a ResourceQuota (the platform's quota
 * evaluators), as resource name → quantity, and which quotas an object falls under:
 * - pods: `pods`, `count/pods`, `cpu`/`requests.cpu`, `memory`/`requests.memory`,
 *   `limits.cpu`, `limits.memory`, ephemeral storage, `requests.<extended>` (overhead
 *   included); pods in a terminal phase or past their deletion grace count nothing;
 * - persistentvolumeclaims: the count, `requests.storage` and the per-class
 *   `<class>.storageclass.<storage group>/...` names;
 * - services: the count, `services.nodeports`, `services.loadbalancers`;
 * - every other resource: `count/<plural>[.<group>]` (plus the bare plural for the
 *   legacy object counts of the core group).
 * Scopes (Terminating, NotTerminating, BestEffort, NotBestEffort, PriorityClass)
 * select pods only; a scoped quota never matches another kind.
 */
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import { count, quantity, type Quantity } from "./quantity.ts";
import { containerList, podList } from "./resources.ts";
import { arr, obj, str } from "./util.ts";

export type Usage = Map<string, Quantity>;

const LEGACY_COUNTED = new Set(["pods", "services", "persistentvolumeclaims", "configmaps", "secrets", "replicationcontrollers", "resourcequotas"]);

export function countName(group: string, resource: string): string {
  return group ? `count/${resource}.${group}` : `count/${resource}`;
}

/** Parses `count/<plural>[.<group>]` into the resource it counts. */
export function parseCountName(name: string): { group: string; resource: string } | undefined {
  if (!name.startsWith("count/")) return undefined;
  const rest = name.slice("count/".length);
  const dot = rest.indexOf(".");
  return dot < 0 ? { group: "", resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
}

/** True when the pod no longer counts (terminal, or its deletion grace has passed). */
export function podIsTerminal(pod: JsonObject, nowMs: number): boolean {
  const phase = str(obj(pod.status)?.phase);
  if (phase === "Succeeded" || phase === "Failed") return true;
  const m = obj(pod.metadata) ?? {};
  const ts = Date.parse(str(m.deletionTimestamp));
  if (Number.isNaN(ts)) return false;
  const grace = typeof m.deletionGracePeriodSeconds === "number" ? m.deletionGracePeriodSeconds : 0;
  return nowMs > ts + grace * 1000;
}

function podUsage(pod: JsonObject, nowMs: number): Usage {
  const u: Usage = new Map();
  if (podIsTerminal(pod, nowMs)) return u;
  u.set("pods", count(1));
  u.set("count/pods", count(1));
  const requests = podList(pod, "requests");
  const limits = podList(pod, "limits");
  const overhead = containerList({ resources: { requests: obj(obj(pod.spec)?.overhead) ?? {} } }, "requests");
  for (const [k, v] of overhead) {
    if (requests.has(k)) requests.set(k, { nano: requests.get(k)!.nano + v.nano, format: requests.get(k)!.format });
    if (limits.has(k)) limits.set(k, { nano: limits.get(k)!.nano + v.nano, format: limits.get(k)!.format });
  }
  for (const [k, v] of requests) {
    if (k === "cpu" || k === "memory" || k === "ephemeral-storage") u.set(k, v);
    u.set(`requests.${k}`, v);
  }
  for (const [k, v] of limits) if (k === "cpu" || k === "memory" || k === "ephemeral-storage") u.set(`limits.${k}`, v);
  return u;
}

function claimUsage(pvc: JsonObject, profile: PlatformProfile): Usage {
  const u: Usage = new Map([["persistentvolumeclaims", count(1)], ["count/persistentvolumeclaims", count(1)]]);
  const spec = obj(pvc.spec) ?? {};
  const storage = quantity(obj(obj(spec.resources)?.requests)?.storage);
  const cls = typeof spec.storageClassName === "string" ? spec.storageClassName : str(obj(obj(pvc.metadata)?.annotations)?.[profile.admission.pvcStorageClassBeta]);
  if (storage) u.set("requests.storage", storage);
  if (cls) {
    const prefix = `${cls}.storageclass.${profile.group("storage")}/`;
    u.set(`${prefix}persistentvolumeclaims`, count(1));
    if (storage) u.set(`${prefix}requests.storage`, storage);
  }
  return u;
}

function serviceUsage(svc: JsonObject): Usage {
  const u: Usage = new Map([["services", count(1)], ["count/services", count(1)]]);
  const spec = obj(svc.spec) ?? {};
  const type = str(spec.type) || "ClusterIP";
  if (type === "NodePort" || type === "LoadBalancer") u.set("services.nodeports", count(arr(spec.ports).length));
  else u.set("services.nodeports", count(0));
  u.set("services.loadbalancers", count(type === "LoadBalancer" ? 1 : 0));
  return u;
}

/** The usage of one object of `group`/`resource`. */
export function usageOf(group: string, resource: string, o: JsonObject, profile: PlatformProfile, nowMs = Date.now()): Usage {
  if (!group && resource === "pods") return podUsage(o, nowMs);
  if (!group && resource === "persistentvolumeclaims") return claimUsage(o, profile);
  if (!group && resource === "services") return serviceUsage(o);
  const u: Usage = new Map([[countName(group, resource), count(1)]]);
  if (!group && LEGACY_COUNTED.has(resource)) u.set(resource, count(1));
  return u;
}

function isBestEffort(pod: JsonObject): boolean {
  const spec = obj(pod.spec) ?? {};
  for (const list of ["containers", "initContainers"]) {
    for (const c of arr(spec[list])) {
      if (!isObject(c)) continue;
      for (const which of ["requests", "limits"] as const) {
        const l = containerList(c, which);
        if ((l.get("cpu")?.nano ?? 0n) > 0n || (l.get("memory")?.nano ?? 0n) > 0n) return false;
      }
    }
  }
  return true;
}

function scopeMatches(scope: string, operator: string, values: string[], pod: JsonObject): boolean {
  const spec = obj(pod.spec) ?? {};
  switch (scope) {
    case "Terminating":
      return typeof spec.activeDeadlineSeconds === "number" && spec.activeDeadlineSeconds >= 0;
    case "NotTerminating":
      return !(typeof spec.activeDeadlineSeconds === "number" && spec.activeDeadlineSeconds >= 0);
    case "BestEffort":
      return isBestEffort(pod);
    case "NotBestEffort":
      return !isBestEffort(pod);
    case "PriorityClass": {
      const pc = str(spec.priorityClassName);
      if (operator === "Exists") return pc !== "";
      if (operator === "DoesNotExist") return pc === "";
      if (operator === "NotIn") return !values.includes(pc);
      return values.includes(pc);
    }
    case "CrossNamespacePodAffinity":
      return false;
    default:
      return false;
  }
}

/** The scopes of a quota as (scope, operator, values) triples. */
function scopesOf(quota: JsonObject): Array<[string, string, string[]]> {
  const spec = obj(quota.spec) ?? {};
  const out: Array<[string, string, string[]]> = arr(spec.scopes).map((s) => [str(s), "Exists", []]);
  for (const e of arr(obj(spec.scopeSelector)?.matchExpressions)) {
    if (isObject(e)) out.push([str(e.scopeName), str(e.operator), arr(e.values).map(str)]);
  }
  return out;
}

/** Whether the quota's scopes select this object. */
export function quotaSelects(quota: JsonObject, group: string, resource: string, o: JsonObject): boolean {
  const scopes = scopesOf(quota);
  if (scopes.length === 0) return true;
  if (group || resource !== "pods") return false;
  return scopes.every(([s, op, values]) => scopeMatches(s, op, values, o));
}

/** Pods: the quota-tracked compute names each container must set (`must specify ...`), or undefined. */
export function missingContainerResources(pod: JsonObject, hard: Iterable<string>): string | undefined {
  const required = new Set([...hard].filter((n) => ["cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"].includes(n)));
  if (required.size === 0) return undefined;
  const missing = new Map<string, Set<string>>();
  const spec = obj(pod.spec) ?? {};
  for (const list of ["containers", "initContainers"]) {
    for (const c of arr(spec[list])) {
      if (!isObject(c)) continue;
      const req = containerList(c, "requests");
      const lim = containerList(c, "limits");
      const have = new Set<string>();
      for (const k of ["cpu", "memory"]) {
        if (req.has(k)) have.add(k).add(`requests.${k}`);
        if (lim.has(k)) have.add(`limits.${k}`);
      }
      for (const r of required) if (!have.has(r)) (missing.get(r) ?? missing.set(r, new Set()).get(r)!).add(str(c.name));
    }
  }
  if (missing.size === 0) return undefined;
  const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(",")}`);
  return `must specify ${parts.join("; ")}`;
}
