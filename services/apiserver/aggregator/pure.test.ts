import { describe, expect, it } from "vitest";
import { getProfile } from "../../../shared/platform/index.ts";
import { apiServiceInfo, automanagedLabel, crdApiServices, isSyncManaged, LOCAL_CONDITION, localApiService, PASSED_CONDITION, unavailable, withAvailable } from "./api-service.ts";
import { DEFAULT_FRONT_PROXY_HEADERS, identityHeaders } from "./backend.ts";
import { orderedGroups, versionFromResourceList } from "./discovery.ts";
import { mergeOpenApiV2 } from "./openapi-merge.ts";
import { aggregatorOptionsFrom } from "./options.ts";

const k8s = getProfile("kubernetes");

describe("localApiService", () => {
  it.each([
    ["core", "v1", "v1.", "", 18000, 1],
    ["apps", "v1", "v1.apps", "apps", 17800, 15],
    ["autoscaling", "v2", "v2.autoscaling", "autoscaling", 17500, 30],
    ["rbac", "v1", `v1.${k8s.group("rbac")}`, k8s.group("rbac"), 17000, 15],
  ] as const)("%s/%s → %s", (group, version, name, wire, gpm, vp) => {
    const obj = localApiService(k8s, group, version);
    expect(obj).toMatchObject({ metadata: { name, labels: { [automanagedLabel(k8s)]: "onstart" } }, spec: { group: wire, version, groupPriorityMinimum: gpm, versionPriority: vp } });
    expect(apiServiceInfo(obj).service).toBeUndefined();
  });
});

describe("crdApiServices", () => {
  const crd = (group: string, versions: Array<[string, boolean]>) => ({ spec: { group, versions: versions.map(([name, served]) => ({ name, served })) } });
  it.each([
    ["one served version", [crd("a.io", [["v1", true]])], [], ["v1.a.io"]],
    ["unserved versions get none", [crd("a.io", [["v1", true], ["v2", false]])], [], ["v1.a.io"]],
    ["two CRDs of a group share one per version", [crd("a.io", [["v1", true]]), crd("a.io", [["v1", true], ["v1beta1", true]])], [], ["v1.a.io", "v1beta1.a.io"]],
    ["a version served by one CRD of the group only", [crd("a.io", [["v1", false]]), crd("a.io", [["v1", true]])], [], ["v1.a.io"]],
    ["a built-in name is left to the built-in", [crd("apps", [["v1", true], ["v9", true]])], ["v1.apps"], ["v9.apps"]],
    ["no CRDs, none", [], [], []],
  ] as const)("%s", (_name, crds, builtin, names) => {
    const out = crdApiServices(k8s, crds, new Set(builtin));
    expect([...out.keys()].sort()).toEqual([...names]);
    for (const obj of out.values()) {
      expect(obj).toMatchObject({ metadata: { labels: { [automanagedLabel(k8s)]: "true" } }, spec: { groupPriorityMinimum: 1000, versionPriority: 100 } });
      expect(isSyncManaged(k8s, obj)).toBe(true);
    }
  });
  it("onstart APIServices are not sync-managed", () => {
    expect(isSyncManaged(k8s, localApiService(k8s, "apps", "v1"))).toBe(false);
  });
});

describe("withAvailable", () => {
  const at = (conditions: unknown[]) => ({ status: { conditions } });
  it("adds the condition with a transition time", () => {
    expect(withAvailable({}, PASSED_CONDITION, "T1")).toEqual({ conditions: [{ ...PASSED_CONDITION, lastTransitionTime: "T1" }] });
  });
  it("returns undefined when nothing changes", () => {
    expect(withAvailable(at([{ ...LOCAL_CONDITION, lastTransitionTime: "T0" }]), LOCAL_CONDITION, "T1")).toBeUndefined();
  });
  it("keeps the transition time when only the reason changes", () => {
    const out = withAvailable(at([{ ...unavailable("ServiceNotFound", "x"), lastTransitionTime: "T0" }]), unavailable("MissingEndpoints", "y"), "T1");
    expect(out).toEqual({ conditions: [{ type: "Available", status: "False", reason: "MissingEndpoints", message: "y", lastTransitionTime: "T0" }] });
  });
  it("sets a new transition time when the status changes, keeping other conditions", () => {
    const out = withAvailable(at([{ type: "Other", status: "True" }, { ...unavailable("ServiceNotFound", "x"), lastTransitionTime: "T0" }]), PASSED_CONDITION, "T1");
    expect(out).toEqual({ conditions: [{ type: "Other", status: "True" }, { ...PASSED_CONDITION, lastTransitionTime: "T1" }] });
  });
});

describe("identityHeaders", () => {
  it.each([
    [{ username: "jane", groups: [] }, [["X-Remote-User", "jane"]]],
    [
      { username: "jane", uid: "u1", groups: ["a", "b"], extra: { scopes: ["view", "edit"], "acme.com/team": ["red"] } },
      [
        ["X-Remote-User", "jane"],
        ["X-Remote-Uid", "u1"],
        ["X-Remote-Group", "a"],
        ["X-Remote-Group", "b"],
        ["X-Remote-Extra-scopes", "view"],
        ["X-Remote-Extra-scopes", "edit"],
        ["X-Remote-Extra-acme.com%2Fteam", "red"],
      ],
    ],
  ])("%j", (user, want) => expect(identityHeaders(user, DEFAULT_FRONT_PROXY_HEADERS)).toEqual(want));

  it("uses the configured names", () => {
    expect(identityHeaders({ username: "j", groups: ["g"], extra: { k: ["v"] } }, { user: "X-User", uid: "X-Uid", group: "X-Groups", extraPrefix: "X-Extra-" })).toEqual([
      ["X-User", "j"],
      ["X-Groups", "g"],
      ["X-Extra-k", "v"],
    ]);
  });
});

describe("aggregatorOptionsFrom", () => {
  const rh = (o: Partial<Record<"usernameHeaders" | "uidHeaders" | "groupHeaders" | "extraHeadersPrefix" | "allowedNames", string[]>> = {}) => ({
    requestHeader: { usernameHeaders: [], uidHeaders: [], groupHeaders: [], extraHeadersPrefix: [], allowedNames: [], ...o },
  });
  it("takes the first --requestheader-* name of each list, the platform's defaults otherwise", async () => {
    expect((await aggregatorOptionsFrom({}, rh())).headers).toEqual(DEFAULT_FRONT_PROXY_HEADERS);
    const named = await aggregatorOptionsFrom({}, rh({ usernameHeaders: ["X-User", "X-Other"], groupHeaders: ["X-Groups"], extraHeadersPrefix: ["X-Extra-"], uidHeaders: ["X-Id"] }));
    expect(named.headers).toEqual({ user: "X-User", uid: "X-Id", group: "X-Groups", extraPrefix: "X-Extra-" });
  });
  it("refuses a certificate without its key", async () => {
    await expect(aggregatorOptionsFrom({ "proxy-client-cert-file": "/x.crt" }, rh())).rejects.toThrow("--proxy-client-cert-file and --proxy-client-key-file must be given together");
  });
});

describe("discovery of aggregated groups", () => {
  it("turns an APIResourceList into resources with subresources", () => {
    const list = {
      resources: [
        { name: "widgets", singularName: "widget", namespaced: true, kind: "Widget", verbs: ["get", "list"], shortNames: ["wd"] },
        { name: "widgets/status", singularName: "", namespaced: true, kind: "Widget", verbs: ["get", "patch"] },
        { name: "scales/scale", namespaced: false, kind: "Scale", group: "autoscaling", version: "v1", verbs: ["get"] },
      ],
    };
    expect(versionFromResourceList("g.example.com", "v1", list)).toEqual({
      version: "v1",
      freshness: "Current",
      resources: [
        {
          resource: "widgets",
          responseKind: { group: "g.example.com", version: "v1", kind: "Widget" },
          scope: "Namespaced",
          singularResource: "widget",
          verbs: ["get", "list"],
          shortNames: ["wd"],
          subresources: [{ subresource: "status", responseKind: { group: "g.example.com", version: "v1", kind: "Widget" }, verbs: ["get", "patch"] }],
        },
      ],
    });
    expect(versionFromResourceList("g", "v1", "not a list")).toEqual({ version: "v1", freshness: "Current", resources: [] });
  });

  it("orders groups by priority then name, versions by priority then name; local APIServices are left out", () => {
    const svc = (group: string, version: string, gpm: number, vp: number, service = true) =>
      apiServiceInfo({ metadata: { name: `${version}.${group}` }, spec: { group, version, groupPriorityMinimum: gpm, versionPriority: vp, service: service ? { namespace: "n", name: "s" } : undefined } });
    const groups = orderedGroups([svc("b.io", "v1", 100, 10), svc("a.io", "v1", 100, 10), svc("c.io", "v1beta1", 200, 5), svc("c.io", "v1", 50, 20), svc("local.io", "v1", 900, 1, false)]);
    expect(groups.map((g) => [g.name, g.versions.map((v) => v.version)])).toEqual([
      ["c.io", ["v1", "v1beta1"]],
      ["a.io", ["v1"]],
      ["b.io", ["v1"]],
    ]);
  });
});

describe("mergeOpenApiV2", () => {
  const local = { swagger: "2.0", paths: { "/api/v1/pods": { get: { description: "local" } }, "/apis/apps/v1/deployments": { get: { description: "local" } } }, definitions: { Meta: { type: "object", description: "local" }, Shared: { type: "string" } } };
  const backend = (description: string) => ({
    paths: {
      "/apis/m.example.com/v1/things": { get: { responses: { "200": { schema: { $ref: "#/definitions/Meta" } } }, parameters: [{ $ref: "#/parameters/pretty" }] } },
      "/apis/apps/v1/deployments": { get: { description: "backend" } },
      "/api/v1/pods": { get: { description: "backend" } },
      "/version": { get: { description: "backend" } },
    },
    definitions: { Meta: { type: "object", description }, Shared: { type: "string" }, Thing: { type: "object", properties: { meta: { $ref: "#/definitions/Meta" } } } },
    parameters: { pretty: { name: "pretty", in: "query", type: "string" } },
  });
  it("takes only new /apis/ paths, renames conflicting definitions and rewrites their refs, shares equal ones", () => {
    const out = mergeOpenApiV2(local, [backend("one")]) as { paths: Record<string, unknown>; definitions: Record<string, unknown>; parameters: Record<string, unknown> };
    expect(Object.keys(out.paths).sort()).toEqual(["/api/v1/pods", "/apis/apps/v1/deployments", "/apis/m.example.com/v1/things"]);
    expect(out.paths["/apis/apps/v1/deployments"]).toEqual({ get: { description: "local" } });
    expect(out.paths["/apis/m.example.com/v1/things"]).toEqual({ get: { responses: { "200": { schema: { $ref: "#/definitions/Meta_v2" } } }, parameters: [{ $ref: "#/parameters/pretty" }] } });
    expect(out.definitions.Meta).toEqual({ type: "object", description: "local" });
    expect(out.definitions.Meta_v2).toEqual({ type: "object", description: "one" });
    expect(out.definitions.Thing).toEqual({ type: "object", properties: { meta: { $ref: "#/definitions/Meta_v2" } } });
    expect(Object.keys(out.definitions).filter((k) => k.startsWith("Shared"))).toEqual(["Shared"]);
    expect(out.parameters).toEqual({ pretty: { name: "pretty", in: "query", type: "string" } });
    expect(local.definitions).not.toHaveProperty("Meta_v2"); // inputs untouched
  });
  it("numbers further conflicts _v3 and ignores a backend path another one already gave", () => {
    const second = backend("two");
    second.paths = { ...second.paths, "/apis/n.example.com/v1/others": { get: { responses: { "200": { schema: { $ref: "#/definitions/Meta" } } } } } } as typeof second.paths;
    const out = mergeOpenApiV2(local, [backend("one"), second]) as { paths: Record<string, { get: { responses: Record<string, { schema: { $ref: string } }> } }>; definitions: Record<string, unknown> };
    expect(out.definitions.Meta_v3).toEqual({ type: "object", description: "two" });
    expect(out.paths["/apis/m.example.com/v1/things"].get.responses["200"].schema.$ref).toBe("#/definitions/Meta_v2");
    expect(out.paths["/apis/n.example.com/v1/others"].get.responses["200"].schema.$ref).toBe("#/definitions/Meta_v3");
  });
});
