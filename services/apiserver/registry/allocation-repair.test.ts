import { describe, expect, it } from "vitest";
import { planRepair, type IPRecordView, type PortRecordView, type RepairInput, type ServiceView } from "./allocation-repair.ts";
import { inRange, parseCidr, parsePortRange } from "./service-ranges.ts";

const NOW = 1_000_000;
const GRACE = 60_000;
const cidr = parseCidr("10.0.0.0/24");

const svc = (name: string, clusterIPs: string[], nodePorts: number[] = []): ServiceView => ({ namespace: "ns", name, clusterIPs, nodePorts });
const ref = (name: string, namespace = "ns") => ({ group: "", resource: "services", namespace, name });
const ipRec = (ip: string, parent: string | undefined, over: Partial<IPRecordView> = {}): IPRecordView => ({
  ip,
  parentRef: parent === undefined ? undefined : ref(parent),
  managed: true,
  labelsOk: true,
  createdMs: NOW - 2 * GRACE,
  resourceVersion: `rv-${ip}`,
  ...over,
});
const portRec = (port: number, parent: string, over: Partial<PortRecordView> = {}): PortRecordView => ({ port, parentRef: ref(parent), createdMs: NOW - 2 * GRACE, resourceVersion: `rv-${port}`, ...over });

function plan(services: ServiceView[], ipRecords: IPRecordView[], portRecords: PortRecordView[] = []) {
  const input: RepairInput = {
    services,
    ipRecords,
    portRecords,
    ipInRange: (family, value) => family === cidr.family && inRange(cidr, value),
    nodePorts: parsePortRange("30000-32767"),
    nodePortRangeText: "30000-32767",
    nowMs: NOW,
    graceMs: GRACE,
  };
  const p = planRepair(input);
  return { actions: p.actions, events: p.events.map((e) => `${e.regarding.kind === "Service" ? `Service ${e.regarding.service.name}` : `IPAddress ${e.regarding.name}`} ${e.reason}: ${e.message}`), recheckAtMs: p.recheckAtMs };
}

describe("planRepair: cluster IPs", () => {
  const cases: Array<{ name: string; services: ServiceView[]; records: IPRecordView[]; actions: unknown[]; events: string[]; recheckAtMs?: number }> = [
    { name: "consistent: nothing to do", services: [svc("a", ["10.0.0.5"])], records: [ipRec("10.0.0.5", "a")], actions: [], events: [] },
    { name: "headless and ExternalName Services hold no address", services: [svc("h", ["None"]), svc("e", [])], records: [], actions: [], events: [] },
    {
      name: "a Service's address without a record gets one",
      services: [svc("a", ["10.0.0.5"])],
      records: [],
      actions: [{ kind: "writeIP", ip: "10.0.0.5", family: "IPv4", service: { namespace: "ns", name: "a" }, replaces: undefined }],
      events: ["Service a ClusterIPNotAllocated: Cluster IP [IPv4]: 10.0.0.5 is not allocated; repairing"],
    },
    {
      name: "a record naming a Service that is gone is rewritten for the holder",
      services: [svc("a", ["10.0.0.5"])],
      records: [ipRec("10.0.0.5", "gone")],
      actions: [{ kind: "writeIP", ip: "10.0.0.5", family: "IPv4", service: { namespace: "ns", name: "a" }, replaces: "rv-10.0.0.5" }],
      events: ["Service a ClusterIPNotAllocated: the ClusterIP [IPv4]: 10.0.0.5 for Service ns/a has a wrong reference; repairing"],
    },
    {
      name: "an address two Services hold stays with the record's owner",
      services: [svc("a", ["10.0.0.5"]), svc("b", ["10.0.0.5"])],
      records: [ipRec("10.0.0.5", "b")],
      actions: [],
      events: ["Service a ClusterIPAlreadyAllocated: Cluster IP [IPv4]:10.0.0.5 was assigned to multiple services; please recreate service"],
    },
    {
      name: "a record without the allocator's labels is rewritten",
      services: [svc("a", ["10.0.0.5"])],
      records: [ipRec("10.0.0.5", "a", { labelsOk: false })],
      actions: [{ kind: "writeIP", ip: "10.0.0.5", family: "IPv4", service: { namespace: "ns", name: "a" }, replaces: "rv-10.0.0.5" }],
      events: [],
    },
    { name: "an address outside every Service CIDR is reported only", services: [svc("a", ["192.168.0.1"])], records: [], actions: [], events: ["Service a ClusterIPOutOfRange: Cluster IP [IPv4]: 192.168.0.1 is not within any configured Service CIDR; please recreate service"] },
    { name: "an invalid address is reported only", services: [svc("a", ["10.0.0.300"])], records: [], actions: [], events: ["Service a ClusterIPNotValid: Cluster IP 10.0.0.300 is not a valid IP; please recreate Service"] },
    {
      name: "an orphan record older than the grace period is released",
      services: [],
      records: [ipRec("10.0.0.7", "gone")],
      actions: [{ kind: "releaseIP", ip: "10.0.0.7", resourceVersion: "rv-10.0.0.7" }],
      events: ["IPAddress 10.0.0.7 IPAddressNotAllocated: IPAddress: 10.0.0.7 for Service ns/gone appears to have leaked: cleaning up"],
    },
    { name: "an orphan record within the grace period is kept and looked at again when it ends", services: [], records: [ipRec("10.0.0.7", "gone", { createdMs: NOW - 1000 })], actions: [], events: [], recheckAtMs: NOW - 1000 + GRACE },
    {
      name: "a record whose Service holds another address is released at once",
      services: [svc("a", ["10.0.0.9"])],
      records: [ipRec("10.0.0.9", "a"), ipRec("10.0.0.7", "a", { createdMs: NOW })],
      actions: [{ kind: "releaseIP", ip: "10.0.0.7", resourceVersion: "rv-10.0.0.7" }],
      events: ["IPAddress 10.0.0.7 IPAddressWrongReference: IPAddress: 10.0.0.7 for Service ns/a has a wrong reference; cleaning up"],
    },
    {
      name: "a managed record naming something else than a Service is released",
      services: [],
      records: [ipRec("10.0.0.8", undefined, { parentRef: { group: "gateway", resource: "gateways", namespace: "ns", name: "g" } })],
      actions: [{ kind: "releaseIP", ip: "10.0.0.8", resourceVersion: "rv-10.0.0.8" }],
      events: ["IPAddress 10.0.0.8 IPAddressNotAllocated: IPAddress 10.0.0.8 appears to have been modified, not referencing a Service &{gateway gateways ns g}: cleaning up"],
    },
    { name: "records of other managers are left alone", services: [], records: [ipRec("10.0.0.8", "gone", { managed: false })], actions: [], events: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const p = plan(c.services, c.records);
      expect(p.actions).toEqual(c.actions);
      expect(p.events).toEqual(c.events);
      expect(p.recheckAtMs).toBe(c.recheckAtMs);
    });
  }
});

describe("planRepair: node ports", () => {
  const cases: Array<{ name: string; services: ServiceView[]; records: PortRecordView[]; actions: unknown[]; events: string[]; recheckAtMs?: number }> = [
    { name: "consistent: nothing to do", services: [svc("a", [], [30001, 30002])], records: [portRec(30001, "a"), portRec(30002, "a")], actions: [], events: [] },
    {
      name: "a held port without a record gets one",
      services: [svc("a", [], [30001])],
      records: [],
      actions: [{ kind: "writePort", port: 30001, service: { namespace: "ns", name: "a" }, replaces: undefined }],
      events: ["Service a PortNotAllocated: Port 30001 is not allocated; repairing"],
    },
    {
      name: "a record of a Service that is gone is taken over by the holder",
      services: [svc("a", [], [30001])],
      records: [portRec(30001, "gone")],
      actions: [{ kind: "writePort", port: 30001, service: { namespace: "ns", name: "a" }, replaces: "rv-30001" }],
      events: ["Service a PortNotAllocated: Port 30001 is not allocated; repairing"],
    },
    { name: "a port two Services hold stays with the record's owner", services: [svc("a", [], [30001]), svc("b", [], [30001])], records: [portRec(30001, "b")], actions: [], events: ["Service a PortAlreadyAllocated: Port 30001 was assigned to multiple services; please recreate service"] },
    { name: "a port outside the range is reported only", services: [svc("a", [], [80])], records: [], actions: [], events: ["Service a PortOutOfRange: Port 80 is not within the port range 30000-32767; please recreate service"] },
    { name: "a record no Service holds is released after the grace period", services: [], records: [portRec(30005, "gone")], actions: [{ kind: "releasePort", port: 30005, resourceVersion: "rv-30005" }], events: [] },
    { name: "a young record no Service holds is kept until its grace ends", services: [svc("a", [], [])], records: [portRec(30005, "a", { createdMs: NOW - 10 })], actions: [], events: [], recheckAtMs: NOW - 10 + GRACE },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const p = plan(c.services, [], c.records);
      expect(p.actions).toEqual(c.actions);
      expect(p.events).toEqual(c.events);
      expect(p.recheckAtMs).toBe(c.recheckAtMs);
    });
  }
});
