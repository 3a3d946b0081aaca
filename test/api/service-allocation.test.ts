/**
 * Service ClusterIP and NodePort allocation over HTTPS against real replicas sharing one
 * store (`--service-cluster-ip-range 10.0.0.0/27`, `--service-node-port-range
 * 30000-30099`): addresses and ports filled in on create with the IP family fields,
 * requested values honoured, collisions and out-of-range values refused with the
 * platform's 422 messages, headless `None`, values kept by an update that leaves them
 * out, freed by a type change and by delete, dry run taking nothing, and concurrent
 * creates on two replicas never sharing an address (the range full answers 500).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { serviceNetwork } from "../../services/apiserver/registry/service-allocation.ts";
import { parseIP } from "../../services/apiserver/registry/service-ranges.ts";
import { startSecondReplica, startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import type { HttpsClient } from "../support/https-client.ts";

const network = serviceNetwork(["10.0.0.0/27"], "30000-30099");
const NS = "default";
const base = `/api/v1/namespaces/${NS}/services`;
let api: TestApiserver;
let second: { close(): Promise<void>; admin: HttpsClient } | undefined;

interface ServiceBody {
  metadata: { name: string; resourceVersion: string };
  spec: { clusterIP?: string; clusterIPs?: string[]; ipFamilies?: string[]; ipFamilyPolicy?: string; type?: string; ports: Array<{ port: number; nodePort?: number; name?: string }>; healthCheckNodePort?: number };
}
interface StatusBody {
  code: number;
  reason: string;
  message: string;
}

function service(name: string, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: "v1", kind: "Service", metadata: { name }, spec: { ports: [{ port: 80, name: "http" }], selector: { app: name }, ...spec } };
}

async function create(name: string, spec: Record<string, unknown> = {}, client: HttpsClient = api.admin, query = ""): Promise<{ status: number; body: ServiceBody & StatusBody }> {
  const res = await client.post(`${base}${query}`, service(name, spec));
  return { status: res.status, body: res.json<ServiceBody & StatusBody>() };
}

const inCidr = (ip: string | undefined) => {
  const v = parseIP(ip ?? "")?.value;
  return v !== undefined && v >= network.cidrs[0].first && v <= network.cidrs[0].last;
};

beforeAll(async () => {
  api = await startTestApiserver({ serviceNetwork: network });
  const r = await startSecondReplica(api, { serviceNetwork: network });
  second = { admin: r.admin, close: () => r.replica.close() };
});
afterAll(async () => {
  second?.admin.close();
  await second?.close();
  await api?.close();
});

describe("ClusterIP allocation", () => {
  it("fills clusterIP, clusterIPs, ipFamilies and ipFamilyPolicy on create", async () => {
    const { status, body } = await create("plain");
    expect(status, JSON.stringify(body)).toBe(201);
    expect(inCidr(body.spec.clusterIP)).toBe(true);
    expect(body.spec).toMatchObject({ clusterIPs: [body.spec.clusterIP], ipFamilies: ["IPv4"], ipFamilyPolicy: "SingleStack" });
    expect((await api.admin.get(`${base}/plain`)).json<ServiceBody>().spec.clusterIP).toBe(body.spec.clusterIP);
  });

  it("honours a requested address and refuses it to a second Service, and out of range", async () => {
    expect((await create("fixed", { clusterIP: "10.0.0.3" })).body.spec.clusterIPs).toEqual(["10.0.0.3"]);
    const taken = await create("fixed-again", { clusterIP: "10.0.0.3" }, second?.admin);
    expect(taken.status).toBe(422);
    expect(taken.body).toMatchObject({ reason: "Invalid", message: 'Service "fixed-again" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.3"}: failed to allocate IP 10.0.0.3: provided IP is already allocated' });
    const outside = await create("outside", { clusterIP: "10.1.0.5" });
    expect(outside.status).toBe(422);
    expect(outside.body.message).toBe('Service "outside" is invalid: spec.clusterIPs: Invalid value: []string{"10.1.0.5"}: failed to allocate IP 10.1.0.5: the provided network does not match the current range');
    const dual = await create("dual", { ipFamilyPolicy: "RequireDualStack" });
    expect(dual.body.message).toBe('Service "dual" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services');
  });

  it("headless Services get None; dry run takes nothing; delete frees the address", async () => {
    expect((await create("headless", { clusterIP: "None" })).body.spec).toMatchObject({ clusterIP: "None", clusterIPs: ["None"], ipFamilies: ["IPv4"], ipFamilyPolicy: "SingleStack" });
    const dry = await create("dry", { clusterIP: "10.0.0.4" }, api.admin, "?dryRun=All");
    expect(dry.status).toBe(201);
    expect(dry.body.spec.clusterIP).toBe("10.0.0.4");
    expect((await create("after-dry", { clusterIP: "10.0.0.4" })).status).toBe(201);
    expect((await api.admin.delete(`${base}/after-dry`)).status).toBe(200);
    expect((await create("reuse", { clusterIP: "10.0.0.4" }, second?.admin)).status).toBe(201);
  });
});

describe("NodePort allocation", () => {
  it("fills node ports in range, refuses a taken or outside one, keeps them on an update that leaves them out, frees them on a type change", async () => {
    const { status, body } = await create("np", { type: "NodePort" });
    expect(status, JSON.stringify(body)).toBe(201);
    const port = body.spec.ports[0].nodePort as number;
    expect(port).toBeGreaterThanOrEqual(30000);
    expect(port).toBeLessThanOrEqual(30099);

    expect((await create("np-fixed", { type: "NodePort", ports: [{ port: 80, name: "http", nodePort: 30042 }] })).status).toBe(201);
    const clash = await create("np-clash", { type: "NodePort", ports: [{ port: 80, nodePort: 30042 }] }, second?.admin);
    expect(clash.body).toMatchObject({ code: 422, message: 'Service "np-clash" is invalid: spec.ports[0].nodePort: Invalid value: 30042: provided port is already allocated' });
    const outside = await create("np-outside", { type: "NodePort", ports: [{ port: 80, nodePort: 31000 }] });
    expect(outside.body.message).toBe('Service "np-outside" is invalid: spec.ports[0].nodePort: Invalid value: 31000: provided port is not in the valid range. The range of valid ports is 30000-30099');

    // A replace with the manifest as written (no clusterIP, no nodePort) keeps both.
    const replaced = await api.admin.put(`${base}/np-fixed`, { ...service("np-fixed", { type: "NodePort" }), metadata: { name: "np-fixed", resourceVersion: (await api.admin.get(`${base}/np-fixed`)).json<ServiceBody>().metadata.resourceVersion } });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.json<ServiceBody>().spec.ports[0].nodePort).toBe(30042);
    expect(inCidr(replaced.json<ServiceBody>().spec.clusterIP)).toBe(true);

    const toClusterIP = await api.admin.patch(`${base}/np-fixed`, { spec: { type: "ClusterIP" } }, "application/merge-patch+json");
    expect(toClusterIP.status, toClusterIP.text).toBe(200);
    expect(toClusterIP.json<ServiceBody>().spec.ports[0].nodePort).toBeUndefined();
    expect((await create("np-freed", { type: "NodePort", ports: [{ port: 80, nodePort: 30042 }] }, second?.admin)).status).toBe(201);
  });

  it("LoadBalancer with the Local policy gets a health check node port", async () => {
    // Every random start the same: the health check port's search starts on the node port this create just took.
    const random = vi.spyOn(Math, "random").mockReturnValue(0.5);
    const { status, body } = await create("lb", { type: "LoadBalancer", externalTrafficPolicy: "Local" }).finally(() => random.mockRestore());
    expect(status, JSON.stringify(body)).toBe(201);
    expect(body.spec.healthCheckNodePort).toBeGreaterThanOrEqual(30000);
    expect(body.spec.healthCheckNodePort).not.toBe(body.spec.ports[0].nodePort);
  });
});

describe("two replicas, one range", () => {
  it("concurrent creates on both replicas never share an address; a full range is 500", async () => {
    const clients = [api.admin, second?.admin as HttpsClient];
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => create(`many-${i}`, {}, clients[i % 2])));
    const ok = results.filter((r) => r.status === 201);
    const ips = ok.map((r) => r.body.spec.clusterIP);
    expect(new Set(ips).size).toBe(ips.length);
    const list = (await api.admin.get(base)).json<{ items: ServiceBody[] }>().items;
    const stored = list.map((s) => s.spec.clusterIP).filter((ip) => ip && ip !== "None");
    expect(new Set(stored).size).toBe(stored.length);
    // 10.0.0.0/27 has 30 usable addresses: some creates found the range full.
    expect(stored.length).toBe(30);
    const full = results.find((r) => r.status !== 201);
    expect(full?.body).toMatchObject({ code: 500, message: "Internal error occurred: failed to allocate a serviceIP: range is full" });
  });
});
