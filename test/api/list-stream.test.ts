/**
 * Large lists are streamed item by item (endpoints/list-body.ts): over HTTPS the body
 * arrives in many chunks and decodes to every item in each encoding and form, gzip
 * included; items whose bytes a GET cached are written with the same bytes.
 */
import { request as httpsRequest } from "node:https";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { decodeCbor } from "../../shared/codec/cbor.ts";
import { decodeList } from "../../shared/codec/protobuf/index.ts";
import { builtinKinds } from "../../shared/api/groups/index.ts";
import type { KindDefinition } from "../../shared/schema/types.ts";
import { ensurePki } from "../../services/apiserver/server/certs.ts";
import { FeatureGates } from "../../services/apiserver/server/feature-gates.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

type Obj = Record<string, unknown>;
interface ConfigMapList {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion: string };
  items: Array<{ apiVersion: string; kind: string; metadata: { name: string }; data: Record<string, string> }>;
}

const COUNT = 300;
const base = "/api/v1/namespaces/big/configmaps";
let api: TestApiserver;
let tls: { ca: string; cert: string; key: string };

/** GET with the chunks as they arrived on the socket. */
function getChunks(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; chunks: Buffer[]; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(path, api.replica.url), { headers, ...tls, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, chunks, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const payload = (i: number): string => `${i}:`.padEnd(8 * 1024, "abcdefghijklmnopqrstuvwxyz");

beforeAll(async () => {
  const gates = new FeatureGates();
  gates.set(["CBORServingAndStorage=true"]);
  api = await startTestApiserver({ gates });
  const pki = await ensurePki(api.dir);
  tls = { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem };
  await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "big" } });
  for (let i = 0; i < COUNT; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, COUNT - i) }, (_, j) =>
        api.admin.post(base, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${String(i + j).padStart(4, "0")}` }, data: { v: payload(i + j) } }),
      ),
    );
  }
}, 120_000);

afterAll(async () => {
  await api?.close();
});

describe("a large list", () => {
  it("arrives in chunks, as compact JSON holding every item once", async () => {
    const res = await getChunks(base);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json");
    expect(res.body.length).toBeGreaterThan(COUNT * 8 * 1024);
    expect(res.chunks.length).toBeGreaterThan(4);
    const text = res.body.toString("utf8");
    const list = JSON.parse(text) as ConfigMapList;
    expect(JSON.stringify(list)).toBe(text);
    expect(Object.keys(list)).toEqual(["kind", "apiVersion", "metadata", "items"]);
    expect(list.kind).toBe("ConfigMapList");
    expect(list.items.map((o) => o.metadata.name)).toEqual(Array.from({ length: COUNT }, (_, i) => `cm-${String(i).padStart(4, "0")}`));
    list.items.forEach((o, i) => {
      expect(o.apiVersion).toBe("v1");
      expect(o.kind).toBe("ConfigMap");
      expect(o.data.v).toBe(payload(i));
    });
  });

  it("has the same bytes when some items' bytes were cached by GETs", async () => {
    const before = await getChunks(base);
    for (let i = 0; i < COUNT; i += 7) expect((await api.admin.get(`${base}/cm-${String(i).padStart(4, "0")}`)).status).toBe(200);
    const after = await getChunks(base);
    expect(after.body.equals(before.body)).toBe(true);
  });

  it("is the same list gzip-compressed, pretty, in YAML, protobuf, CBOR and as a Table", async () => {
    const plain = JSON.parse((await getChunks(base)).body.toString("utf8")) as ConfigMapList;

    const gz = await getChunks(base, { "accept-encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(gunzipSync(gz.body).toString("utf8"))).toEqual(plain);

    const pretty = (await getChunks(`${base}?pretty=true`)).body.toString("utf8");
    expect(pretty).toBe(JSON.stringify(plain, null, 2) + "\n");

    const yaml = await getChunks(base, { accept: "application/yaml" });
    expect(yaml.headers["content-type"]).toBe("application/yaml");
    expect(parseYaml(yaml.body.toString("utf8"))).toEqual(plain);

    const def = builtinKinds(api.profile).find((k) => k.kind === "ConfigMap" && k.group === "core") as KindDefinition;
    const pb = await getChunks(base, { accept: api.profile.protobufMediaType });
    expect(pb.headers["content-type"]).toBe(api.profile.protobufMediaType);
    const decoded = decodeList(def, pb.body) as unknown as ConfigMapList;
    expect(decoded.metadata.resourceVersion).toBe(plain.metadata.resourceVersion);
    expect(decoded.items.map((o) => [o.metadata.name, o.data.v])).toEqual(plain.items.map((o) => [o.metadata.name, o.data.v]));

    const cbor = await getChunks(base, { accept: "application/cbor" });
    expect(cbor.headers["content-type"]).toBe("application/cbor");
    expect(decodeCbor(cbor.body)).toEqual(plain);

    const table = await getChunks(base, { accept: `application/json;as=Table;g=${api.profile.metaGroup};v=v1` });
    const t = JSON.parse(table.body.toString("utf8")) as { kind: string; metadata: Obj; rows: Array<{ cells: unknown[]; object: { metadata: { name: string } } }> };
    expect(t.kind).toBe("Table");
    expect(t.metadata.resourceVersion).toBe(plain.metadata.resourceVersion);
    expect(t.rows.map((r) => r.cells[0])).toEqual(plain.items.map((o) => o.metadata.name));
    expect(t.rows.map((r) => r.object.metadata.name)).toEqual(plain.items.map((o) => o.metadata.name));
  });

  it("answers a bad includeObject with a 400 Status before any item is written", async () => {
    const res = await getChunks(`${base}?includeObject=Everything`, { accept: `application/json;as=Table;g=${api.profile.metaGroup};v=v1` });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body.toString("utf8"))).toMatchObject({ kind: "Status", status: "Failure", reason: "BadRequest", code: 400 });
  });
});
