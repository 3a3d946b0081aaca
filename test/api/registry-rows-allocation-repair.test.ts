/**
 * Repair of ClusterIP and NodePort allocations over HTTPS (the platform's ipallocator and
 * portallocator repair loops; this replica repairs every 300 ms and releases orphans after
 * 2 s instead of 3 minutes and 60 s): an orphan IPAddress written by an admin is kept
 * through its grace period and then released with an IPAddressNotAllocated Event; a
 * Service whose IPAddress record is gone gets it back with a ClusterIPNotAllocated Event;
 * a node port record a crash left without its Service is released after the grace period
 * too (another Service then gets the port); a node port whose record a crash lost is
 * allocated again (another Service asking for it is then refused) with a PortNotAllocated
 * Event.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allocationRecord, NODE_PORT_RECORD_PREFIX, serviceNetwork } from "../../services/apiserver/registry/service-allocation.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

const GRACE_MS = 2000;
/** creationTimestamp has whole seconds: a record's age is known to within one second. */
const TIMESTAMP_PRECISION_MS = 1000;
const NS = "default";
const services = `/api/v1/namespaces/${NS}/services`;
let api: TestApiserver;
let ipAddresses: string;

interface Obj {
  metadata: { name: string; labels?: Record<string, string> };
  spec: { clusterIP?: string; parentRef?: Record<string, string>; ports?: Array<{ nodePort?: number }> };
}
interface EventObj {
  reason: string;
  message: string;
  type: string;
  involvedObject: { kind: string; name: string };
  source?: { component?: string };
}

beforeAll(async () => {
  api = await startTestApiserver({ profileId: "kubernetes", serviceNetwork: serviceNetwork(["10.0.0.0/24"], "30000-30099"), allocationRepair: { intervalMs: 300, graceMs: GRACE_MS } });
  ipAddresses = `/apis/${api.profile.group("networking")}/v1/ipaddresses`;
});
afterAll(async () => {
  await api?.close();
});

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 6000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function eventFor(reason: string, name: string, namespace = NS): Promise<EventObj> {
  return until(`${reason} event for ${name}`, async () => {
    const list = (await api.admin.get(`/api/v1/namespaces/${namespace}/events`)).json<{ items: EventObj[] }>();
    return list.items.find((e) => e.reason === reason && e.involvedObject.name === name);
  });
}

/** The storage under the services registry: where a crash's leftovers are set up (node port records have no API). */
function servicesStorage() {
  const storage = api.replica.catalog.lookup("", "v1", "services")?.registry.storage;
  if (!storage) throw new Error("no services storage");
  return storage;
}

function nodePortService(name: string, nodePort?: number): Record<string, unknown> {
  return { apiVersion: "v1", kind: "Service", metadata: { name }, spec: { type: "NodePort", selector: { app: name }, ports: [{ port: 80, ...(nodePort ? { nodePort } : {}) }] } };
}

describe("allocation repair", () => {
  it("releases orphan records after their grace period: an IPAddress (IPAddressNotAllocated event) and a node port", async () => {
    // A crash after the allocation and before the Service write: a node port record of a Service that never was.
    await servicesStorage().create(`${NODE_PORT_RECORD_PREFIX}30077`, allocationRecord("v1", "ServiceNodePort", "30077", { namespace: NS, name: "never-written" }));
    const labels = { [api.profile.labels.ipAddressFamily]: "IPv4", [api.profile.labels.ipAddressManagedBy]: api.profile.ipAllocatorName };
    const orphan = { apiVersion: `${api.profile.group("networking")}/v1`, kind: "IPAddress", metadata: { name: "10.0.0.200", labels }, spec: { parentRef: { group: "", resource: "services", namespace: NS, name: "never-written" } } };
    const created = await api.admin.post(ipAddresses, orphan);
    expect(created.status, created.text).toBe(201);
    const start = Date.now();
    await new Promise((r) => setTimeout(r, 600)); // a few passes within the grace period
    if (Date.now() - start < GRACE_MS - TIMESTAMP_PRECISION_MS) {
      expect((await api.admin.get(`${ipAddresses}/10.0.0.200`)).status).toBe(200);
      const early = await api.admin.post(services, nodePortService("wants-77", 30077));
      expect(early.status, early.text).toBe(422);
    }
    await until("the orphan's release", async () => ((await api.admin.get(`${ipAddresses}/10.0.0.200`)).status === 404 ? true : undefined));
    expect(Date.now() - start).toBeGreaterThanOrEqual(GRACE_MS - TIMESTAMP_PRECISION_MS);
    const ev = await eventFor("IPAddressNotAllocated", "10.0.0.200");
    expect(ev).toMatchObject({ type: "Warning", message: "IPAddress: 10.0.0.200 for Service default/never-written appears to have leaked: cleaning up", involvedObject: { kind: "IPAddress" }, source: { component: "ipallocator-repair-controller" } });
    // The orphan port is free again: another Service gets it.
    await until("the orphan port's release", async () => {
      const res = await api.admin.post(services, nodePortService("wants-77", 30077));
      return res.status === 201 ? true : undefined;
    });
  });

  it("gives a Service its IPAddress record back, with a ClusterIPNotAllocated event", async () => {
    const res = await api.admin.post(services, { apiVersion: "v1", kind: "Service", metadata: { name: "lost-ip" }, spec: { selector: { app: "x" }, ports: [{ port: 80 }] } });
    expect(res.status, res.text).toBe(201);
    const ip = res.json<Obj>().spec.clusterIP as string;
    const record = (await api.admin.get(`${ipAddresses}/${ip}`)).json<Obj>();
    expect(record.metadata.labels).toEqual({ [api.profile.labels.ipAddressFamily]: "IPv4", [api.profile.labels.ipAddressManagedBy]: api.profile.ipAllocatorName });
    expect((await api.admin.delete(`${ipAddresses}/${ip}`)).status).toBe(200);
    const back = await until("the record's return", async () => {
      const got = await api.admin.get(`${ipAddresses}/${ip}`);
      return got.status === 200 ? got.json<Obj>() : undefined;
    });
    expect(back.spec.parentRef).toEqual({ group: "", resource: "services", namespace: NS, name: "lost-ip" });
    expect(back.metadata.labels?.[api.profile.labels.ipAddressManagedBy]).toBe(api.profile.ipAllocatorName);
    const ev = await eventFor("ClusterIPNotAllocated", "lost-ip");
    expect(ev).toMatchObject({ type: "Warning", message: `Cluster IP [IPv4]: ${ip} is not allocated; repairing`, involvedObject: { kind: "Service" } });

    // A record of the Service without the allocator's labels is rewritten in place.
    expect((await api.admin.delete(`${ipAddresses}/${ip}`)).status).toBe(200);
    const bare = { apiVersion: `${api.profile.group("networking")}/v1`, kind: "IPAddress", metadata: { name: ip }, spec: { parentRef: back.spec.parentRef } };
    const recreated = await api.admin.post(ipAddresses, bare);
    expect([200, 201, 409]).toContain(recreated.status); // 409: the repair was quicker
    await until("the labels", async () => {
      const got = (await api.admin.get(`${ipAddresses}/${ip}`)).json<Obj>();
      return got.metadata.labels?.[api.profile.labels.ipAddressManagedBy] === api.profile.ipAllocatorName ? true : undefined;
    });
  });

  it("allocates again a node port whose record was lost", async () => {
    // A crash that lost a Service's record: the port looks free until the repair writes it again.
    const held = await api.admin.post(services, nodePortService("holds-port"));
    expect(held.status, held.text).toBe(201);
    const port = held.json<Obj>().spec.ports?.[0].nodePort as number;
    await servicesStorage().delete(`${NODE_PORT_RECORD_PREFIX}${port}`);
    const ev = await eventFor("PortNotAllocated", "holds-port");
    expect(ev).toMatchObject({ type: "Warning", message: `Port ${port} is not allocated; repairing`, source: { component: "portallocator-repair-controller" } });
    const taken = await api.admin.post(services, nodePortService("wants-same", port));
    expect(taken.status, taken.text).toBe(422);
    expect(taken.text).toContain("provided port is already allocated");
  });
});
