/**
 * The aggregation layer over HTTPS: local APIServices for the built-in group versions;
 * an APIService with a service, resolved to its EndpointSlice's address, becomes
 * Available (Passed) through the discovery check; requests for its group version are
 * proxied to a real HTTPS backend started by the test with the front-proxy identity
 * headers (client-sent ones dropped) and the proxy client certificate; list and watch
 * stream through; /apis, /apis/<group> and aggregated discovery hold the backend's group;
 * unavailable backends give the platform's reasons and a 503, other groups unaffected;
 * caBundle and insecureSkipTLSVerify decide the backend's verification; /openapi/v2 merges
 * the backend's document (renaming a conflicting definition) and /openapi/v3 serves its
 * group version's document; kubectl 1.34 gets and explains the aggregated resource.
 */
import { X509Certificate } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCA, createClientCert, ensurePki, loadCA, writeAdminKubeconfig } from "../../services/apiserver/server/certs.ts";
import { AGGREGATED_GROUP as G, AGGREGATED_VERSION as V, startAggregatedServer, type AggregatedServer } from "../support/aggregated-server.ts";
import { statusError } from "../../shared/api/status.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { HttpsClient } from "../support/https-client.ts";
import { layerClients, runClient } from "../support/clients.ts";

type Obj = Record<string, unknown>;
type Condition = { type: string; status: string; reason: string; message: string };

let api: TestApiserver;
let backend: AggregatedServer;
const NS = "default";
const PROXY_CN = "front-proxy-client";
/** A user the test's authorizer refuses everything in the aggregated group. */
const OUTSIDER = "outsider";

beforeAll(async () => {
  const proxyCa = await createCA({ commonName: "front-proxy-ca" });
  const proxyClient = await createClientCert(proxyCa, { user: PROXY_CN });
  api = await startTestApiserver({
    profileId: "kubernetes",
    aggregator: { proxyClientCert: { certPem: proxyClient.certPem, keyPem: proxyClient.keyPem }, availabilityIntervalMs: 200 },
    authorize: async (user, info) => {
      if (user.username === OUTSIDER && info.apiGroup === G) throw statusError({ code: 403, reason: "Forbidden", message: `${G} is not for ${OUTSIDER}` });
    },
  });
  const localV2 = (await api.admin.get("/openapi/v2")).json<{ definitions: Record<string, unknown> }>();
  objectMetaName = Object.keys(localV2.definitions).find((k) => k.endsWith(".ObjectMeta")) ?? "";
  expect(objectMetaName).not.toBe("");
  backend = await startAggregatedServer(["metrics-api.default.svc", "other.default.svc"], proxyCa.certPem, backendOpenApi());
  await service("metrics-api", backend.port);
  const res = await api.admin.post(apiServicesPath(), apiService(V, G, { service: { namespace: NS, name: "metrics-api", port: 443 }, caBundle: backend.caBundle }));
  expect(res.status, res.text).toBe(201);
  await waitCondition(`${V}.${G}`, (c) => c.status === "True");
});
afterAll(async () => {
  await backend?.close();
  await api?.close();
});

let objectMetaName = "";
const POD_METRICS_DEF = `com.example.metrics.${V}.PodMetrics`;
const POD_METRICS_PATH = `/apis/${G}/${V}/namespaces/{namespace}/podmetrics`;

/** The backend's OpenAPI: its own ObjectMeta (a conflicting definition), a path of its group, and paths that are not its to give. */
function backendOpenApi(): { v2: Obj; v3: Obj } {
  const podMetrics = {
    type: "object",
    description: "PodMetrics sets resource usage metrics of a pod.",
    properties: { metadata: { $ref: `#/definitions/${objectMetaName}` }, window: { type: "string", description: "The length of the sample window." } },
    [api.profile.ext.groupVersionKind]: [{ group: G, version: V, kind: "PodMetrics" }],
  };
  const v3Schema = { ...podMetrics, properties: { ...podMetrics.properties, metadata: { type: "object" } } };
  return {
    v2: {
      swagger: "2.0",
      info: { title: "metrics", version: "v0" },
      paths: {
        [POD_METRICS_PATH]: { get: { operationId: "listPodMetrics", responses: { "200": { schema: { $ref: `#/definitions/${POD_METRICS_DEF}` } } } } },
        "/api/v1/pods": { get: { operationId: "backendPods" } },
        "/version": { get: { operationId: "backendVersion" } },
      },
      definitions: { [objectMetaName]: { type: "object", description: "the backend's own ObjectMeta" }, [POD_METRICS_DEF]: podMetrics },
    },
    v3: {
      openapi: "3.0.0",
      info: { title: "metrics", version: "v0" },
      paths: {
        [`${POD_METRICS_PATH}/{name}`]: {
          get: {
            operationId: "readPodMetrics",
            [api.profile.ext.action]: "get",
            [api.profile.ext.groupVersionKind]: { group: G, version: V, kind: "PodMetrics" },
            responses: { "200": { description: "OK", content: { "application/json": { schema: { $ref: `#/components/schemas/${POD_METRICS_DEF}` } } } } },
          },
        },
      },
      components: { schemas: { [POD_METRICS_DEF]: v3Schema } },
    },
  };
}

const apiServicesPath = (name = "") => `/apis/${api.profile.group("apiregistration")}/v1/apiservices${name ? `/${name}` : ""}`;

function apiService(version: string, group: string, spec: Obj): Obj {
  return { apiVersion: api.profile.apiVersion("apiregistration", "v1"), kind: "APIService", metadata: { name: `${version}.${group}` }, spec: { group, version, groupPriorityMinimum: 100, versionPriority: 100, ...spec } };
}

/** A Service with port 443 (name https) and an EndpointSlice to 127.0.0.1:`port`. */
async function service(name: string, port: number | undefined): Promise<void> {
  const svc = await api.admin.post(`/api/v1/namespaces/${NS}/services`, { apiVersion: "v1", kind: "Service", metadata: { name }, spec: { ports: [{ name: "https", port: 443, targetPort: 8443 }] } });
  expect(svc.status, svc.text).toBe(201);
  if (port === undefined) return;
  const disc = api.profile.group("discovery");
  const slice = await api.admin.post(`/apis/${disc}/v1/namespaces/${NS}/endpointslices`, {
    apiVersion: `${disc}/v1`,
    kind: "EndpointSlice",
    metadata: { name: `${name}-1`, labels: { [api.profile.labels.serviceName]: name } },
    addressType: "IPv4",
    endpoints: [{ addresses: ["127.0.0.1"], conditions: { ready: true } }],
    ports: [{ name: "https", port, protocol: "TCP" }],
  });
  expect(slice.status, slice.text).toBe(201);
}

async function waitCondition(name: string, ok: (c: Condition) => boolean, timeoutMs = 10_000): Promise<Condition> {
  const start = Date.now();
  let last: Condition | undefined;
  for (;;) {
    const res = await api.admin.get(apiServicesPath(name));
    last = res.json<{ status?: { conditions?: Condition[] } }>().status?.conditions?.find((c) => c.type === "Available");
    if (last && ok(last)) return last;
    if (Date.now() - start > timeoutMs) throw new Error(`APIService ${name}: condition ${JSON.stringify(last)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("APIService objects", () => {
  it("has local APIServices for the built-in group versions, Available with reason Local", async () => {
    const apps = await waitCondition(`v1.${api.profile.group("apps")}`, (c) => c.status === "True");
    expect(apps).toMatchObject({ reason: "Local", message: "Local APIServices are always available" });
    const core = (await api.admin.get(apiServicesPath("v1."))).json<{ spec: Obj }>();
    expect(core.spec).toMatchObject({ group: "", version: "v1", groupPriorityMinimum: 18000, versionPriority: 1 });
  });

  it("validates an APIService as the platform does", async () => {
    const bad = apiService("v1", "wrong.example.com", { groupPriorityMinimum: 0, service: { namespace: NS, name: "x", port: 443 }, insecureSkipTLSVerify: true, caBundle: backend.caBundle });
    (bad.metadata as Obj).name = "v1.other.example.com";
    const res = await api.admin.post(apiServicesPath(), bad);
    expect(res.status).toBe(422);
    const message = res.json<{ message: string }>().message;
    expect(message).toContain(`metadata.name: Invalid value: "v1.other.example.com": must be \`spec.version+"."+spec.group\`: "v1.wrong.example.com"`);
    expect(message).toContain("spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000");
    expect(message).toContain("spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present");
  });

  it("reports Passed once the backend's discovery answers", async () => {
    expect(await waitCondition(`${V}.${G}`, (c) => c.status === "True")).toMatchObject({ reason: "Passed", message: "all checks passed" });
  });
});

describe("the proxy", () => {
  it("forwards a get with the caller's identity as front-proxy headers and the proxy client certificate, never the client's own identity headers", async () => {
    // The admin client is authenticated by its certificate: CN is the user, each O a group.
    const subject = new X509Certificate((await ensurePki(api.dir, { profile: api.profile })).admin.certPem).subject.split("\n");
    const me = { username: subject.find((l) => l.startsWith("CN="))?.slice(3), groups: subject.filter((l) => l.startsWith("O=")).map((l) => l.slice(2)) };
    expect(me.groups.length).toBeGreaterThan(0);
    const res = await api.admin.get(`/apis/${G}/${V}/namespaces/${NS}/podmetrics/p1`, { "x-remote-user": "mallory", "x-remote-group": "system:masters-forged", "x-remote-extra-scopes": "all" });
    expect(res.status, res.text).toBe(200);
    const identity = res.json<{ identity: { user: string; groups: string[]; extra: Obj; clientCN: string; authorization: string } }>().identity;
    expect(identity.user).toBe(me.username);
    expect(identity.groups).toEqual(expect.arrayContaining(me.groups));
    expect(identity.groups).not.toContain("system:masters-forged");
    expect(identity.extra).toEqual({});
    expect(identity.clientCN).toBe(PROXY_CN);
    expect(identity.authorization).toBe("");
  });

  it("authorizes before proxying: a refused user gets 403 and the backend sees nothing", async () => {
    const pki = await ensurePki(api.dir, { profile: api.profile });
    const cert = await createClientCert(await loadCA(pki.ca.certPem, pki.ca.keyPem), { user: OUTSIDER });
    const outsider = new HttpsClient(api.replica.url, { ca: pki.ca.certPem, cert: cert.certPem, key: cert.keyPem });
    try {
      const before = backend.requests.length;
      const res = await outsider.get(`/apis/${G}/${V}/namespaces/${NS}/podmetrics/p1`);
      expect(res.status).toBe(403);
      expect(res.json()).toMatchObject({ reason: "Forbidden", message: `${G} is not for ${OUTSIDER}` });
      expect(backend.requests.slice(before).filter((r) => r.path.includes("/podmetrics"))).toEqual([]);
      expect((await outsider.get("/api/v1/namespaces")).status).toBe(200);
    } finally {
      outsider.close();
    }
  });

  it("lists and streams a watch through", async () => {
    const list = await api.admin.get(`/apis/${G}/${V}/namespaces/${NS}/podmetrics`);
    expect(list.status).toBe(200);
    expect(list.json<{ items: Array<{ metadata: { name: string } }> }>().items.map((i) => i.metadata.name)).toEqual(["p1", "p2"]);
    const w = api.admin.watch(`/apis/${G}/${V}/namespaces/${NS}/podmetrics?watch=true`);
    try {
      const events = await w.waitFor(2, 5000);
      expect(events.map((e) => [e.type, (e.object.metadata as Obj).name])).toEqual([
        ["ADDED", "w1"],
        ["ADDED", "w2"],
      ]);
      // Streamed as the backend writes: the second event comes when it is sent, not with the first.
      expect(w.arrivals[1] - w.arrivals[0]).toBeGreaterThanOrEqual(100);
    } finally {
      w.stop();
    }
  });

  it("merges the backend's group into /apis, /apis/<group> and aggregated discovery; /apis/<group>/<version> comes from the backend", async () => {
    const groups = (await api.admin.get("/apis")).json<{ groups: Array<{ name: string; versions: Array<{ version: string }>; preferredVersion: { version: string } }> }>().groups;
    expect(groups.find((g) => g.name === G)).toEqual({ name: G, versions: [{ groupVersion: `${G}/${V}`, version: V }], preferredVersion: { groupVersion: `${G}/${V}`, version: V } });
    expect(groups.some((g) => g.name === api.profile.group("apiregistration"))).toBe(true);
    expect((await api.admin.get(`/apis/${G}`)).json()).toMatchObject({ kind: "APIGroup", name: G, preferredVersion: { version: V } });
    const agg = await api.admin.get("/apis", { accept: `application/json;g=${api.profile.group("apidiscovery")};v=v2;as=APIGroupDiscoveryList` });
    const item = agg.json<{ items: Array<{ metadata: { name: string }; versions: Array<{ version: string; freshness: string; resources: Array<{ resource: string; scope: string; verbs: string[] }> }> }> }>().items.find((i) => i.metadata.name === G);
    expect(item?.versions).toEqual([{ version: V, freshness: "Current", resources: [{ resource: "podmetrics", responseKind: { group: G, version: V, kind: "PodMetrics" }, scope: "Namespaced", singularResource: "podmetrics", verbs: ["get", "list", "watch"] }] }]);
    const before = backend.requests.length;
    expect((await api.admin.get(`/apis/${G}/${V}`)).json()).toMatchObject({ kind: "APIResourceList", groupVersion: `${G}/${V}` });
    expect(backend.requests.slice(before).map((r) => r.path)).toContain(`/apis/${G}/${V}`);
  });
});

describe("aggregated OpenAPI", () => {
  it("merges the backend's /apis/ paths into /openapi/v2, renaming its conflicting definition; other paths stay this server's", async () => {
    type V2 = { paths: Record<string, { get?: { operationId?: string; responses?: Record<string, { schema?: { $ref?: string } }> } }>; definitions: Record<string, { description?: string; properties?: Record<string, { $ref?: string }> }> };
    let doc: V2 | undefined;
    for (let i = 0; i < 200 && !doc?.paths[POD_METRICS_PATH]; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 50));
      doc = (await api.admin.get("/openapi/v2")).json<V2>();
    }
    expect(doc?.paths[POD_METRICS_PATH]?.get?.responses?.["200"]?.schema?.$ref).toBe(`#/definitions/${POD_METRICS_DEF}`);
    const v2 = doc as V2;
    expect(v2.definitions[POD_METRICS_DEF].properties?.metadata.$ref).toBe(`#/definitions/${objectMetaName}_v2`);
    expect(v2.definitions[`${objectMetaName}_v2`]).toEqual({ type: "object", description: "the backend's own ObjectMeta" });
    expect(v2.definitions[objectMetaName].description).not.toBe("the backend's own ObjectMeta");
    expect(v2.paths["/api/v1/pods"]?.get?.operationId).not.toBe("backendPods");
    expect(v2.paths["/version"]?.get?.operationId).not.toBe("backendVersion");
  });

  it("lists the aggregated group version in the /openapi/v3 index and serves the backend's document, fetched once per hash", async () => {
    const index = (await api.admin.get("/openapi/v3")).json<{ paths: Record<string, { serverRelativeURL: string }> }>().paths;
    const entry = index[`apis/${G}/${V}`];
    expect(entry?.serverRelativeURL).toMatch(new RegExp(`^/openapi/v3/apis/${G.replaceAll(".", "\\.")}/${V}\\?hash=[0-9A-F]+$`));
    expect(index[`apis/${api.profile.group("apps")}/v1`]).toBeDefined();
    const fetches = () => backend.requests.filter((r) => r.path === `/openapi/v3/apis/${G}/${V}`).length;
    const first = await api.admin.get(entry.serverRelativeURL);
    expect(first.status, first.text).toBe(200);
    expect(first.json<{ components: { schemas: Record<string, unknown> } }>().components.schemas[POD_METRICS_DEF]).toMatchObject({ description: "PodMetrics sets resource usage metrics of a pod." });
    const after = fetches();
    expect((await api.admin.get(`/openapi/v3/apis/${G}/${V}`)).status).toBe(200);
    expect(fetches()).toBe(after);
    expect((await api.admin.get(`/openapi/v3/apis/${G}/v9`)).status).toBe(404);
  });
});

describe("unavailable backends", () => {
  it("reports ServiceNotFound, EndpointsNotFound, MissingEndpoints and FailedDiscoveryCheck, answers 503 'service unavailable', and other groups are unaffected", async () => {
    const create = async (group: string, name: string) => {
      const res = await api.admin.post(apiServicesPath(), apiService("v1", group, { service: { namespace: NS, name, port: 443 }, caBundle: backend.caBundle }));
      expect(res.status, res.text).toBe(201);
    };
    await create("absent.example.com", "absent");
    expect(await waitCondition("v1.absent.example.com", (c) => c.status === "False")).toMatchObject({ reason: "ServiceNotFound", message: `service/absent in "${NS}" is not present` });
    await service("noeps", undefined);
    await create("noeps.example.com", "noeps");
    expect(await waitCondition("v1.noeps.example.com", (c) => c.status === "False")).toMatchObject({ reason: "EndpointsNotFound", message: `cannot find endpoints for service/noeps in "${NS}"` });
    await service("portless", undefined);
    const disc = api.profile.group("discovery");
    const slice = await api.admin.post(`/apis/${disc}/v1/namespaces/${NS}/endpointslices`, {
      apiVersion: `${disc}/v1`,
      kind: "EndpointSlice",
      metadata: { name: "portless-1", labels: { [api.profile.labels.serviceName]: "portless" } },
      addressType: "IPv4",
      endpoints: [{ addresses: ["127.0.0.1"], conditions: { ready: true } }],
      ports: [{ name: "metrics", port: backend.port, protocol: "TCP" }],
    });
    expect(slice.status, slice.text).toBe(201);
    await create("portless.example.com", "portless");
    expect(await waitCondition("v1.portless.example.com", (c) => c.status === "False")).toMatchObject({ reason: "MissingEndpoints", message: `endpoints for service/portless in "${NS}" have no addresses with port name "https"` });
    const gone = await startAggregatedServer(["down.default.svc"]);
    await gone.close();
    await service("down", gone.port);
    await create("down.example.com", "down");
    const failed = await waitCondition("v1.down.example.com", (c) => c.status === "False");
    expect(failed.reason).toBe("FailedDiscoveryCheck");
    expect(failed.message).toMatch(new RegExp(`^failing or missing response from https://127\\.0\\.0\\.1:${gone.port}/apis/down\\.example\\.com/v1: .*ECONNREFUSED`));
    for (const group of ["absent.example.com", "down.example.com"]) {
      const res = await api.admin.get(`/apis/${group}/v1/namespaces/${NS}/things`);
      expect(res.status).toBe(503);
      expect(res.json()).toMatchObject({ kind: "Status", reason: "ServiceUnavailable", code: 503, message: "service unavailable" });
    }
    expect((await api.admin.get(`/api/v1/namespaces/${NS}`)).status).toBe(200);
    expect((await api.admin.get(`/apis/${G}/${V}/namespaces/${NS}/podmetrics/p1`)).status).toBe(200);
    const metrics = (await api.admin.get("/metrics")).text;
    expect(metrics).toContain('aggregator_unavailable_apiservice{name="v1.absent.example.com"} 1');
    expect(metrics).toContain(`aggregator_unavailable_apiservice{name="${V}.${G}"} 0`);
    expect(metrics).toMatch(/aggregator_unavailable_apiservice_total\{name="v1\.down\.example\.com",reason="FailedDiscoveryCheck"\} [1-9]/);
  });

  it("verifies the backend with caBundle; insecureSkipTLSVerify skips the check", async () => {
    const otherCa = await createCA({ commonName: "not-the-backend-ca" });
    await service("other", backend.port);
    const wrong = await api.admin.post(apiServicesPath(), apiService("v1", "wrongca.example.com", { service: { namespace: NS, name: "other", port: 443 }, caBundle: Buffer.from(otherCa.certPem).toString("base64") }));
    expect(wrong.status, wrong.text).toBe(201);
    const c = await waitCondition("v1.wrongca.example.com", (x) => x.status === "False");
    expect(c.reason).toBe("FailedDiscoveryCheck");
    expect(c.message).toMatch(/certificate/);
    const insecure = await api.admin.post(apiServicesPath(), apiService("v1", "insecure.example.com", { service: { namespace: NS, name: "other", port: 443 }, insecureSkipTLSVerify: true }));
    expect(insecure.status, insecure.text).toBe(201);
    expect(await waitCondition("v1.insecure.example.com", (x) => x.status === "True")).toMatchObject({ reason: "Passed" });
  });
});

describe("kubectl 1.34", () => {
  it("gets the aggregated resource (discovery merged), reads it raw through the APIService and explains it from the backend's OpenAPI", async () => {
    const home = await mkdtemp(join(tmpdir(), "aggregation-kubectl-"));
    try {
      const pki = await ensurePki(api.dir, { profile: api.profile });
      await writeAdminKubeconfig(join(home, "config"), { server: api.replica.url, caPem: pki.ca.certPem, certPem: pki.admin.certPem, keyPem: pki.admin.keyPem, user: "admin", clusterName: "t", contextName: "t" });
      const env = { HOME: home, KUBECONFIG: join(home, "config") };
      const kubectl = layerClients().kubectl;
      const names = await runClient(kubectl, ["get", `podmetrics.${G}`, "-n", NS, "-o", "name"], { env });
      expect(names.code, names.stderr).toBe(0);
      expect(names.stdout.trim().split("\n")).toEqual([`podmetrics.${G}/p1`, `podmetrics.${G}/p2`]);
      const raw = await runClient(kubectl, ["get", "--raw", `/apis/${G}/${V}/namespaces/${NS}/podmetrics/p1`], { env });
      expect(raw.code, raw.stderr).toBe(0);
      expect(JSON.parse(raw.stdout)).toMatchObject({ kind: "PodMetrics", metadata: { name: "p1" }, identity: { clientCN: PROXY_CN } });
      const explain = await runClient(kubectl, ["explain", `podmetrics.${G}.window`], { env });
      expect(explain.code, explain.stderr).toBe(0);
      expect(explain.stdout).toContain("KIND:       PodMetrics");
      expect(explain.stdout).toContain("The length of the sample window.");
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
