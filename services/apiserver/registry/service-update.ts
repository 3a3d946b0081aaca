/**
 * What a Service update keeps of the stored object before validation, as the platform
 * does: an update that leaves out the allocated cluster IPs, IP families, node ports or
 * health check node port keeps the stored ones (so `kubectl apply` and `replace` of a
 * manifest without them work), and a type change drops what the new type does not use
 * (ExternalName: the cluster IPs; ClusterIP: the node ports), which the storage then frees.
 */
import { isObject, type JsonObject } from "../storage/object.ts";
import { cloneValue } from "../../../shared/schema/values.ts";

function spec(svc: JsonObject): JsonObject {
  return isObject(svc.spec) ? svc.spec : (svc.spec = {});
}

function type(svc: JsonObject): string {
  const t = spec(svc).type;
  return typeof t === "string" ? t : "ClusterIP";
}

const usesClusterIP = (svc: JsonObject) => type(svc) !== "ExternalName";
const usesNodePorts = (svc: JsonObject) => type(svc) === "NodePort" || (type(svc) === "LoadBalancer" && spec(svc).allocateLoadBalancerNodePorts !== false);
const usesHealthCheckPort = (svc: JsonObject) => type(svc) === "LoadBalancer" && spec(svc).externalTrafficPolicy === "Local";

function portsOf(svc: JsonObject): JsonObject[] {
  const p = spec(svc).ports;
  return Array.isArray(p) ? p.filter(isObject) : [];
}

const empty = (v: unknown) => v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0);

export function keepAllocatedValues(next: JsonObject, old: JsonObject): void {
  const n = spec(next);
  const o = spec(old);
  if (usesClusterIP(old) && usesClusterIP(next)) {
    for (const field of ["clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"]) if (empty(n[field]) && !empty(o[field])) n[field] = cloneValue(o[field]);
  } else if (usesClusterIP(old) && !usesClusterIP(next)) {
    for (const field of ["clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"]) if (empty(n[field]) || JSON.stringify(n[field]) === JSON.stringify(o[field])) delete n[field];
  }
  if (usesNodePorts(old) && usesNodePorts(next)) {
    // By port name, unless the new object already uses that node port elsewhere.
    const used = new Set(portsOf(next).map((p) => p.nodePort).filter((v) => typeof v === "number" && v > 0));
    const byName = new Map(portsOf(old).map((p) => [typeof p.name === "string" ? p.name : "", p.nodePort]));
    for (const p of portsOf(next)) {
      const prior = byName.get(typeof p.name === "string" ? p.name : "");
      if (empty(p.nodePort) || p.nodePort === 0) if (typeof prior === "number" && prior > 0 && !used.has(prior)) p.nodePort = prior;
    }
  } else if (usesNodePorts(old) && !usesNodePorts(next)) {
    const oldPorts = new Set(portsOf(old).map((p) => p.nodePort));
    for (const p of portsOf(next)) if (oldPorts.has(p.nodePort)) delete p.nodePort;
  }
  if (usesHealthCheckPort(old) && usesHealthCheckPort(next)) {
    if (empty(n.healthCheckNodePort) || n.healthCheckNodePort === 0) n.healthCheckNodePort = o.healthCheckNodePort;
  } else if (usesHealthCheckPort(old) && n.healthCheckNodePort === o.healthCheckNodePort) {
    delete n.healthCheckNodePort;
  }
}
