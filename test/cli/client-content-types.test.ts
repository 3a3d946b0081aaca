/**
 * The client library's content types against a real replica over HTTPS (CBOR gate on):
 * with json, protobuf and cbor chosen, ConfigMaps are created, read, listed, updated and
 * deleted, each request and answer in the chosen type (the server's protobuf and CBOR
 * answers decoded, a Status error too); a custom resource, which has no protobuf form,
 * goes as JSON with protobuf chosen, in both profiles.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeatureGates } from "../../services/apiserver/server/feature-gates.ts";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import type { ResourceRef } from "../../shared/client/object-client.ts";
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
