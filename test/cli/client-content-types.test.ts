/**
 * The client library's content types against a real replica over HTTPS (CBOR gate on):
 * with json, protobuf and cbor chosen, ConfigMaps are created, read, listed, updated and
 * deleted, each request and answer in the chosen type (the server's protobuf and CBOR
 * answers decoded, a Status error too); a custom resource, which has no protobuf form,
 * goes as JSON with protobuf chosen. Watches stream in each type (JSON lines, protobuf
 * frames, a CBOR sequence). The typed clients of the common kinds (here over
 * protobuf) create, read, list, update and delete with apiVersion and kind filled in.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeatureGates } from "../../services/apiserver/server/feature-gates.ts";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import type { ResourceRef } from "../../shared/client/object-client.ts";
import { typedClients } from "../../shared/client/typed.ts";
import { CONTENT_TYPES } from "../../shared/client/wire-codec.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { CRD_GROUP, crdPath, cronTabCrd, waitServed } from "../support/crd-fixtures.ts";
import { ensurePki } from "../../services/apiserver/server/certs.ts";

let api: TestApiserver;
let certs: { ca: string; cert: string; key: string };

beforeAll(async () => {
  const gates = new FeatureGates();
  gates.set(["CBORServingAndStorage=true"]);
  api = await startTestApiserver({ gates, profileId: "kubernetes" });
  const pki = await ensurePki(api.dir, { profile: api.profile });
  certs = { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem };
});
afterAll(async () => {
  await api?.close();
});

const configMaps: ResourceRef = { group: "", version: "v1", resource: "configmaps" };

function client(contentType: (typeof CONTENT_TYPES)[number]) {
  const seen: Array<{ method: string; status: number; contentType?: string; requestContentType?: string }> = [];
  const c = new HttpsObjectClient({ server: api.replica.url, ca: certs.ca, cert: certs.cert, key: certs.key, insecureSkipTlsVerify: false }, { contentType, profile: api.profile, onResponse: (a) => seen.push(a) });
  return { c, seen };
}

describe("content types", () => {
  it.each(CONTENT_TYPES)("%s: create, get, list, update and delete ConfigMaps in that type; errors are Status errors", async (type) => {
    const media = { json: "application/json", protobuf: api.profile.protobufMediaType, cbor: "application/cbor" }[type];
    const { c, seen } = client(type);
    try {
      const name = `ct-${type}`;
      const created = await c.create(configMaps, { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default", labels: { via: type } }, data: { big: "x".repeat(300), n: "1" } });
      expect(created).toMatchObject({ kind: "ConfigMap", metadata: { name, labels: { via: type } }, data: { n: "1" } });
      const got = await c.get(configMaps, name, { namespace: "default" });
      expect(got.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
      const list = await c.list(configMaps, { namespace: "default", labelSelector: `via=${type}` });
      expect(list.items.map((i) => i.metadata.name)).toEqual([name]);
      const updated = await c.update(configMaps, { ...got, data: { n: "2" } });
      expect((updated as { data?: Record<string, string> }).data).toEqual({ n: "2" });
      await expect(c.get(configMaps, "missing", { namespace: "default" })).rejects.toMatchObject({ code: 404, reason: "NotFound" });
      await c.delete(configMaps, name, { namespace: "default" });
      // Every request body and every successful answer was in the chosen type (this server answers errors in JSON).
      expect(seen.filter((s) => s.method === "POST" || s.method === "PUT").map((s) => s.requestContentType)).toEqual([media, media]);
      expect(seen.filter((s) => s.status < 300).map((s) => `${s.method} ${s.contentType?.split(";")[0]}`)).toEqual(["POST", "GET", "GET", "PUT", "DELETE"].map((m) => `${m} ${media}`));
    } finally {
      c.close();
    }
  });

  it.each(CONTENT_TYPES)("%s: watches ConfigMaps, the stream in that type", async (type) => {
    const media = { json: "application/json", protobuf: api.profile.protobufMediaType, cbor: "application/cbor-seq" }[type];
    const { c, seen } = client(type);
    const list = await c.list(configMaps, { namespace: "default" });
    const w = c.watch(configMaps, { namespace: "default", resourceVersion: list.metadata.resourceVersion });
    try {
      const events: Array<{ type: string; name?: string; data?: unknown }> = [];
      const reading = (async () => {
        for await (const ev of w) {
          if (ev.type === "BOOKMARK" || ev.type === "ERROR") continue;
          events.push({ type: ev.type, name: ev.object.metadata.name, data: ev.object.data });
          if (events.length === 2) return;
        }
      })();
      const made = await c.create(configMaps, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `w-${type}`, namespace: "default" }, data: { a: "1" } });
      await c.delete(configMaps, made.metadata.name ?? "", { namespace: "default" });
      await reading;
      expect(events).toEqual([
        { type: "ADDED", name: `w-${type}`, data: { a: "1" } },
        { type: "DELETED", name: `w-${type}`, data: { a: "1" } },
      ]);
      // The last GET answer is the watch's (the list's came first).
      expect(seen.filter((s) => s.method === "GET").map((s) => s.contentType?.split(";")[0]).at(-1)).toBe(media);
    } finally {
      w.stop();
      c.close();
    }
  });

  it("protobuf chosen: a custom resource goes as JSON and its JSON answer is read", async () => {
    const res = await api.admin.post(crdPath(api.profile), cronTabCrd(api.profile));
    expect(res.status, res.text).toBe(201);
    await waitServed(api.admin, `/apis/${CRD_GROUP}/v1/namespaces/default/crontabs`);
    const { c, seen } = client("protobuf");
    try {
      const crontabs: ResourceRef = { group: CRD_GROUP, version: "v1", resource: "crontabs" };
      const created = await c.create(crontabs, { apiVersion: `${CRD_GROUP}/v1`, kind: "CronTab", metadata: { name: "pb", namespace: "default" }, spec: { cronSpec: "* * * * *" } });
      expect(created).toMatchObject({ kind: "CronTab", spec: { cronSpec: "* * * * *", replicas: 1 } });
      expect((await c.get(crontabs, "pb", { namespace: "default" })).metadata.name).toBe("pb");
      expect(seen.map((s) => [s.requestContentType, s.contentType?.split(";")[0]])).toEqual([
        ["application/json", "application/json"],
        [undefined, "application/json"],
      ]);
    } finally {
      c.close();
    }
  });
});

describe("typed clients", () => {
  it("create, get, list, update and delete Namespaces, ConfigMaps, Secrets, Pods, Services and Deployments", async () => {
    const { c } = client("protobuf");
    const t = typedClients(c, api.profile);
    try {
      const ns = await t.namespaces.create({ metadata: { name: "typed" } });
      expect(ns).toMatchObject({ apiVersion: "v1", kind: "Namespace", status: { phase: "Active" } });
      const cm = await t.configMaps.create({ metadata: { name: "cm", namespace: "typed" }, data: { k: "v" } });
      expect(cm.data).toEqual({ k: "v" });
      const secret = await t.secrets.create({ metadata: { name: "s", namespace: "typed" }, stringData: { password: "hunter2" } });
      expect(secret.data).toEqual({ password: Buffer.from("hunter2").toString("base64") });
      const pod = await t.pods.create({ metadata: { name: "p", namespace: "typed" }, spec: { containers: [{ name: "c", image: "busybox" }] } });
      expect(pod.spec?.containers.map((x) => x.name)).toEqual(["c"]);
      const svc = await t.services.create({ metadata: { name: "svc", namespace: "typed" }, spec: { selector: { app: "a" }, ports: [{ port: 80 }] } });
      expect(svc.spec?.ports?.[0]).toMatchObject({ port: 80, protocol: "TCP" });
      const dep = await t.deployments.create({
        metadata: { name: "d", namespace: "typed" },
        spec: { replicas: 2, selector: { matchLabels: { app: "a" } }, template: { metadata: { labels: { app: "a" } }, spec: { containers: [{ name: "c", image: "busybox" }] } } },
      });
      expect(dep).toMatchObject({ apiVersion: api.profile.apiVersion("apps", "v1"), kind: "Deployment", spec: { replicas: 2 } });
      const scaled = await t.deployments.update({ ...dep, spec: { ...(dep.spec as NonNullable<typeof dep.spec>), replicas: 3 } });
      expect(scaled.spec?.replicas).toBe(3);
      expect((await t.configMaps.list({ namespace: "typed" })).items.map((i) => i.data)).toEqual([{ k: "v" }]);
      expect((await t.deployments.get("d", "typed")).spec?.replicas).toBe(3);
      await t.configMaps.delete("cm", { namespace: "typed" });
      await expect(t.configMaps.get("cm", "typed")).rejects.toMatchObject({ code: 404 });
    } finally {
      c.close();
    }
  });
});
