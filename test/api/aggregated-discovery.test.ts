/**
 * Aggregated discovery over HTTPS: /api and /apis answer APIGroupDiscoveryList
 * (v2, v2beta1; JSON, YAML, protobuf) when Accept asks for it, with ETag/304,
 * and the plain documents otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { apidiscoverySchemas } from "../../shared/api/groups/apidiscovery-v2.ts";
import { decodeEnvelope, decodeMessage, messageLayout, PROTOBUF_MAGIC } from "../../shared/codec/protobuf/index.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

interface Gvk {
  group: string;
  version: string;
  kind: string;
}
interface Subresource {
  subresource: string;
  responseKind: Gvk;
  verbs: string[];
}
interface Resource {
  resource: string;
  responseKind: Gvk;
  scope: string;
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: Subresource[];
}
interface Version {
  version: string;
  resources: Resource[];
  freshness: string;
}
interface Group {
  metadata: { name: string };
  versions: Version[];
}
interface GroupList {
  kind: string;
  apiVersion: string;
  items: Group[];
}

const STORED_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

let api: TestApiserver;
let discoveryGroup: string;
const aggAccept = (version: string, type = "application/json") => `${type};g=${discoveryGroup};v=${version};as=APIGroupDiscoveryList`;

beforeAll(async () => {
  api = await startTestApiserver();
  discoveryGroup = api.profile.group("apidiscovery");
});
afterAll(async () => {
  await api?.close();
});

async function fetchList(path: string, version: string): Promise<GroupList> {
  const res = await api.admin.get(path, { accept: aggAccept(version) });
  expect(res.status, res.text).toBe(200);
  return res.json<GroupList>();
}

function resourceOf(list: GroupList, group: string, version: string, resource: string): Resource {
  const g = list.items.find((i) => i.metadata.name === group);
  const v = g?.versions.find((x) => x.version === version);
  const r = v?.resources.find((x) => x.resource === resource);
  if (!r) throw new Error(`${group}/${version} ${resource} is not in the document`);
  return r;
}

function sub(r: Resource, name: string): Subresource | undefined {
  return r.subresources?.find((s) => s.subresource === name);
}

describe("aggregated discovery: /apis", () => {
  it("answers APIGroupDiscoveryList v2 with the asked Content-Type, Vary: Accept and a quoted ETag", async () => {
    const res = await api.admin.get("/apis", { accept: aggAccept("v2") });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe(aggAccept("v2"));
    expect(res.headers.vary).toBe("Accept");
    expect(res.headers.etag).toMatch(/^"[0-9A-F]{128}"$/);
    const list = res.json<GroupList>();
    expect(list.kind).toBe("APIGroupDiscoveryList");
    expect(list.apiVersion).toBe(`${discoveryGroup}/v2`);
  });

  it("lists the named groups of the plain APIGroupList, in its order, preferred version first", async () => {
    const list = await fetchList("/apis", "v2");
    const plain = (await api.admin.get("/apis")).json<{ groups: Array<{ name: string; preferredVersion: { version: string }; versions: Array<{ version: string }> }> }>();
    expect(list.items.map((g) => g.metadata.name)).toEqual(plain.groups.map((g) => g.name));
    expect(list.items.map((g) => g.metadata.name)).not.toContain("");
    for (const [i, g] of list.items.entries()) {
      expect(g.versions.map((v) => v.version), g.metadata.name).toEqual(plain.groups[i].versions.map((v) => v.version));
      expect(g.versions[0].version, g.metadata.name).toBe(plain.groups[i].preferredVersion.version);
      for (const v of g.versions) expect(v.freshness, `${g.metadata.name}/${v.version}`).toBe("Current");
    }
    const autoscaling = list.items.find((g) => g.metadata.name === api.profile.group("autoscaling"));
    expect(autoscaling?.versions.map((v) => v.version)).toEqual(["v2", "v1"]);
  });

  it("describes deployments field by field, with the status and scale subresources", async () => {
    const list = await fetchList("/apis", "v2");
    expect(resourceOf(list, "apps", "v1", "deployments")).toEqual({
      resource: "deployments",
      responseKind: { group: "apps", version: "v1", kind: "Deployment" },
      scope: "Namespaced",
      singularResource: "deployment",
      verbs: STORED_VERBS,
      shortNames: ["deploy"],
      categories: ["all"],
      subresources: [
        { subresource: "status", responseKind: { group: "apps", version: "v1", kind: "Deployment" }, verbs: ["get", "patch", "update"] },
        { subresource: "scale", responseKind: { group: api.profile.group("autoscaling"), version: "v1", kind: "Scale" }, verbs: ["get", "patch", "update"] },
      ],
    });
  });

  it("marks cluster-scoped resources and create-only review kinds", async () => {
    const list = await fetchList("/apis", "v2");
    const rbac = api.profile.group("rbac");
    const clusterRoles = resourceOf(list, rbac, "v1", "clusterroles");
    expect(clusterRoles).toMatchObject({ scope: "Cluster", singularResource: "clusterrole", responseKind: { group: rbac, version: "v1", kind: "ClusterRole" } });
    expect(clusterRoles.subresources).toBeUndefined();
    const authorization = api.profile.group("authorization");
    const review = resourceOf(list, authorization, "v1", "subjectaccessreviews");
    expect(review).toMatchObject({ scope: "Cluster", verbs: ["create"], responseKind: { group: authorization, version: "v1", kind: "SubjectAccessReview" } });
  });
});

describe("aggregated discovery: /api", () => {
  it("lists only the core group (empty name) with v1", async () => {
    const list = await fetchList("/api", "v2");
    expect(list.items.map((g) => g.metadata.name)).toEqual([""]);
    expect(list.items[0].versions.map((v) => v.version)).toEqual(["v1"]);
    expect(list.items[0].versions[0].freshness).toBe("Current");
  });

  it("describes pods and namespaces field by field, subresources included", async () => {
    const list = await fetchList("/api", "v2");
    const core = (kind: string): Gvk => ({ group: "", version: "v1", kind });
    const pods = resourceOf(list, "", "v1", "pods");
    expect(pods).toMatchObject({ resource: "pods", responseKind: core("Pod"), scope: "Namespaced", singularResource: "pod", verbs: STORED_VERBS, shortNames: ["po"], categories: ["all"] });
    expect(sub(pods, "status")).toEqual({ subresource: "status", responseKind: core("Pod"), verbs: ["get", "patch", "update"] });
    expect(sub(pods, "binding")).toEqual({ subresource: "binding", responseKind: core("Binding"), verbs: ["create"] });
    expect(sub(pods, "eviction")).toEqual({ subresource: "eviction", responseKind: { group: api.profile.group("policy"), version: "v1", kind: "Eviction" }, verbs: ["create"] });
    expect(sub(pods, "log")).toEqual({ subresource: "log", responseKind: core("Pod"), verbs: ["get"] });
    expect(sub(pods, "exec")).toEqual({ subresource: "exec", responseKind: core("PodExecOptions"), verbs: ["create", "get"] });
    const namespaces = resourceOf(list, "", "v1", "namespaces");
    expect(namespaces).toMatchObject({ scope: "Cluster", singularResource: "namespace", shortNames: ["ns"] });
    expect(namespaces.subresources?.map((s) => s.subresource)).toEqual(["status", "finalize"]);
    const token = sub(resourceOf(list, "", "v1", "serviceaccounts"), "token");
    expect(token).toEqual({ subresource: "token", responseKind: { group: api.profile.group("authentication"), version: "v1", kind: "TokenRequest" }, verbs: ["create"] });
    const rcScale = sub(resourceOf(list, "", "v1", "replicationcontrollers"), "scale");
    expect(rcScale?.responseKind).toEqual({ group: api.profile.group("autoscaling"), version: "v1", kind: "Scale" });
  });

  it("agrees with the plain /api/v1 resource list", async () => {
    const list = await fetchList("/api", "v2");
    const plain = (await api.admin.get("/api/v1")).json<{ resources: Array<{ name: string; singularName: string; namespaced: boolean; kind: string; verbs: string[]; shortNames?: string[] }> }>();
    const top = plain.resources.filter((r) => !r.name.includes("/"));
    const resources = list.items[0].versions[0].resources;
    expect(resources.map((r) => r.resource)).toEqual(top.map((r) => r.name));
    for (const [i, r] of resources.entries()) {
      expect(r.responseKind.kind, r.resource).toBe(top[i].kind);
      expect(r.verbs, r.resource).toEqual(top[i].verbs);
      expect(r.scope, r.resource).toBe(top[i].namespaced ? "Namespaced" : "Cluster");
      expect(r.singularResource, r.resource).toBe(top[i].singularName);
      expect(r.shortNames, r.resource).toEqual(top[i].shortNames);
      const subs = plain.resources.filter((p) => p.name.startsWith(`${r.resource}/`));
      expect((r.subresources ?? []).map((s) => `${r.resource}/${s.subresource}:${s.responseKind.kind}:${s.verbs.join(",")}`), r.resource).toEqual(
        subs.map((s) => `${s.name}:${s.kind}:${s.verbs.join(",")}`),
      );
    }
  });
});

describe("aggregated discovery: v2beta1", () => {
  it("serves the same items under apiVersion v2beta1 with v=v2beta1 in the Content-Type", async () => {
    for (const path of ["/api", "/apis"]) {
      const v2 = await api.admin.get(path, { accept: aggAccept("v2") });
      const beta = await api.admin.get(path, { accept: aggAccept("v2beta1") });
      expect(beta.status).toBe(200);
      expect(beta.headers["content-type"]).toBe(aggAccept("v2beta1"));
      expect(beta.headers.vary).toBe("Accept");
      const body = beta.json<GroupList>();
      expect(body.kind).toBe("APIGroupDiscoveryList");
      expect(body.apiVersion).toBe(`${discoveryGroup}/v2beta1`);
      expect(body.items).toEqual(v2.json<GroupList>().items);
      expect(beta.headers.etag).toBe(v2.headers.etag);
    }
  });
});

describe("aggregated discovery: ETag", () => {
  it("answers 304 without a body to If-None-Match with the current ETag, and 200 to another", async () => {
    for (const path of ["/api", "/apis"]) {
      const first = await api.admin.get(path, { accept: aggAccept("v2") });
      const etag = String(first.headers.etag);
      const again = await api.admin.get(path, { accept: aggAccept("v2"), "if-none-match": etag });
      expect(again.status, path).toBe(304);
      expect(again.body.length).toBe(0);
      expect(again.headers.etag).toBe(etag);
      expect(again.headers.vary).toBe("Accept");
      const stale = await api.admin.get(path, { accept: aggAccept("v2"), "if-none-match": '"0000"' });
      expect(stale.status).toBe(200);
      expect(stale.json<GroupList>().items).toEqual(first.json<GroupList>().items);
    }
    const api1 = await api.admin.get("/api", { accept: aggAccept("v2") });
    const apis = await api.admin.get("/apis", { accept: aggAccept("v2") });
    expect(api1.headers.etag).not.toBe(apis.headers.etag);
  });
});

describe("aggregated discovery: fallback to the plain documents", () => {
  it("picks the aggregated form from a client's list with fallbacks", async () => {
    const kubectlStyle = `${aggAccept("v2")},${aggAccept("v2beta1")},application/json`;
    const res = await api.admin.get("/apis", { accept: kubectlStyle });
    expect(res.headers["content-type"]).toBe(aggAccept("v2"));
    const weighted = await api.admin.get("/api", { accept: `application/json;q=0.5,${aggAccept("v2beta1")};q=0.9` });
    expect(weighted.headers["content-type"]).toBe(aggAccept("v2beta1"));
    expect(weighted.json<GroupList>().items.map((g) => g.metadata.name)).toEqual([""]);
  });

  it("serves APIVersions and APIGroupList to plain, absent or unsupported Accept headers", async () => {
    const cases: Array<Record<string, string>> = [{ accept: "application/json" }, {}, { accept: `${aggAccept("v1")},application/json;q=0.5` }, { accept: aggAccept("v9") }, { accept: `${aggAccept("v2")};q=0.2,application/json` }];
    for (const headers of cases) {
      const apiRes = await api.admin.get("/api", headers);
      expect(apiRes.status).toBe(200);
      expect(apiRes.headers["content-type"]).toBe("application/json");
      expect(apiRes.headers.etag).toBeUndefined();
      expect(apiRes.json()).toMatchObject({ kind: "APIVersions", versions: ["v1"] });
      const apisRes = await api.admin.get("/apis", headers);
      expect(apisRes.headers["content-type"]).toBe("application/json");
      expect(apisRes.json()).toMatchObject({ kind: "APIGroupList", apiVersion: "v1" });
    }
  });

  it("keeps the plain group version documents, naming the group version of the scale kind", async () => {
    const apps = (await api.admin.get("/apis/apps/v1")).json<{ resources: Array<{ name: string; group?: string; version?: string; kind: string }> }>();
    expect(apps.resources.find((r) => r.name === "deployments/scale")).toMatchObject({ group: api.profile.group("autoscaling"), version: "v1", kind: "Scale" });
    const status = apps.resources.find((r) => r.name === "deployments/status");
    expect(status?.kind).toBe("Deployment");
    expect(status?.group).toBeUndefined();
  });
});

describe("aggregated discovery: other encodings", () => {
  it("encodes the document in protobuf (envelope with the list's apiVersion and kind)", async () => {
    const json = await fetchList("/apis", "v2");
    for (const version of ["v2", "v2beta1"] as const) {
      const res = await api.admin.get("/apis", { accept: aggAccept(version, api.profile.protobufMediaType) });
      expect(res.status).toBe(200);
      expect(res.headers["content-type"]).toBe(aggAccept(version, api.profile.protobufMediaType));
      expect([...res.body.subarray(0, 4)]).toEqual([...PROTOBUF_MAGIC]);
      const env = decodeEnvelope(res.body);
      expect(env).toMatchObject({ apiVersion: `${discoveryGroup}/${version}`, kind: "APIGroupDiscoveryList" });
      const layout = messageLayout(apidiscoverySchemas(version).groupList, "APIGroupDiscoveryList", { group: "apidiscovery", version });
      const decoded = decodeMessage(layout, env.raw) as unknown as GroupList;
      expect(decoded.items).toEqual(json.items);
    }
  });

  it("encodes the document in YAML", async () => {
    const res = await api.admin.get("/api", { accept: aggAccept("v2", "application/yaml") });
    expect(res.headers["content-type"]).toBe(aggAccept("v2", "application/yaml"));
    const doc = parseYaml(res.text) as GroupList;
    expect(doc.apiVersion).toBe(`${discoveryGroup}/v2`);
    expect(doc.items).toEqual((await fetchList("/api", "v2")).items);
  });
});
