/**
 * The life of a CRD across two replicas over one store: served by the replica
 * that did not write it (driven by its watch cache), several versions with
 * conversion None and a deprecated one, storedVersions, and deletion (Terminating,
 * custom resources removed — one held by its own finalizer —, then the API gone);
 * the local APIService of each served CRD group version, kept on both replicas from
 * the first CRD of the group version to the last.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { automanagedLabel } from "../../services/apiserver/aggregator/api-service.ts";
import type { Replica } from "../../services/apiserver/server/replica.ts";
import { startSecondReplica, startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { CRD_GROUP, crdPath, cronTabCrd, waitServed } from "../support/crd-fixtures.ts";
import { HttpsClient } from "../support/https-client.ts";

let api: TestApiserver;
let second: Replica;
let admin2: HttpsClient;

beforeAll(async () => {
  api = await startTestApiserver();
  ({ replica: second, admin: admin2 } = await startSecondReplica(api));
});
afterAll(async () => {
  admin2?.close();
  await second?.close();
  await api?.close();
});

type Obj = Record<string, unknown>;

function twoVersions(): Obj {
  const crd = cronTabCrd(api.profile, { plural: "widgets", kind: "Widget", scope: "Cluster" }) as { spec: { versions: Obj[] } };
  const v1 = crd.spec.versions[0];
  crd.spec.versions = [
    { ...structuredClone(v1), name: "v1beta1", storage: false, deprecated: true },
    { ...structuredClone(v1), name: "v1", storage: true },
  ];
  return crd;
}

async function eventually<T>(f: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 5000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await f();
    if (ok(v) || Date.now() - start > timeoutMs) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("CRD lifecycle across replicas", () => {
  it("is served by the other replica (driven by its watch cache), in every served version", async () => {
    const res = await api.admin.post(crdPath(api.profile), twoVersions());
    expect(res.status, res.text).toBe(201);
    // How fast is measured by `npm run bench -- api` (crd_to_first_cr_ms), not here.
    await waitServed(admin2, `/apis/${CRD_GROUP}/v1/widgets`, 10_000);
    await waitServed(admin2, `/apis/${CRD_GROUP}/v1beta1/widgets`, 1000);
    const disc = await admin2.get(`/apis/${CRD_GROUP}`);
    expect(disc.json()).toMatchObject({ preferredVersion: { version: "v1" }, versions: [{ version: "v1" }, { version: "v1beta1" }] });
  });

  it("stores in the storage version and answers in the request's, with the deprecation warning", async () => {
    const created = await admin2.post(`/apis/${CRD_GROUP}/v1beta1/widgets`, { apiVersion: `${CRD_GROUP}/v1beta1`, kind: "Widget", metadata: { name: "w1" }, spec: { cronSpec: "* * * * *" } });
    expect(created.status, created.text).toBe(201);
    expect(created.json<{ apiVersion: string }>().apiVersion).toBe(`${CRD_GROUP}/v1beta1`);
    expect(String(created.headers.warning)).toContain(`${CRD_GROUP}/v1beta1 Widget is deprecated`);
    const v1 = await api.admin.get(`/apis/${CRD_GROUP}/v1/widgets/w1`);
    expect(v1.status).toBe(200);
    expect(v1.json<{ apiVersion: string }>().apiVersion).toBe(`${CRD_GROUP}/v1`);
    expect(v1.headers.warning).toBeUndefined();
    const stored = await api.kv.range(`/registry/${CRD_GROUP}/widgets/w1`);
    expect(JSON.parse(Buffer.from(stored.kvs[0].value).toString("utf8"))).toMatchObject({ apiVersion: `${CRD_GROUP}/v1` });
  });

  it("records a new storage version in status.storedVersions", async () => {
    const name = `widgets.${CRD_GROUP}`;
    const cur = (await api.admin.get(crdPath(api.profile, name))).json<{ metadata: Obj; spec: { versions: Obj[] } }>();
    cur.spec.versions = cur.spec.versions.map((v) => ({ ...v, storage: v.name === "v1beta1" }));
    const upd = await api.admin.put(crdPath(api.profile, name), cur);
    expect(upd.status, upd.text).toBe(200);
    expect(upd.json<{ status: { storedVersions: string[] } }>().status.storedVersions).toEqual(["v1", "v1beta1"]);
    const dropped = structuredClone(upd.json<{ spec: { versions: Obj[] } }>());
    dropped.spec.versions = dropped.spec.versions.filter((v) => v.name === "v1beta1");
    const rescoped = structuredClone(upd.json<{ spec: Obj }>());
    rescoped.spec.scope = "Namespaced";
    const immutable = await api.admin.put(crdPath(api.profile, name), rescoped);
    expect(immutable.status).toBe(422);
    expect(immutable.json<{ message: string }>().message).toContain('spec.scope: Invalid value: "Namespaced": field is immutable');
    const refused = await api.admin.put(crdPath(api.profile, name), dropped);
    expect(refused.status).toBe(422);
    expect(refused.json<{ message: string }>().message).toContain('status.storedVersions[0]: Invalid value: "v1": must appear in spec.versions');
  });

  it("deletes: Terminating, creates refused, custom resources removed (finalizers honoured), then the API is gone on both replicas", async () => {
    const base = `/apis/${CRD_GROUP}/v1/widgets`;
    const held = await api.admin.post(base, { apiVersion: `${CRD_GROUP}/v1`, kind: "Widget", metadata: { name: "held", finalizers: ["example.com/hold"] }, spec: {} });
    expect(held.status, held.text).toBe(201);
    const name = `widgets.${CRD_GROUP}`;
    const watch = admin2.watch(`${base}?watch=true`);
    await watch.waitFor(2); // the initial ADDED events of w1 and held
    const del = await api.admin.delete(crdPath(api.profile, name));
    expect(del.status, del.text).toBe(200);
    const terminating = del.json<{ metadata: { deletionTimestamp?: string; finalizers?: string[] }; status: { conditions: Array<Record<string, string>> } }>();
    expect(terminating.metadata.deletionTimestamp).toBeDefined();
    expect(terminating.metadata.finalizers).toContain(`customresourcecleanup.${api.profile.group("apiextensions")}`);
    expect(terminating.status.conditions.find((c) => c.type === "Terminating")).toMatchObject({ status: "True", reason: "InstanceDeletionInProgress", message: "CustomResource deletion is in progress" });
    const create = await eventually(
      () => admin2.post(base, { apiVersion: `${CRD_GROUP}/v1`, kind: "Widget", metadata: { name: "late" }, spec: {} }),
      (r) => r.status === 405,
    );
    expect(create.status).toBe(405);
    expect(create.json()).toMatchObject({ reason: "MethodNotAllowed", message: "create not allowed while custom resource definition is terminating" });
    // w1 goes; "held" waits for its finalizer and keeps the CRD.
    await eventually(() => api.admin.get(`${base}/w1`), (r) => r.status === 404);
    const heldNow = await eventually(() => api.admin.get(`${base}/held`), (r) => !!r.json<{ metadata: { deletionTimestamp?: string } }>().metadata.deletionTimestamp);
    expect(heldNow.status).toBe(200);
    expect((await api.admin.get(crdPath(api.profile, name))).status).toBe(200);
    const h = heldNow.json<{ metadata: Obj }>();
    const released = await api.admin.patch(`${base}/held`, { metadata: { finalizers: null, resourceVersion: h.metadata.resourceVersion } }, "application/merge-patch+json");
    expect(released.status, released.text).toBe(200);
    const gone = await eventually(() => api.admin.get(crdPath(api.profile, name)), (r) => r.status === 404);
    expect(gone.status).toBe(404);
    for (const client of [api.admin, admin2]) {
      const r = await eventually(() => client.get(base), (x) => x.status === 404);
      expect(r.status).toBe(404);
      const groups = await client.get("/apis");
      expect(groups.json<{ groups: Array<{ name: string }> }>().groups.map((g) => g.name)).not.toContain(CRD_GROUP);
    }
    // An open watch saw the deletions and ended when the resource stopped being served.
    await eventually(async () => watch.ended, (ended) => ended);
    expect(watch.ended).toBe(true);
    expect(watch.events.filter((e) => e.type === "DELETED").map((e) => (e.object.metadata as Obj).name)).toEqual(expect.arrayContaining(["w1", "held"]));
    // The objects are gone from the store too.
    const left = await api.kv.range(`/registry/${CRD_GROUP}/widgets/`, { end: `/registry/${CRD_GROUP}/widgets0` });
    expect(left.count).toBe(0);
  });
});

describe("a CRD in a built-in group", () => {
  it("does not take over a built-in resource", async () => {
    const group = api.profile.group("rbac");
    const crd = cronTabCrd(api.profile, { plural: "roles", kind: "Role" }) as { metadata: Obj; spec: Obj };
    crd.metadata.name = `roles.${group}`;
    crd.spec.group = group;
    const res = await api.admin.post(crdPath(api.profile), crd);
    expect(res.status, res.text).toBe(201);
    await eventually(
      () => api.admin.get(crdPath(api.profile, `roles.${group}`)),
      (r) => (r.json<{ status?: { conditions?: unknown[] } }>().status?.conditions ?? []).length > 0,
    );
    const role = await api.admin.post(`/apis/${group}/v1/namespaces/default/roles`, { apiVersion: `${group}/v1`, kind: "Role", metadata: { name: "r" }, rules: [] });
    expect(role.status, role.text).toBe(201);
    expect(role.json<{ rules: unknown[] }>().rules).toEqual([]);
  });
});

describe("conversion Webhook", () => {
  it("serves the storage version and answers other versions with a 500 Status when the webhook is unreachable, never a wrong object", async () => {
    const crd = cronTabCrd(api.profile, { plural: "gears", kind: "Gear", scope: "Cluster" }) as { spec: { versions: Obj[]; conversion?: Obj } };
    const v1 = crd.spec.versions[0];
    crd.spec.versions = [
      { ...structuredClone(v1), name: "v1" },
      { ...structuredClone(v1), name: "v2", storage: false },
    ];
    crd.spec.conversion = { strategy: "Webhook", webhook: { conversionReviewVersions: ["v1"], clientConfig: { url: "https://127.0.0.1:1/convert" } } };
    const res = await api.admin.post(crdPath(api.profile), crd);
    expect(res.status, res.text).toBe(201);
    await waitServed(api.admin, `/apis/${CRD_GROUP}/v1/gears`);
    const created = await api.admin.post(`/apis/${CRD_GROUP}/v1/gears`, { apiVersion: `${CRD_GROUP}/v1`, kind: "Gear", metadata: { name: "g" }, spec: {} });
    expect(created.status, created.text).toBe(201);
    const other = await api.admin.get(`/apis/${CRD_GROUP}/v2/gears/g`);
    expect(other.status).toBe(500);
    expect(other.json<{ message: string }>().message).toMatch(`conversion webhook for ${CRD_GROUP}/v1, Kind=Gear failed: Post "https://127.0.0.1:1/convert?timeout=30s": `);
    const write = await api.admin.post(`/apis/${CRD_GROUP}/v2/gears`, { apiVersion: `${CRD_GROUP}/v2`, kind: "Gear", metadata: { name: "g2" }, spec: {} });
    expect(write.status).toBe(500);
    expect((await api.admin.get(`/apis/${CRD_GROUP}/v1/gears/g2`)).status).toBe(404);
  });
});

describe("local APIServices of CRD group versions", () => {
  const group = "apisvc.example.com";
  const apiServicePath = (name: string) => `/apis/${api.profile.group("apiregistration")}/v1/apiservices/${name}`;
  type ApiService = { metadata: { labels?: Record<string, string> }; spec: Obj; status?: { conditions?: Array<Record<string, string>> } };

  function crdIn(plural: string, kind: string, versions: Array<[string, boolean]>): Obj {
    const crd = cronTabCrd(api.profile, { plural, kind, scope: "Cluster" }) as { metadata: Obj; spec: { group: string; versions: Obj[] } };
    const base = crd.spec.versions[0];
    crd.metadata.name = `${plural}.${group}`;
    crd.spec.group = group;
    crd.spec.versions = versions.map(([name, served], i) => ({ ...structuredClone(base), name, served, storage: i === 0 }));
    return crd;
  }

  async function statusOf(client: HttpsClient, name: string, want: number): Promise<number> {
    return (await eventually(() => client.get(apiServicePath(name)), (r) => r.status === want, 10_000)).status;
  }

  it("are created Available (Local) for every served version, on both replicas, and removed with the last CRD serving them", async () => {
    const first = await api.admin.post(crdPath(api.profile), crdIn("alphas", "Alpha", [["v1", true], ["v2", false]]));
    expect(first.status, first.text).toBe(201);
    const local = await eventually(
      () => admin2.get(apiServicePath(`v1.${group}`)),
      (r) => r.status === 200 && r.json<ApiService>().status?.conditions?.some((c) => c.type === "Available" && c.status === "True") === true,
      10_000,
    );
    const obj = local.json<ApiService>();
    expect(obj.metadata.labels?.[automanagedLabel(api.profile)]).toBe("true");
    expect(obj.spec).toEqual({ group, version: "v1", groupPriorityMinimum: 1000, versionPriority: 100 });
    expect(obj.status?.conditions?.find((c) => c.type === "Available")).toMatchObject({ reason: "Local", message: "Local APIServices are always available" });
    expect((await api.admin.get(apiServicePath(`v2.${group}`))).status).toBe(404); // not served
    const list = await api.admin.get(`/apis/${api.profile.group("apiregistration")}/v1/apiservices`);
    expect(list.json<{ items: Array<{ metadata: { name: string } }> }>().items.map((i) => i.metadata.name)).toContain(`v1.${group}`);

    const second = await api.admin.post(crdPath(api.profile), crdIn("betas", "Beta", [["v1", true], ["v1alpha1", true]]));
    expect(second.status, second.text).toBe(201);
    expect(await statusOf(admin2, `v1alpha1.${group}`, 200)).toBe(200);

    // The first CRD goes: v1 is still served by the second.
    expect((await api.admin.delete(crdPath(api.profile, `alphas.${group}`))).status).toBe(200);
    await eventually(() => api.admin.get(crdPath(api.profile, `alphas.${group}`)), (r) => r.status === 404);
    await new Promise((r) => setTimeout(r, 300));
    expect((await api.admin.get(apiServicePath(`v1.${group}`))).status).toBe(200);

    // The last one goes: both APIServices are deleted; a deleted one is not brought back.
    expect((await admin2.delete(crdPath(api.profile, `betas.${group}`))).status).toBe(200);
    expect(await statusOf(api.admin, `v1.${group}`, 404)).toBe(404);
    expect(await statusOf(admin2, `v1alpha1.${group}`, 404)).toBe(404);
  });

  it("leave the built-in APIService of a group version a CRD also serves as it is (onstart)", async () => {
    // The rbac CRD of the test above shares v1 with the built-in group.
    const rbac = await api.admin.get(apiServicePath(`v1.${api.profile.group("rbac")}`));
    expect(rbac.status).toBe(200);
    expect(rbac.json<ApiService>().metadata.labels?.[automanagedLabel(api.profile)]).toBe("onstart");
    expect(rbac.json<ApiService>().spec).toMatchObject({ groupPriorityMinimum: 17000, versionPriority: 15 });
  });
});
