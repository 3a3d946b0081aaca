import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeCbor, encodeCbor } from "../../shared/codec/cbor.ts";
import { decodeEnvelope, decodeList, decodeObject, decodeFrames, decodeWatchEvent, encodeObject, PROTOBUF_MAGIC } from "../../shared/codec/protobuf/index.ts";
import { builtinKinds } from "../../shared/api/groups/index.ts";
import { FeatureGates } from "../../services/apiserver/server/feature-gates.ts";
import type { KindDefinition } from "../../shared/schema/types.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
let configMapDef: KindDefinition;
let proto: string;
beforeAll(async () => {
  api = await startTestApiserver();
  configMapDef = builtinKinds(api.profile).find((k) => k.kind === "ConfigMap" && k.group === "core") as KindDefinition;
  proto = api.profile.protobufMediaType;
});
afterAll(async () => {
  await api?.close();
});

const base = "/api/v1/namespaces/default/configmaps";

describe("protobuf", () => {
  it("creates from a protobuf body and answers in protobuf with the envelope prefix", async () => {
    const body = Buffer.from(encodeObject(configMapDef, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "pb" }, data: { k: "v" } }, api.profile));
    const res = await api.admin.request("POST", base, { raw: body, headers: { "content-type": proto, accept: proto } });
    expect(res.status, res.text).toBe(201);
    expect(res.headers["content-type"]).toBe(proto);
    expect([...res.body.subarray(0, 4)]).toEqual([...PROTOBUF_MAGIC]);
    expect([...res.body.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
    const env = decodeEnvelope(res.body);
    expect(env).toMatchObject({ apiVersion: "v1", kind: "ConfigMap" });
    const obj = decodeObject(configMapDef, res.body);
    expect(obj.data).toEqual({ k: "v" });
    const json = (await api.admin.get(`${base}/pb`)).json<{ data: Record<string, string>; metadata: { uid: string } }>();
    expect(json.data).toEqual({ k: "v" });
    expect((obj.metadata as { uid: string }).uid).toBe(json.metadata.uid);
  });

  it("lists and watches in protobuf (length-prefixed frames)", async () => {
    const list = await api.admin.get(base, { accept: proto });
    const decoded = decodeList(configMapDef, list.body);
    expect((decoded.items as unknown[]).length).toBeGreaterThan(0);
    const res = await api.admin.request("GET", `${base}?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3Dpb`, { headers: { accept: proto } });
    expect(res.headers["content-type"]).toBe(`${proto};stream=watch`);
    const frames = decodeFrames(res.body);
    expect(frames.length).toBeGreaterThanOrEqual(1);
    const ev = decodeWatchEvent(configMapDef, frames[0]);
    expect(ev.type).toBe("ADDED");
  });

  it("rejects a truncated envelope and a wrong magic with 400, storing nothing", async () => {
    const good = Buffer.from(encodeObject(configMapDef, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "pb-bad" } }, api.profile));
    for (const raw of [good.subarray(0, 7), Buffer.concat([Buffer.from([1, 2, 3, 4]), good.subarray(4)]), Buffer.from("garbage")]) {
      const res = await api.admin.request("POST", base, { raw, headers: { "content-type": proto } });
      expect(res.status).toBe(400);
      expect(res.json()).toMatchObject({ kind: "Status", code: 400 });
    }
    expect((await api.admin.get(`${base}/pb-bad`)).status).toBe(404);
  });

  it("answers 406 for protobuf on kinds without it and falls back when the client lists JSON", async () => {
    const fallback = await api.admin.get(`/apis/apps/v1/namespaces/default/deployments`, { accept: `${proto}, application/json` });
    expect(fallback.status).toBe(200);
  });
});

describe("CBOR", () => {
  it("is off by default: 406 for Accept, 415 for a CBOR body", async () => {
    expect((await api.admin.get(base, { accept: "application/cbor" })).status).toBe(406);
    const res = await api.admin.request("POST", base, { raw: Buffer.from(encodeCbor({ metadata: { name: "c" } })), headers: { "content-type": "application/cbor" } });
    expect(res.status).toBe(415);
  });

  it("is served with the CBORServingAndStorage gate, with invalid CBOR a 400", async () => {
    const gates = new FeatureGates();
    gates.set(["CBORServingAndStorage=true"]);
    const gated = await startTestApiserver({ gates });
    try {
      const res = await gated.admin.request("POST", base, {
        raw: Buffer.from(encodeCbor({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cb" }, data: { a: "b" } })),
        headers: { "content-type": "application/cbor", accept: "application/cbor" },
      });
      expect(res.status, res.text).toBe(201);
      expect(res.headers["content-type"]).toBe("application/cbor");
      expect(decodeCbor(res.body)).toMatchObject({ kind: "ConfigMap", data: { a: "b" } });
      const bad = await gated.admin.request("POST", base, { raw: Buffer.from([0xbf, 0x61]), headers: { "content-type": "application/cbor" } });
      expect(bad.status).toBe(400);
      const watch = await gated.admin.request("GET", `${base}?watch=1&timeoutSeconds=1`, { headers: { accept: "application/cbor" } });
      expect(watch.headers["content-type"]).toBe("application/cbor-seq");
    } finally {
      await gated.close();
    }
  });
});

describe("YAML", () => {
  it("reads and writes YAML, rejecting duplicate keys in Strict mode and alias bombs", async () => {
    const yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\ndata:\n  a: '1'\n";
    const res = await api.admin.request("POST", base, { raw: yaml, headers: { "content-type": "application/yaml", accept: "application/yaml" } });
    expect(res.status, res.text).toBe(201);
    expect(res.headers["content-type"]).toBe("application/yaml");
    expect(res.text).toContain("name: y1");
    const dup = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y2\n  name: y3\n";
    const strict = await api.admin.request("POST", `${base}?fieldValidation=Strict`, { raw: dup, headers: { "content-type": "application/yaml" } });
    expect(strict.status).toBe(400);
    expect(strict.json<{ message: string }>().message).toContain('duplicate field "metadata.name"');
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]", ...Array.from({ length: 9 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`)].join("\n");
    const boom = await api.admin.request("POST", base, { raw: bomb, headers: { "content-type": "application/yaml" } });
    expect(boom.status).toBe(400);
    const deep = "[".repeat(5000) + "]".repeat(5000);
    const nested = await api.admin.request("POST", base, { raw: deep, headers: { "content-type": "application/json" } });
    expect(nested.status).toBe(400);
    expect((await api.admin.get("/livez")).status).toBe(200);
  });
});
