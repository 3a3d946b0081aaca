/**
 * IPAddress and ServiceCIDR (networking/v1) over HTTPS and with kubectl 1.34, on one
 * replica in the kubernetes profile with `--service-cluster-ip-range 10.0.0.0/28`, first
 * alone, then with the controller manager's `service-cidr-controller` (grace period cut
 * to 200 ms): the default ServiceCIDR (the API Service's name), which the server marks
 * Ready and the controller gives its finalizer and its own Ready message; every allocated ClusterIP has its IPAddress with
 * parentRef to the Service, freed on delete, none for a dry run; an address outside
 * every ServiceCIDR is refused; a new ServiceCIDR widens the pool; a deleted ServiceCIDR
 * that still holds an address stays Terminating until the address goes; the platform's
 * validation messages, table columns and protobuf.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensurePki, writeAdminKubeconfig } from "../../services/apiserver/server/certs.ts";
import { serviceNetwork } from "../../services/apiserver/registry/service-allocation.ts";
import { runControllers, type RunningControllers } from "../../services/controller-manager/controllers.ts";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { layerClients, runClient, type RunResult } from "../support/clients.ts";

type Obj = Record<string, unknown>;
interface Meta {
  name: string;
  finalizers?: string[];
  deletionTimestamp?: string;
  resourceVersion: string;
}
interface Body {
  metadata: Meta;
  spec: { clusterIP?: string; cidrs?: string[]; parentRef?: Obj };
  status?: { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
  message?: string;
  code?: number;
}

let api: TestApiserver;
let controllerClient: HttpsObjectClient | undefined;
let controllers: RunningControllers | undefined;
let home = "";
let cidrs = "";
let ips = "";
const services = "/api/v1/namespaces/default/services";

beforeAll(async () => {
  api = await startTestApiserver({ profileId: "kubernetes", serviceNetwork: serviceNetwork(["10.0.0.0/28"]) });
  cidrs = `/apis/${api.profile.group("networking")}/v1/servicecidrs`;
  ips = `/apis/${api.profile.group("networking")}/v1/ipaddresses`;
  home = await mkdtemp(join(tmpdir(), "service-cidr-kubectl-"));
  const pki = await ensurePki(api.dir, { profile: api.profile });
  await writeAdminKubeconfig(join(home, "config"), { server: api.replica.url, caPem: pki.ca.certPem, certPem: pki.admin.certPem, keyPem: pki.admin.keyPem, user: "admin", clusterName: "t", contextName: "t" });
});

/** Starts the controller manager's ServiceCIDR controller (once) as an HTTPS client of the replica. */
async function ensureController(): Promise<void> {
  if (controllers) return;
  const pki = await ensurePki(api.dir, { profile: api.profile });
  controllerClient = new HttpsObjectClient({ server: api.replica.url, ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem, insecureSkipTlsVerify: false });
  controllers = await runControllers(controllerClient, { controllers: ["service-cidr-controller"], namespaceFinalizer: api.profile.namespaceFinalizer, settings: { serviceCidrDeletionGracePeriodMs: 200 } });
}
afterAll(async () => {
  controllers?.stop();
  controllerClient?.close();
  await api?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

const kubectl = (...args: string[]) => runClient(layerClients().kubectl, args, { env: { HOME: home, KUBECONFIG: join(home, "config") } });
const finalizer = () => `${api.profile.group("networking")}/service-cidr-finalizer`;
const serviceCidr = (name: string, list: string[]): Obj => ({ apiVersion: api.profile.apiVersion("networking", "v1"), kind: "ServiceCIDR", metadata: { name }, spec: { cidrs: list } });
const ipAddress = (name: string, parentRef: Obj): Obj => ({ apiVersion: api.profile.apiVersion("networking", "v1"), kind: "IPAddress", metadata: { name }, spec: { parentRef } });
const service = (name: string, spec: Obj = {}): Obj => ({ apiVersion: "v1", kind: "Service", metadata: { name }, spec: { ports: [{ port: 80 }], ...spec } });

/** Polls `read` until `done` holds (10 s at most); answers the last value read. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    value = await read();
  }
  return value;
}

const readCidr = async (name: string) => {
  const res = await api.admin.get(`${cidrs}/${name}`);
  return { status: res.status, body: res.json<Body>() };
};
const readyOf = (body: Body) => body.status?.conditions?.find((c) => c.type === "Ready");

async function createService(name: string, spec: Obj = {}): Promise<{ status: number; body: Body }> {
  const res = await api.admin.post(services, service(name, spec));
  return { status: res.status, body: res.json<Body>() };
}

describe("the default ServiceCIDR", () => {
  it("the API server alone marks the default one Ready and adds no finalizer; a new one is neither protected nor held", async () => {
    const { body } = await readCidr(api.profile.apiServiceName);
    expect(body.metadata.finalizers).toBeUndefined();
    expect(body.status?.conditions).toMatchObject([{ type: "Ready", status: "True", reason: "", message: `${api.profile.displayName} default Service CIDR is ready` }]);
    expect((await api.admin.post(cidrs, serviceCidr("bare", ["10.0.9.0/28"]))).status).toBe(201);
    const bare = await readCidr("bare");
    expect(bare.body.metadata.finalizers).toBeUndefined();
    expect(bare.body.status).toBeUndefined();
    expect((await api.admin.delete(`${cidrs}/bare`)).status).toBe(200);
    expect((await readCidr("bare")).status).toBe(404);
  });

  it("holds --service-cluster-ip-range; the controller adds the finalizer and Ready=True; kubectl lists it", async () => {
    await ensureController();
    const message = `${api.profile.displayName} Service CIDR is ready`;
    const { status, body } = await until(
      () => readCidr(api.profile.apiServiceName),
      (r) => readyOf(r.body)?.message === message && !!r.body.metadata.finalizers,
    );
    expect(status).toBe(200);
    expect(body.spec.cidrs).toEqual(["10.0.0.0/28"]);
    expect(body.metadata.finalizers).toEqual([finalizer()]);
    expect(body.status?.conditions).toMatchObject([{ type: "Ready", status: "True", reason: "", message }]);
    const out = await kubectl("get", "servicecidrs");
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^NAME\s+CIDRS\s+AGE\n/);
    expect(out.stdout).toMatch(new RegExp(`\\n${api.profile.apiServiceName}\\s+10\\.0\\.0\\.0/28\\s+\\d+s\\n`));
  });
});

describe("ClusterIP allocation and IPAddress objects", () => {
  beforeAll(ensureController);
  it("an allocated ClusterIP has its IPAddress naming the Service; delete releases it; kubectl shows the parent", async () => {
    const { status, body } = await createService("web");
    expect(status, JSON.stringify(body)).toBe(201);
    const ip = body.spec.clusterIP as string;
    const rec = await api.admin.get(`${ips}/${ip}`);
    expect(rec.status, rec.text).toBe(200);
    const record = rec.json<Body & { metadata: { uid?: string; creationTimestamp?: string } }>();
    expect(record.spec.parentRef).toEqual({ group: "", resource: "services", namespace: "default", name: "web" });
    expect(record.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    const out = await kubectl("get", "ipaddress", ip);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(new RegExp(`^NAME\\s+PARENTREF\\n${ip.replace(/\./g, "\\.")}\\s+services/default/web\\n$`));
    const pb = await api.admin.get(`${ips}/${ip}`, { accept: api.profile.protobufMediaType });
    expect(pb.headers["content-type"]).toContain(api.profile.protobufMediaType);

    expect((await api.admin.delete(`${services}/web`)).status).toBe(200);
    expect((await api.admin.get(`${ips}/${ip}`)).status).toBe(404);

    // A dry run shows an address but creates no IPAddress.
    const dry = await api.admin.post(`${services}?dryRun=All`, service("dry"));
    expect(dry.status, dry.text).toBe(201);
    expect((await api.admin.get(`${ips}/${dry.json<Body>().spec.clusterIP}`)).status).toBe(404);
  });

  it("refuses an address outside every ServiceCIDR; a new ServiceCIDR makes it allocatable", async () => {
    const outside = await createService("far", { clusterIP: "10.0.1.5" });
    expect(outside.status).toBe(422);
    expect(outside.body.message).toBe('Service "far" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.1.5"}: failed to allocate IP 10.0.1.5: the provided network does not match the current range');
    const created = await kubectlCreate(serviceCidr("extra", ["10.0.1.0/28"]));
    expect(created.code, created.stderr).toBe(0);
    const inside = await createService("far", { clusterIP: "10.0.1.5" });
    expect(inside.status, JSON.stringify(inside.body)).toBe(201);
    expect((await api.admin.get(`${ips}/10.0.1.5`)).json<Body>().spec.parentRef).toMatchObject({ resource: "services", name: "far" });
  });

  it("a deleted ServiceCIDR holding an address stays Terminating (Ready=False) until the Service goes", async () => {
    // The controller protects it before it is deleted.
    expect((await until(() => readCidr("extra"), (r) => !!r.body.metadata.finalizers)).body.metadata.finalizers).toEqual([finalizer()]);
    const del = await kubectl("delete", "servicecidr", "extra", "--wait=false");
    expect(del.code, del.stderr).toBe(0);
    const kept = (await until(() => readCidr("extra"), (r) => readyOf(r.body)?.status === "False")).body;
    expect(kept.metadata.deletionTimestamp).toBeDefined();
    expect(kept.metadata.finalizers).toEqual([finalizer()]);
    expect(kept.status?.conditions).toMatchObject([{ type: "Ready", status: "False", reason: "Terminating", message: "There are still IPAddresses referencing the ServiceCIDR, please remove them or create a new ServiceCIDR" }]);
    // Nothing new comes from a Terminating ServiceCIDR.
    expect((await createService("late", { clusterIP: "10.0.1.6" })).status).toBe(422);
    // It stays while the address is held (well past the grace period).
    await new Promise((r) => setTimeout(r, 500));
    expect((await readCidr("extra")).status).toBe(200);

    expect((await api.admin.delete(`${services}/far`)).status).toBe(200);
    expect((await until(() => readCidr("extra"), (r) => r.status === 404)).status).toBe(404);
  });

  it("a deleted ServiceCIDR holding an address goes once a wider ServiceCIDR holds the address", async () => {
    expect((await api.admin.post(cidrs, serviceCidr("inner", ["10.0.4.0/28"]))).status).toBe(201);
    expect((await createService("inside", { clusterIP: "10.0.4.3" })).status).toBe(201);
    await until(() => readCidr("inner"), (r) => !!r.body.metadata.finalizers);
    expect((await api.admin.delete(`${cidrs}/inner`)).status).toBe(200);
    expect(readyOf((await until(() => readCidr("inner"), (r) => readyOf(r.body)?.status === "False")).body)?.reason).toBe("Terminating");
    expect((await api.admin.post(cidrs, serviceCidr("outer", ["10.0.4.0/24"]))).status).toBe(201);
    expect((await until(() => readCidr("inner"), (r) => r.status === 404)).status).toBe(404);
    expect((await api.admin.get(`${ips}/10.0.4.3`)).status).toBe(200);
    expect((await api.admin.delete(`${services}/inside`)).status).toBe(200);
  });

  it("an unused ServiceCIDR goes after delete once the controller drops its finalizer", async () => {
    expect((await api.admin.post(cidrs, serviceCidr("spare", ["10.0.2.0/28"]))).status).toBe(201);
    await until(() => readCidr("spare"), (r) => !!r.body.metadata.finalizers);
    expect((await api.admin.delete(`${cidrs}/spare`)).status).toBe(200);
    expect((await until(() => readCidr("spare"), (r) => r.status === 404)).status).toBe(404);
  });
});

async function kubectlCreate(obj: Obj): Promise<RunResult> {
  const res = await runClient(layerClients().kubectl, ["create", "-f", "-"], { env: { HOME: home, KUBECONFIG: join(home, "config") }, input: JSON.stringify(obj) });
  return res;
}

describe("validation", () => {
  beforeAll(ensureController);
  it.each([
    ["a non-canonical IPv6 name", "2001:DB8::1", { resource: "services", name: "a" }, ['metadata.name: Invalid value: "2001:DB8::1": must be in canonical form ("2001:db8::1")']],
    ["leading zeros", "10.0.0.010", { resource: "services", name: "a" }, ['metadata.name: Invalid value: "10.0.0.010": must not have leading 0s']],
    ["not an IP", "web", { resource: "services", name: "a" }, ['metadata.name: Invalid value: "web": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']],
    ["a parentRef without resource and name", "10.9.0.1", { group: "Bad_Group" }, ["spec.parentRef.group: Invalid value: \"Bad_Group\"", "spec.parentRef.resource: Required value", "spec.parentRef.name: Required value"]],
  ])("IPAddress: %s", async (_label, name, parentRef, expected) => {
    const res = await api.admin.post(ips, ipAddress(name, parentRef));
    expect(res.status, res.text).toBe(422);
    for (const part of expected) expect(res.json<Body>().message).toContain(part);
  });

  it("IPAddress: an IPv6 name is accepted and its parentRef cannot change", async () => {
    const created = await api.admin.post(ips, ipAddress("2001:db8::7", { group: "gateway.example.com", resource: "gateways", namespace: "n", name: "g" }));
    expect(created.status, created.text).toBe(201);
    const body = created.json<Body>();
    const moved = await api.admin.put(`${ips}/2001:db8::7`, { ...body, spec: { parentRef: { resource: "gateways", name: "h" } } });
    expect(moved.status).toBe(422);
    expect(moved.json<Body>().message).toContain("spec.parentRef: Invalid value");
    expect(moved.json<Body>().message).toContain("field is immutable");
    const table = await api.admin.get(`${ips}/2001:db8::7`, { accept: `application/json;as=Table;v=v1;g=${api.profile.group("meta")}` });
    expect(table.json<{ rows: Array<{ cells: unknown[] }> }>().rows[0].cells).toEqual(["2001:db8::7", "gateways.gateway.example.com/n/g"]);
  });

  it.each([
    ["no CIDR", [], ["spec.cidrs: Required value: at least one CIDR required"]],
    ["three CIDRs", ["10.1.0.0/24", "10.2.0.0/24", "fd00::/64"], ['spec.cidrs: Invalid value: networking.ServiceCIDRSpec{CIDRs:[]string{"10.1.0.0/24", "10.2.0.0/24", "fd00::/64"}}: may only hold up to 2 values']],
    ["two of one family", ["10.1.0.0/24", "10.2.0.0/24"], ['spec.cidrs: Invalid value: []string{"10.1.0.0/24", "10.2.0.0/24"}: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64']],
    ["host bits", ["10.1.0.1/24"], ['spec.cidrs[0]: Invalid value: "10.1.0.1/24": must not have bits set beyond the prefix length']],
    ["not a CIDR", ["10.1.0.0"], ['spec.cidrs[0]: Invalid value: "10.1.0.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']],
    ["upper-case IPv6", ["FD00::/64"], ['spec.cidrs[0]: Invalid value: "FD00::/64": must be in canonical form ("fd00::/64")']],
  ])("ServiceCIDR: %s", async (_label, list, expected) => {
    const res = await api.admin.post(cidrs, serviceCidr("bad", list));
    expect(res.status, res.text).toBe(422);
    for (const part of expected) expect(res.json<Body>().message).toContain(part);
  });

  it("ServiceCIDR: cidrs are immutable, but a single-family one may add the other family", async () => {
    expect((await api.admin.post(cidrs, serviceCidr("grow", ["10.3.0.0/28"]))).status).toBe(201);
    // The controller's writes settle first, so the updates below carry the latest resourceVersion.
    const created = (await until(() => readCidr("grow"), (r) => !!r.body.metadata.finalizers && readyOf(r.body)?.status === "True")).body;
    const changed = await api.admin.put(`${cidrs}/grow`, { ...created, spec: { cidrs: ["10.4.0.0/28"] } });
    expect(changed.json<Body>().message).toContain('spec.cidrs[0]: Invalid value: "10.4.0.0/28": field is immutable');
    const dual = await api.admin.put(`${cidrs}/grow`, { ...created, spec: { cidrs: ["10.3.0.0/28", "fd00:10::/120"] } });
    expect(dual.status, dual.text).toBe(200);
    expect(dual.json<Body>().spec.cidrs).toEqual(["10.3.0.0/28", "fd00:10::/120"]);
    expect((await api.admin.delete(`${cidrs}/grow`)).status).toBe(200);
    expect((await until(() => readCidr("grow"), (r) => r.status === 404)).status).toBe(404);
  });
});
