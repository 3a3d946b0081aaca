/**
 * What the allocation repair does, decided from one consistent view of Services, their
 * IPAddress records and their node port records (the platform's ipallocator and
 * portallocator repair loops, for allocations a crash left between the record write and
 * the Service write, or records edited by hand). Pure: views in, a plan out.
 *
 * Contract:
 * - A Service's ClusterIP without a record gets one (event ClusterIPNotAllocated
 *   "…is not allocated; repairing"); a record that names no Service, or a Service that is
 *   gone or does not hold the address, is rewritten for this Service ("…has a wrong
 *   reference; repairing"); a record without the allocator's labels is rewritten. An
 *   address held by two Services stays with its record's owner and the other one gets
 *   ClusterIPAlreadyAllocated; an invalid or out-of-range address gets ClusterIPNotValid /
 *   ClusterIPOutOfRange and nothing else.
 * - A record managed by the allocator whose Service is gone is released once it is older
 *   than the grace period (IPAddressNotAllocated "…appears to have leaked: cleaning up";
 *   younger ones are looked at again when their grace ends: a create may be in flight); one
 *   whose Service exists but does not hold it is released at once (IPAddressWrongReference);
 *   one that names no Service is released (IPAddressNotAllocated). Records of other
 *   managers are left alone.
 * - Node ports the same way: a held port without a record gets one (PortNotAllocated
 *   "Port N is not allocated; repairing"), a port held twice gives PortAlreadyAllocated to
 *   the Service that does not own the record, one outside the range PortOutOfRange; a
 *   record no Service holds is released after the grace period.
 * - Services are taken in namespace/name order, so a plan is deterministic.
 */
import { parseIP, inRange, type IPFamily, type ValueRange } from "./service-ranges.ts";

export interface ServiceRef {
  namespace: string;
  name: string;
}

export interface ServiceView extends ServiceRef {
  uid?: string;
  /** spec.clusterIPs (empty, or ["None"], for Services without one). */
  clusterIPs: string[];
  /** Node ports and the health check node port, without repeats. */
  nodePorts: number[];
}

export interface ParentRefView {
  group: string;
  resource: string;
  namespace: string;
  name: string;
}

export interface RecordView {
  parentRef?: ParentRefView;
  createdMs: number;
  resourceVersion: string;
}

export interface IPRecordView extends RecordView {
  ip: string;
  /** Labelled as the ClusterIP allocator's. */
  managed: boolean;
  /** Its family label matches its address (and it is managed). */
  labelsOk: boolean;
}

export interface PortRecordView extends RecordView {
  port: number;
}

export interface RepairInput {
  services: ServiceView[];
  ipRecords: IPRecordView[];
  portRecords: PortRecordView[];
  /** Whether an address lies in a configured Service CIDR. */
  ipInRange: (family: IPFamily, value: bigint) => boolean;
  nodePorts: ValueRange;
  nodePortRangeText: string;
  nowMs: number;
  graceMs: number;
}

export type RepairAction =
  | { kind: "writeIP"; ip: string; family: IPFamily; service: ServiceRef; replaces?: string }
  | { kind: "releaseIP"; ip: string; resourceVersion: string }
  | { kind: "writePort"; port: number; service: ServiceRef; replaces?: string }
  | { kind: "releasePort"; port: number; resourceVersion: string };

export const IP_REPAIR_CONTROLLER = "ipallocator-repair-controller";
export const PORT_REPAIR_CONTROLLER = "portallocator-repair-controller";

export interface RepairEvent {
  regarding: { kind: "Service"; service: ServiceView } | { kind: "IPAddress"; name: string };
  reason: string;
  message: string;
  action: string;
  controller: string;
}

export interface RepairPlan {
  actions: RepairAction[];
  events: RepairEvent[];
  /** When a record still in its grace period should be looked at again. */
  recheckAtMs?: number;
}

const keyOf = (ref: ServiceRef): string => `${ref.namespace}/${ref.name}`;
const refersToService = (ref: ParentRefView | undefined): ref is ParentRefView => !!ref && ref.group === "" && ref.resource === "services";

class Planner {
  readonly plan: RepairPlan = { actions: [], events: [] };
  readonly services: ServiceView[];
  readonly byKey: Map<string, ServiceView>;

  constructor(readonly input: RepairInput) {
    this.services = [...input.services].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
    this.byKey = new Map(this.services.map((s) => [keyOf(s), s]));
  }

  event(regarding: RepairEvent["regarding"], reason: string, message: string, ip: boolean): void {
    const controller = ip ? IP_REPAIR_CONTROLLER : PORT_REPAIR_CONTROLLER;
    const action = ip ? (regarding.kind === "Service" ? "ClusterIPAllocation" : "IPAddressAllocation") : "PortAllocation";
    this.plan.events.push({ regarding, reason, message, action, controller });
  }

  /** Whether the record's Service exists and holds `holds`. */
  ownerHolding(ref: ParentRefView | undefined, holds: (s: ServiceView) => boolean): ServiceView | undefined {
    if (!refersToService(ref)) return undefined;
    const svc = this.byKey.get(keyOf(ref));
    return svc && holds(svc) ? svc : undefined;
  }

  /** A record no Service holds: released after the grace period, looked at again before. */
  releaseAfterGrace(rec: RecordView, release: () => void): boolean {
    const due = rec.createdMs + this.input.graceMs;
    if (this.input.nowMs > due) {
      release();
      return true;
    }
    this.plan.recheckAtMs = Math.min(this.plan.recheckAtMs ?? Infinity, due);
    return false;
  }

  clusterIPs(): void {
    const records = new Map(this.input.ipRecords.map((r) => [r.ip, r]));
    const rewritten = new Set<string>();
    for (const svc of this.services) {
      for (const ip of svc.clusterIPs) {
        if (ip === "" || ip === "None") continue;
        const parsed = parseIP(ip);
        if (!parsed) {
          this.event({ kind: "Service", service: svc }, "ClusterIPNotValid", `Cluster IP ${ip} is not a valid IP; please recreate Service`, true);
          continue;
        }
        const fam = parsed.family;
        if (!this.input.ipInRange(fam, parsed.value)) {
          this.event({ kind: "Service", service: svc }, "ClusterIPOutOfRange", `Cluster IP [${fam}]: ${ip} is not within any configured Service CIDR; please recreate service`, true);
          continue;
        }
        const rec = records.get(ip);
        const write = (replaces?: string) => {
          this.plan.actions.push({ kind: "writeIP", ip, family: fam, service: { namespace: svc.namespace, name: svc.name }, replaces });
          rewritten.add(ip);
        };
        if (!rec) {
          this.event({ kind: "Service", service: svc }, "ClusterIPNotAllocated", `Cluster IP [${fam}]: ${ip} is not allocated; repairing`, true);
          write();
          continue;
        }
        const ref = rec.parentRef;
        const mine = refersToService(ref) && ref.namespace === svc.namespace && ref.name === svc.name;
        if (!mine) {
          if (this.ownerHolding(ref, (o) => o.clusterIPs.includes(ip))) {
            this.event({ kind: "Service", service: svc }, "ClusterIPAlreadyAllocated", `Cluster IP [${fam}]:${ip} was assigned to multiple services; please recreate service`, true);
            continue;
          }
          this.event({ kind: "Service", service: svc }, "ClusterIPNotAllocated", `the ClusterIP [${fam}]: ${ip} for Service ${svc.namespace}/${svc.name} has a wrong reference; repairing`, true);
          write(rec.resourceVersion);
          continue;
        }
        if (!rec.labelsOk) write(rec.resourceVersion);
      }
    }
    for (const rec of this.input.ipRecords) {
      if (!rec.managed || rewritten.has(rec.ip)) continue;
      const ref = rec.parentRef;
      const release = () => this.plan.actions.push({ kind: "releaseIP", ip: rec.ip, resourceVersion: rec.resourceVersion });
      if (!refersToService(ref)) {
        const raw: ParentRefView | undefined = rec.parentRef;
        const shown = raw ? `&{${raw.group} ${raw.resource} ${raw.namespace} ${raw.name}}` : "<nil>";
        this.event({ kind: "IPAddress", name: rec.ip }, "IPAddressNotAllocated", `IPAddress ${rec.ip} appears to have been modified, not referencing a Service ${shown}: cleaning up`, true);
        release();
        continue;
      }
      const svc = this.byKey.get(keyOf(ref));
      if (!svc) {
        this.releaseAfterGrace(rec, () => {
          this.event({ kind: "IPAddress", name: rec.ip }, "IPAddressNotAllocated", `IPAddress: ${rec.ip} for Service ${ref.namespace}/${ref.name} appears to have leaked: cleaning up`, true);
          release();
        });
        continue;
      }
      if (svc.clusterIPs.includes(rec.ip)) continue;
      this.event({ kind: "IPAddress", name: rec.ip }, "IPAddressWrongReference", `IPAddress: ${rec.ip} for Service ${svc.namespace}/${svc.name} has a wrong reference; cleaning up`, true);
      release();
    }
  }

  nodePorts(): void {
    const records = new Map(this.input.portRecords.map((r) => [r.port, r]));
    const owners = new Map<number, ServiceView>();
    // The record's Service owns a port it holds; otherwise the first Service (in order) that holds it.
    for (const rec of this.input.portRecords) {
      const owner = this.ownerHolding(rec.parentRef, (s) => s.nodePorts.includes(rec.port));
      if (owner) owners.set(rec.port, owner);
    }
    for (const svc of this.services) for (const port of svc.nodePorts) if (!owners.has(port)) owners.set(port, svc);
    for (const svc of this.services) {
      for (const port of svc.nodePorts) {
        if (!inRange(this.input.nodePorts, BigInt(port))) {
          this.event({ kind: "Service", service: svc }, "PortOutOfRange", `Port ${port} is not within the port range ${this.input.nodePortRangeText}; please recreate service`, false);
          continue;
        }
        if (owners.get(port) !== svc) {
          this.event({ kind: "Service", service: svc }, "PortAlreadyAllocated", `Port ${port} was assigned to multiple services; please recreate service`, false);
          continue;
        }
        const rec = records.get(port);
        const ref = rec?.parentRef;
        if (rec && refersToService(ref) && ref.namespace === svc.namespace && ref.name === svc.name) continue;
        this.event({ kind: "Service", service: svc }, "PortNotAllocated", `Port ${port} is not allocated; repairing`, false);
        this.plan.actions.push({ kind: "writePort", port, service: { namespace: svc.namespace, name: svc.name }, replaces: rec?.resourceVersion });
      }
    }
    for (const rec of this.input.portRecords) {
      if (owners.has(rec.port)) continue;
      this.releaseAfterGrace(rec, () => this.plan.actions.push({ kind: "releasePort", port: rec.port, resourceVersion: rec.resourceVersion }));
    }
  }
}

export function planRepair(input: RepairInput): RepairPlan {
  const planner = new Planner(input);
  planner.clusterIPs();
  planner.nodePorts();
  return planner.plan;
}
