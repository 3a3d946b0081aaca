/** GET answers from bytes encoded once per object version and variant: never stale, never shared across variants. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { builtinKinds } from "../../shared/api/groups/index.ts";
import { decodeObject } from "../../shared/codec/protobuf/index.ts";
import type { KindDefinition } from "../../shared/schema/types.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
let configMapDef: KindDefinition;
beforeAll(async () => {
  api = await startTestApiserver();
  configMapDef = builtinKinds(api.profile).find((k) => k.kind === "ConfigMap" && k.group === "core") as KindDefinition;
});
afterAll(async () => {
  await api?.close();
});

const base = "/api/v1/namespaces/default/configmaps";
type ConfigMap = { apiVersion: string; kind: string; metadata: { name: string; resourceVersion: string }; data?: Record<string, string> };

describe("GET bytes", () => {
  it("answers the new object after an update and a 404 after a delete", async () => {
    await api.admin.post(base, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "enc-upd" }, data: { v: "1" } });
    const before = await api.admin.get(`${base}/enc-upd`);
    expect((await api.admin.get(`${base}/enc-upd`)).text).toBe(before.text);
    const cm = before.json<ConfigMap>();
    const updated = await api.admin.put(`${base}/enc-upd`, { ...cm, data: { v: "2" } });
    expect(updated.status, updated.text).toBe(200);
    const after = await api.admin.get(`${base}/enc-upd`);
    expect(after.json<ConfigMap>().data).toEqual({ v: "2" });
    expect(after.json<ConfigMap>().metadata.resourceVersion).toBe(updated.json<ConfigMap>().metadata.resourceVersion);
    expect(after.text).toBe(updated.text);
    const patched = await api.admin.patch(`${base}/enc-upd`, { data: { v: "3" } }, "application/merge-patch+json");
    expect(patched.status, patched.text).toBe(200);
    expect((await api.admin.get(`${base}/enc-upd`, { accept: "application/yaml" })).text).toContain("v: \"3\"");
    expect((await api.admin.get(`${base}/enc-upd`)).json<ConfigMap>().data).toEqual({ v: "3" });
    expect((await api.admin.delete(`${base}/enc-upd`)).status).toBe(200);
    expect((await api.admin.get(`${base}/enc-upd`)).status).toBe(404);
  });

  it("gives each encoding, pretty form and conversion its own bytes", async () => {
    await api.admin.post(base, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "enc-var" }, data: { k: "v" } });
    const path = `${base}/enc-var`;
    // Every variant twice, interleaved, so a second request could only be wrong through the cache.
    for (let round = 0; round < 2; round++) {
      const json = await api.admin.get(path);
      expect(json.headers["content-type"]).toBe("application/json");
      expect(json.text.startsWith('{"apiVersion":"v1","kind":"ConfigMap"')).toBe(true);
      const pretty = await api.admin.get(`${path}?pretty=true`);
      expect(pretty.text).toBe(JSON.stringify(json.json(), null, 2) + "\n");
      const yaml = await api.admin.get(path, { accept: "application/yaml" });
      expect(yaml.headers["content-type"]).toBe("application/yaml");
      expect(parseYaml(yaml.text)).toEqual(json.json());
      const proto = await api.admin.get(path, { accept: api.profile.protobufMediaType });
      expect(proto.headers["content-type"]).toBe(api.profile.protobufMediaType);
      expect(decodeObject(configMapDef, proto.body)).toMatchObject({ data: { k: "v" }, metadata: { name: "enc-var" } });
      const partial = await api.admin.get(path, { accept: `application/json;as=PartialObjectMetadata;g=${api.profile.metaGroup};v=v1` });
      expect(partial.json()).toMatchObject({ kind: "PartialObjectMetadata", metadata: { name: "enc-var" } });
      expect(partial.json()).not.toHaveProperty("data");
      const table = await api.admin.get(path, { accept: `application/json;as=Table;g=${api.profile.metaGroup};v=v1` });
      expect(table.json()).toMatchObject({ kind: "Table" });
      // The plain JSON form is unchanged by the other variants.
      expect((await api.admin.get(path)).text).toBe(json.text);
    }
  });

  it("keeps a watch's frames and a GET's bytes of the same object apart", async () => {
    const list = (await api.admin.get(`${base}?limit=1`)).json<{ metadata: { resourceVersion: string } }>();
    const watch = api.admin.watch(`${base}?watch=1&resourceVersion=${list.metadata.resourceVersion}&fieldSelector=metadata.name%3Denc-watch`);
    await new Promise((r) => setTimeout(r, 200));
    await api.admin.post(base, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "enc-watch" }, data: { w: "1" } });
    const [event] = await watch.waitFor(1);
    watch.stop();
    const got = await api.admin.get(`${base}/enc-watch`);
    expect(event.type).toBe("ADDED");
    expect(got.json()).toEqual(event.object);
    expect(got.text.includes('"type"')).toBe(false);
  });
});
