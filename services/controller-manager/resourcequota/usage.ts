/**
 * What the objects of a namespace use of a ResourceQuota's `hard` names, pure, with
 * the platform's evaluators for the kinds this controller watches:
 * - pods (not Succeeded/Failed, not past their deletion grace): `pods`, `count/pods`,
 *   `requests.*`/bare `cpu`/`memory`/`ephemeral-storage` and `limits.*`, a pod's amount
 *   being max(sum of containers, largest init container) plus overhead;
 * - services: the counts, `services.loadbalancers`, `services.nodeports` (ports of
 *   NodePort and LoadBalancer services);
 * - persistentvolumeclaims: the counts and `requests.storage`;
 * - configmaps, secrets, replicationcontrollers, resourcequotas: the counts.
 * Quantities are exact (nano units as bigint) and printed as the platform prints them.
 * Pod scopes Terminating, NotTerminating, BestEffort and NotBestEffort are honoured.
 */
import type { ApiObject } from "../../../shared/client/object-client.ts";
import { parseQuantity } from "../../../shared/schema/formats.ts";

const NANO = 1_000_000_000n;

export interface Amount {
  nano: bigint;
  binary: boolean;
}

export function parseAmount(text: unknown): Amount | undefined {
  const s = typeof text === "number" ? String(text) : text;
  if (typeof s !== "string") return undefined;
  const p = parseQuantity(s);
  if ("error" in p) return undefined;
  const [int, frac = ""] = p.number.split(".");
  let n = BigInt(int || "0") * NANO + BigInt((frac + "000000000").slice(0, 9) || "0");
  if (frac.length > 9 && /[1-9]/.test(frac.slice(9))) n += 1n;
  if (p.base === 2) n *= 2n ** BigInt(p.exponent);
  else if (p.exponent >= 0) n *= 10n ** BigInt(p.exponent);
  else {
    const d = 10n ** BigInt(-p.exponent);
    n = n % d === 0n ? n / d : n / d + 1n;
  }
  return { nano: p.negative ? -n : n, binary: p.base === 2 };
}

const BINARY = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
const DECIMAL: Record<number, string> = { [-9]: "n", [-6]: "u", [-3]: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E" };

export function formatAmount(a: Amount): string {
  if (a.nano === 0n) return "0";
  const neg = a.nano < 0n;
  let v = neg ? -a.nano : a.nano;
  if (a.binary && v % NANO === 0n && v >= 1024n * NANO) {
    v /= NANO;
    let i = 0;
    while (i < BINARY.length - 1 && v % 1024n === 0n) {
      v /= 1024n;
      i++;
    }
    return `${neg ? "-" : ""}${v}${BINARY[i]}`;
  }
  let e = -9;
  while (e < 18 && v % 1000n === 0n) {
    v /= 1000n;
    e += 3;
  }
  return `${neg ? "-" : ""}${v}${DECIMAL[e]}`;
}

type Totals = Map<string, Amount>;

function addTo(t: Totals, name: string, a: Amount): void {
  const cur = t.get(name);
  t.set(name, cur ? { nano: cur.nano + a.nano, binary: cur.binary || a.binary } : a);
}
const one: Amount = { nano: NANO, binary: false };

const rec = (v: unknown): Record<string, unknown> => (v && typeof v === "object" ? (v as Record<string, unknown>) : {});

function containerAmounts(list: unknown, kind: "requests" | "limits"): Totals {
  const out: Totals = new Map();
  for (const c of Array.isArray(list) ? list : []) {
    for (const [k, v] of Object.entries(rec(rec(rec(c).resources)[kind]))) {
      const a = parseAmount(v);
      if (a) addTo(out, k, a);
    }
  }
  return out;
}

/** A pod's requests or limits: max(sum of containers, each init container) plus overhead. */
function podAmounts(pod: ApiObject, kind: "requests" | "limits"): Totals {
  const spec = rec(pod.spec);
  const sum = containerAmounts(spec.containers, kind);
  for (const init of Array.isArray(spec.initContainers) ? spec.initContainers : []) {
    for (const [k, a] of containerAmounts([init], kind)) if (!sum.has(k) || (sum.get(k) as Amount).nano < a.nano) sum.set(k, a);
  }
  for (const [k, v] of Object.entries(rec(spec.overhead))) {
    const a = parseAmount(v);
    if (a && sum.has(k)) addTo(sum, k, a);
  }
  return sum;
}

export function podCounts(pod: ApiObject, nowMs: number): boolean {
  const phase = rec(pod.status).phase;
  if (phase === "Succeeded" || phase === "Failed") return false;
  const ts = Date.parse(String(pod.metadata.deletionTimestamp ?? ""));
  if (Number.isNaN(ts)) return true;
  const grace = typeof pod.metadata.deletionGracePeriodSeconds === "number" ? pod.metadata.deletionGracePeriodSeconds : 0;
  return nowMs <= ts + grace * 1000;
}

function isBestEffort(pod: ApiObject): boolean {
  return podAmounts(pod, "requests").size === 0 && podAmounts(pod, "limits").size === 0;
}

export function podInScopes(pod: ApiObject, scopes: readonly string[]): boolean {
  const terminating = typeof rec(pod.spec).activeDeadlineSeconds === "number";
  return scopes.every((s) => (s === "Terminating" ? terminating : s === "NotTerminating" ? !terminating : s === "BestEffort" ? isBestEffort(pod) : s === "NotBestEffort" ? !isBestEffort(pod) : false));
}

/** The usage of every object of one namespace, by quota resource name. */
export function namespaceUsage(objects: { pods: ApiObject[]; services: ApiObject[]; pvcs: ApiObject[]; counted: Record<string, ApiObject[]> }, scopes: readonly string[], nowMs: number): Totals {
  const t: Totals = new Map();
  for (const pod of objects.pods) {
    if (!podCounts(pod, nowMs) || !podInScopes(pod, scopes)) continue;
    addTo(t, "pods", one);
    addTo(t, "count/pods", one);
    for (const [k, a] of podAmounts(pod, "requests")) {
      addTo(t, `requests.${k}`, a);
      if (!k.includes("/") && !k.includes(".")) addTo(t, k, a);
    }
    for (const [k, a] of podAmounts(pod, "limits")) addTo(t, `limits.${k}`, a);
  }
  if (scopes.length > 0) return t;
  for (const svc of objects.services) {
    addTo(t, "services", one);
    addTo(t, "count/services", one);
    const spec = rec(svc.spec);
    if (spec.type === "LoadBalancer") addTo(t, "services.loadbalancers", one);
    if (spec.type === "NodePort" || spec.type === "LoadBalancer") {
      const ports = Array.isArray(spec.ports) ? spec.ports.length : 0;
      if (ports) addTo(t, "services.nodeports", { nano: BigInt(ports) * NANO, binary: false });
    }
  }
  for (const pvc of objects.pvcs) {
    addTo(t, "persistentvolumeclaims", one);
    addTo(t, "count/persistentvolumeclaims", one);
    const a = parseAmount(rec(rec(rec(pvc.spec).resources).requests).storage);
    if (a) addTo(t, "requests.storage", a);
  }
  for (const [resource, items] of Object.entries(objects.counted)) {
    for (let i = 0; i < items.length; i++) {
      addTo(t, resource, one);
      addTo(t, `count/${resource}`, one);
    }
  }
  return t;
}

/** The names this controller can count (others keep the value they have). */
export function isTracked(name: string): boolean {
  return /^(pods|services|services\.loadbalancers|services\.nodeports|persistentvolumeclaims|configmaps|secrets|replicationcontrollers|resourcequotas|cpu|memory|ephemeral-storage|requests\..+|limits\..+|count\/(pods|services|persistentvolumeclaims|configmaps|secrets|replicationcontrollers|resourcequotas))$/.test(name);
}

/** `status.used` for `hard`: tracked names computed (0 when nothing uses them), others as they were. */
export function usedFor(hard: Record<string, unknown>, totals: Totals, previous: Record<string, string>): Record<string, string> {
  const used: Record<string, string> = {};
  for (const name of Object.keys(hard)) {
    if (isTracked(name)) used[name] = formatAmount(totals.get(name) ?? { nano: 0n, binary: false });
    else if (previous[name] !== undefined) used[name] = previous[name];
  }
  return used;
}
