/**
 * `--runtime-config` (issue 24) through HTTPS: `batch/v1=false` removes the version from
 * discovery, OpenAPI, routing (404) and `kubectl api-resources`; a resource key disables
 * one resource of a served version; a bad key or value fails start-up with one line; and
 * the default rules (alpha and late betas off, GA on) with the key precedence.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mutatingAdmissionPolicyKinds } from "../../shared/api/groups/admissionregistration-v1beta1.ts";
import { builtinKinds } from "../../shared/api/groups/index.ts";
import { kinds as networkingV1beta1 } from "../../shared/api/groups/networking-v1beta1.ts";
import { decodeObject } from "../../shared/codec/protobuf/index.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { ensurePki, writeAdminKubeconfig } from "../../services/apiserver/server/certs.ts";
import { FeatureGates } from "../../services/apiserver/server/feature-gates.ts";
import { applyRuntimeConfig } from "../../services/apiserver/server/runtime-config.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { layerClients, runClient } from "../support/clients.ts";

let api: TestApiserver;
/** The MutatingAdmissionPolicy gate on, every beta and two alpha versions enabled. */
let pre: TestApiserver;

beforeAll(async () => {
  const k8s = getProfile("kubernetes");
  const gates = new FeatureGates();
  gates.set(["MutatingAdmissionPolicy=true"]);
  [api, pre] = await Promise.all([
    startTestApiserver({ profileId: "kubernetes", runtimeConfig: ["batch/v1=false", "apps/v1/daemonsets=false"] }),
    startTestApiserver({ profileId: "kubernetes", gates, runtimeConfig: ["api/beta", `${k8s.group("admissionregistration")}/v1alpha1`, `${k8s.group("storage")}/v1alpha1`] }),
  ]);
}, 30_000);
afterAll(async () => {
  await Promise.all([api?.close(), pre?.close()]);
});

/** kubectl 1.34 as the admin of a replica, in a throw-away home. */
async function kubectl(server: TestApiserver, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const home = await mkdtemp(join(tmpdir(), "versioning-runtime-config-"));
  try {
    const pki = await ensurePki(server.dir, { profile: server.profile });
    await writeAdminKubeconfig(join(home, "config"), { server: server.replica.url, caPem: pki.ca.certPem, certPem: pki.admin.certPem, keyPem: pki.admin.keyPem, user: "admin", clusterName: "t", contextName: "t" });
    return await runClient(layerClients().kubectl, args, { env: { HOME: home, KUBECONFIG: join(home, "config") } });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

describe("--runtime-config=batch/v1=false,apps/v1/daemonsets=false", () => {
  it("answers 404 for the disabled version and resource, serves the rest", async () => {
    for (const path of ["/apis/batch/v1/jobs", "/apis/batch/v1/namespaces/default/cronjobs", "/apis/batch/v1", "/apis/batch", "/apis/apps/v1/daemonsets"]) {
      expect((await api.admin.get(path)).status, path).toBe(404);
    }
    expect((await api.admin.get("/apis/apps/v1/deployments")).status).toBe(200);
    expect((await api.admin.get("/api/v1/namespaces/default/configmaps")).status).toBe(200);
  });

  it("removes them from discovery and OpenAPI", async () => {
    const groups = (await api.admin.get("/apis")).json<{ groups: Array<{ name: string }> }>().groups.map((g) => g.name);
    expect(groups).not.toContain("batch");
    expect(groups).toContain("apps");
    const apps = (await api.admin.get("/apis/apps/v1")).json<{ resources: Array<{ name: string }> }>().resources.map((r) => r.name);
    expect(apps).toContain("deployments");
    expect(apps).not.toContain("daemonsets");
    const v3 = (await api.admin.get("/openapi/v3")).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(v3.paths)).toContain("apis/apps/v1");
    expect(Object.keys(v3.paths)).not.toContain("apis/batch/v1");
    const v2 = await api.admin.get("/openapi/v2", { accept: "application/json" });
    expect(v2.status).toBe(200);
    const paths = Object.keys(v2.json<{ paths: Record<string, unknown> }>().paths);
    expect(paths.some((p) => p.startsWith("/apis/batch/"))).toBe(false);
    expect(paths.some((p) => p.includes("/daemonsets"))).toBe(false);
    expect(paths.some((p) => p.includes("/deployments"))).toBe(true);
  });

  it("registers no APIService for the disabled version", async () => {
    const res = await api.admin.get(`/apis/${api.profile.group("apiregistration")}/v1/apiservices`);
    expect(res.status).toBe(200);
    const names = res.json<{ items: Array<{ metadata: { name: string } }> }>().items.map((i) => i.metadata.name);
    expect(names).toContain("v1.apps");
    expect(names).not.toContain("v1.batch");
  });

  it("kubectl 1.34 api-resources lists neither CronJob nor Job", async () => {
    const out = await kubectl(api, ["api-resources", "--no-headers", "-o", "wide"]);
    expect(out.code, out.stderr).toBe(0);
    const kinds = out.stdout.split("\n").filter((l) => l.trim() !== "").map((l) => l.trim().split(/\s+/));
    const kindNames = kinds.map((cols) => cols.find((c) => /^[A-Z]/.test(c)));
    expect(kindNames).toContain("Deployment");
    expect(kindNames).not.toContain("Job");
    expect(kindNames).not.toContain("CronJob");
    expect(kindNames).not.toContain("DaemonSet");
  });
});

describe("start-up", () => {
  it("refuses an unknown key and a non-boolean value with one clear line", async () => {
    await expect(startTestApiserver({ runtimeConfig: ["frobs.example.com/v1"] })).rejects.toThrow(/^invalid --runtime-config key "frobs.example.com\/v1": no such group version or resource/);
    await expect(startTestApiserver({ runtimeConfig: ["batch/v1=maybe"] })).rejects.toThrow('invalid value of --runtime-config key batch/v1: "maybe" is not a boolean');
  });
});

describe("disabling the CustomResourceDefinition API", () => {
  it("starts without it and answers 404 for it", async () => {
    const other = await startTestApiserver({ profileId: "kubernetes", runtimeConfig: [`${getProfile("kubernetes").group("apiextensions")}/v1=false`] });
    try {
      expect((await other.admin.get(`/apis/${other.profile.group("apiextensions")}/v1/customresourcedefinitions`)).status).toBe(404);
      expect((await other.admin.get("/api/v1/namespaces")).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe("--runtime-config=api/beta,api/all=false,api/legacy,batch/v1/jobs over HTTPS", () => {
  it("api/beta serves a beta that is off by default (its gate on, as the platform needs both); api/all=false leaves only what is named again", async () => {
    const group = getProfile("kubernetes").group("admissionregistration");
    const policies = `/apis/${group}/v1beta1/mutatingadmissionpolicies`;
    const gates = new FeatureGates();
    gates.set(["MutatingAdmissionPolicy=true"]);
    const [betaOnly, gateOnly, narrow] = await Promise.all([
      startTestApiserver({ profileId: "kubernetes", runtimeConfig: ["api/beta"] }),
      startTestApiserver({ profileId: "kubernetes", gates }),
      startTestApiserver({ profileId: "kubernetes", runtimeConfig: ["api/all=false", "api/legacy", "batch/v1/jobs"] }),
    ]);
    try {
      expect((await betaOnly.admin.get(policies)).status).toBe(404); // the gate is off
      expect((await gateOnly.admin.get(policies)).status).toBe(404); // the gate alone does not enable the version
      expect((await gateOnly.admin.get(`/apis/${group}`)).json<{ versions: Array<{ version: string }> }>().versions.map((v) => v.version)).toEqual(["v1"]);
      expect((await pre.admin.get(policies)).status).toBe(200); // gate and api/beta
      expect((await pre.admin.get(`/apis/${group}`)).json<{ versions: Array<{ version: string }> }>().versions.map((v) => v.version)).toEqual(["v1", "v1beta1", "v1alpha1"]);
      expect((await narrow.admin.get("/api/v1/namespaces")).status).toBe(200);
      expect((await narrow.admin.get("/apis/batch/v1/jobs")).status).toBe(200);
      expect((await narrow.admin.get("/apis/batch/v1/cronjobs")).status).toBe(404);
      expect((await narrow.admin.get("/apis/apps/v1/deployments")).status).toBe(404);
      expect((await narrow.admin.get("/apis")).json<{ groups: Array<{ name: string }> }>().groups.map((g) => g.name)).toEqual(["batch"]);
    } finally {
      await Promise.all([betaOnly.close(), gateOnly.close(), narrow.close()]);
    }
  });
});

describe("default rules and precedence", () => {
  const profile = getProfile("kubernetes");
  const known = [...builtinKinds(profile), ...mutatingAdmissionPolicyKinds];
  const mutatingPolicies = `${profile.group("admissionregistration")}/v1beta1/mutatingadmissionpolicies`;
  const served = (entries: string[]) => new Set(applyRuntimeConfig(known, entries, profile).map((k) => `${profile.apiVersion(k.group, k.version)}/${k.plural}`));

  it("serves GA versions and keeps betas introduced after 1.22 off by default", () => {
    const s = served([]);
    expect(s.has("batch/v1/jobs")).toBe(true);
    expect(s.has("autoscaling/v2/horizontalpodautoscalers")).toBe(true);
    expect(s.has(mutatingPolicies)).toBe(false);
  });

  it("api/beta turns betas on, an omitted value means true, the specific key wins", () => {
    expect(served(["api/beta"]).has(mutatingPolicies)).toBe(true);
    expect(served(["api/beta=true", `${profile.group("admissionregistration")}/v1beta1=false`]).has(mutatingPolicies)).toBe(false);
    const onlyCore = served(["api/all=false", "api/legacy", "batch/v1/jobs"]);
    expect(onlyCore.has("v1/pods")).toBe(true);
    expect(onlyCore.has("batch/v1/jobs")).toBe(true);
    expect(onlyCore.has("batch/v1/cronjobs")).toBe(false);
    expect(onlyCore.has("apps/v1/deployments")).toBe(false);
    expect(served(["api/v1/pods=false"]).has("v1/pods")).toBe(false);
    expect(served(["api/ga=false", "apps/v1"]).has("apps/v1/deployments")).toBe(true);
  });
});

describe("pre-release versions of release 1.35 (networking/v1beta1, storage/v1beta1 and v1alpha1, admissionregistration/v1alpha1)", () => {
  const profile = getProfile("kubernetes");
  const networking = profile.group("networking");
  const storage = profile.group("storage");
  const admission = profile.group("admissionregistration");

  const versionsOf = async (admin: TestApiserver["admin"], group: string) => {
    const res = await admin.get(`/apis/${group}`);
    expect(res.status).toBe(200);
    const doc = res.json<{ versions: Array<{ version: string }>; preferredVersion: { version: string } }>();
    return { versions: doc.versions.map((v) => v.version), preferred: doc.preferredVersion.version };
  };

  it("are off by default: 404 and absent from discovery", async () => {
    for (const path of [`/apis/${networking}/v1beta1/ipaddresses`, `/apis/${networking}/v1beta1`, `/apis/${storage}/v1beta1/volumeattributesclasses`, `/apis/${admission}/v1alpha1`]) {
      expect((await api.admin.get(path)).status, path).toBe(404);
    }
    expect(await versionsOf(api.admin, networking)).toEqual({ versions: ["v1"], preferred: "v1" });
  });

  it("once enabled, are in discovery after the preferred GA version; a version removed in 1.35 stays off", async () => {
    expect(await versionsOf(pre.admin, networking)).toEqual({ versions: ["v1", "v1beta1"], preferred: "v1" });
    expect(await versionsOf(pre.admin, storage)).toEqual({ versions: ["v1", "v1beta1"], preferred: "v1" });
    expect(await versionsOf(pre.admin, admission)).toEqual({ versions: ["v1", "v1beta1", "v1alpha1"], preferred: "v1" });
    const beta = (await pre.admin.get(`/apis/${networking}/v1beta1`)).json<{ resources: Array<{ name: string }> }>().resources.map((r) => r.name);
    expect(beta.filter((n) => !n.includes("/")).sort()).toEqual(["ipaddresses", "servicecidrs"]);
    expect((await pre.admin.get(`/apis/${storage}/v1alpha1/volumeattributesclasses`)).status).toBe(404);
    const openapi = async (server: TestApiserver) => Object.keys((await server.admin.get("/openapi/v3")).json<{ paths: Record<string, unknown> }>().paths);
    expect(await openapi(pre)).toEqual(expect.arrayContaining([`apis/${networking}/v1beta1`, `apis/${storage}/v1beta1`, `apis/${admission}/v1alpha1`]));
    expect(await openapi(api)).not.toContain(`apis/${networking}/v1beta1`);
    const doc = (await pre.admin.get(`/openapi/v3/apis/${networking}/v1beta1`)).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(doc.paths)).toContain(`/apis/${networking}/v1beta1/servicecidrs/{name}`);
  });

  it("a ServiceCIDR written through v1beta1 is the same object in v1, both ways, with the deprecation warning on v1beta1", async () => {
    const created = await pre.admin.post(`/apis/${networking}/v1beta1/servicecidrs`, { apiVersion: `${networking}/v1beta1`, kind: "ServiceCIDR", metadata: { name: "beta-range" }, spec: { cidrs: ["10.200.0.0/24"] } });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.warning).toBe(`299 - "${networking}/v1beta1 ServiceCIDR is deprecated in v1.34+, unavailable in v1.37+"`);
    const beta = created.json<{ apiVersion: string; metadata: { uid: string } }>();
    expect(beta.apiVersion).toBe(`${networking}/v1beta1`);
    const ga = await pre.admin.get(`/apis/${networking}/v1/servicecidrs/beta-range`);
    expect(ga.status).toBe(200);
    expect(ga.headers.warning).toBeUndefined();
    const v1 = ga.json<{ apiVersion: string; metadata: { uid: string; labels?: Record<string, string> }; spec: { cidrs: string[] } }>();
    expect(v1).toMatchObject({ apiVersion: `${networking}/v1`, metadata: { uid: beta.metadata.uid }, spec: { cidrs: ["10.200.0.0/24"] } });
    const updated = await pre.admin.put(`/apis/${networking}/v1/servicecidrs/beta-range`, { ...v1, metadata: { ...v1.metadata, labels: { tier: "ga" } } });
    expect(updated.status, updated.text).toBe(200);
    const list = (await pre.admin.get(`/apis/${networking}/v1beta1/servicecidrs`)).json<{ apiVersion: string; items: Array<{ apiVersion?: string; metadata: { name: string; labels?: Record<string, string> } }> }>();
    expect(list.apiVersion).toBe(`${networking}/v1beta1`);
    expect(list.items.find((i) => i.metadata.name === "beta-range")?.metadata.labels).toEqual({ tier: "ga" });
    // Protobuf in the v1beta1 form too.
    const pb = await pre.admin.get(`/apis/${networking}/v1beta1/servicecidrs/beta-range`, { accept: profile.protobufMediaType });
    expect(pb.status).toBe(200);
    const betaDef = networkingV1beta1.find((k) => k.kind === "ServiceCIDR");
    expect(betaDef).toBeDefined();
    expect(decodeObject(betaDef!, pb.body)).toMatchObject({ apiVersion: `${networking}/v1beta1`, kind: "ServiceCIDR", metadata: { uid: beta.metadata.uid }, spec: { cidrs: ["10.200.0.0/24"] } });
    // The spec is validated through v1beta1 as through v1 (immutable cidrs).
    const fetched = (await pre.admin.get(`/apis/${networking}/v1beta1/servicecidrs/beta-range`)).json<Record<string, unknown>>();
    expect(fetched.apiVersion).toBe(`${networking}/v1beta1`);
    const changed = await pre.admin.put(`/apis/${networking}/v1beta1/servicecidrs/beta-range`, { ...fetched, spec: { cidrs: ["10.201.0.0/24"] } });
    expect(changed.status, changed.text).toBe(422);
  });

  it("kubectl 1.34 reads IPAddresses through networking/v1beta1 and prints the deprecation warning", async () => {
    const svc = await pre.admin.post("/api/v1/namespaces/default/services", { apiVersion: "v1", kind: "Service", metadata: { name: "beta-web" }, spec: { ports: [{ port: 80 }] } });
    expect(svc.status, svc.text).toBe(201);
    const ip = svc.json<{ spec: { clusterIP: string } }>().spec.clusterIP;
    const out = await kubectl(pre, ["get", `ipaddresses.v1beta1.${networking}`, ip, "-o", "jsonpath={.apiVersion} {.spec.parentRef.name}"]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toBe(`${networking}/v1beta1 beta-web`);
    expect(out.stderr).toContain(`Warning: ${networking}/v1beta1 IPAddress is deprecated in v1.34+, unavailable in v1.37+`);
  });

  it("a VolumeAttributesClass written through v1 reads the same through v1beta1, and v1beta1's checks are v1's", async () => {
    const created = await pre.admin.post(`/apis/${storage}/v1/volumeattributesclasses`, { apiVersion: `${storage}/v1`, kind: "VolumeAttributesClass", metadata: { name: "gold" }, driverName: "csi.example.com", parameters: { iops: "3000" } });
    expect(created.status, created.text).toBe(201);
    const beta = await pre.admin.get(`/apis/${storage}/v1beta1/volumeattributesclasses/gold`);
    expect(beta.headers.warning).toBe(`299 - "${storage}/v1beta1 VolumeAttributesClass is deprecated in v1.34+, unavailable in v1.37+"`);
    const obj = beta.json<Record<string, unknown>>();
    expect(obj).toMatchObject({ apiVersion: `${storage}/v1beta1`, kind: "VolumeAttributesClass", driverName: "csi.example.com", parameters: { iops: "3000" } });
    const refused = await pre.admin.put(`/apis/${storage}/v1beta1/volumeattributesclasses/gold`, { ...obj, parameters: { iops: "9000" } });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain("updates to parameters are forbidden.");
  });

  it("a MutatingAdmissionPolicy written through v1alpha1 is stored once and read through v1beta1", async () => {
    const body = {
      apiVersion: `${admission}/v1alpha1`,
      kind: "MutatingAdmissionPolicy",
      metadata: { name: "alpha-policy" },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }] },
        mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'seen': 'yes'}}}" } }],
      },
    };
    const created = await pre.admin.post(`/apis/${admission}/v1alpha1/mutatingadmissionpolicies`, body);
    expect(created.status, created.text).toBe(201);
    expect(created.json<{ apiVersion: string; spec: { failurePolicy: string } }>()).toMatchObject({ apiVersion: `${admission}/v1alpha1`, spec: { failurePolicy: "Fail" } });
    const beta = (await pre.admin.get(`/apis/${admission}/v1beta1/mutatingadmissionpolicies`)).json<{ items: Array<{ apiVersion?: string; metadata: { name: string } }> }>();
    expect(beta.items.map((i) => i.metadata.name)).toContain("alpha-policy");
  });
});
