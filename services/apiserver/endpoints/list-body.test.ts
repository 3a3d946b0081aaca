/**
 * List bodies: the bytes of the sliced, streamed body equal the one-shot encoding of
 * the whole list for each encoding, kind and size; a list whose reader goes away
 * stops encoding; a repeated compact JSON or protobuf list copies the item bytes the first kept.
 */
import type { ServerResponse } from "node:http";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readAll } from "../../../shared/codec/chunked-stream.ts";
import { builtinKinds } from "../../../shared/api/groups/index.ts";
import { getProfile } from "../../../shared/platform/index.ts";
import type { KindDefinition } from "../../../shared/schema/types.ts";
import { resourceInfo } from "../registry/resource.ts";
import type { JsonObject } from "../storage/object.ts";
import { claimDirectBody } from "./direct-body.ts";
import { encodeBody } from "./encode.ts";
import { listResponse, type ListMeta } from "./list-body.ts";
import type { Encoding } from "./negotiation.ts";
import type { RequestScope } from "./scope.ts";

const profile = getProfile("kubernetes");
const kinds = builtinKinds(profile);
const kindOf = (kind: string): KindDefinition => kinds.find((k) => k.kind === kind && k.group === "core") as KindDefinition;

type ScopeParts = Pick<RequestScope, "profile" | "resource" | "encoding" | "mediaType" | "pretty" | "warnings" | "query" | "target">;

function scope(def: KindDefinition, encoding: Encoding, mediaType: string, pretty = false): RequestScope {
  const parts: ScopeParts = { profile, resource: resourceInfo(def, profile), encoding, mediaType, pretty, warnings: [], query: new URLSearchParams() };
  return parts as RequestScope;
}

function configMaps(n: number): JsonObject[] {
  return Array.from({ length: n }, (_, i) => ({
    metadata: { name: `cm-${i}`, namespace: "ns", resourceVersion: String(100 + i), uid: `u-${i}` },
    data: { key: `value ${i} ü "quoted" ${"z".repeat(i % 300)}` },
  }));
}

function pods(n: number): JsonObject[] {
  return Array.from({ length: n }, (_, i) => ({
    metadata: { name: `pod-${i}`, namespace: "ns", labels: { app: `a${i % 7}` } },
    spec: { containers: [{ name: "c", image: `img:${i}`, args: ["--n", String(i)] }], nodeName: `node-${i % 3}` },
    status: { phase: "Running" },
  }));
}

function oneShot(s: RequestScope, metadata: ListMeta, items: JsonObject[]): Uint8Array {
  const list = { kind: `${s.resource.kind}List`, apiVersion: s.resource.apiVersion, metadata: { ...metadata }, items: items.map((o) => ({ apiVersion: s.resource.apiVersion, kind: s.resource.kind, ...o })) };
  const body = encodeBody(s, list, "list");
  return typeof body === "string" ? Buffer.from(body, "utf8") : body;
}

async function bodyOf(res: Response): Promise<Buffer> {
  return Buffer.from(await readAll(res.body as ReadableStream<Uint8Array>));
}

describe("list bodies equal the one-shot encoding", () => {
  const encodings: Array<[string, Encoding, string, boolean]> = [
    ["JSON", "json", "application/json", false],
    ["pretty JSON", "json", "application/json", true],
    ["YAML", "yaml", "application/yaml", false],
    ["protobuf", "protobuf", profile.protobufMediaType, false],
    ["CBOR", "cbor", "application/cbor", false],
  ];
  const lists: Array<[string, (n: number) => JsonObject[]]> = [
    ["ConfigMap", configMaps],
    ["Pod", pods],
  ];
  for (const [name, encoding, mediaType, pretty] of encodings) {
    for (const [kind, make] of lists) {
      // The largest list is several chunks of 256 KiB (YAML, slow to make, takes many slices at 300).
      const sizes = encoding === "yaml" ? [0, 1, 40, 300] : [0, 1, 40, 2500];
      it(`${name}, ${kind}: ${sizes.join(", ")} items (the largest in many slices)`, async () => {
        for (const n of sizes) {
          const s = scope(kindOf(kind), encoding, mediaType, pretty);
          const items = make(n);
          const metadata: ListMeta = n === 40 ? { resourceVersion: "77", continue: "abc", remainingItemCount: 3 } : { resourceVersion: "77" };
          const got = await bodyOf(await listResponse(s, metadata, items));
          expect(got.equals(Buffer.from(oneShot(s, metadata, items))), `${n} items`).toBe(true);
        }
      });
    }
  }
});

/** ConfigMaps whose `data` counts how often it is read (each read is one encoding of the item). */
function watchedConfigMaps(n: number): { items: JsonObject[]; reads: () => number } {
  let reads = 0;
  const items = configMaps(n).map((o) => {
    const data = o.data;
    const item: JsonObject = { metadata: o.metadata };
    Object.defineProperty(item, "data", {
      enumerable: true,
      get: () => {
        reads++;
        return data;
      },
    });
    return item;
  });
  return { items, reads: () => reads };
}

describe("a list in flight", () => {
  const s = scope(kindOf("ConfigMap"), "json", "application/json");

  it("stops encoding when its reader goes away", async () => {
    const { items, reads } = watchedConfigMaps(20_000);
    const res = await listResponse(s, { resourceVersion: "9" }, items);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.read();
    await reader.cancel();
    const atCancel = reads();
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(reads()).toBe(atCancel);
    expect(atCancel).toBeLessThan(20_000);
  });

  it("offers to write itself to the node response when longer than its first chunk, with the stream's bytes", async () => {
    const request = new Request("https://127.0.0.1/api/v1/configmaps");
    const withRequest = { ...s, request } as RequestScope;
    const small = await listResponse(withRequest, { resourceVersion: "9" }, configMaps(40));
    expect(claimDirectBody(request, () => small.body)).toBeUndefined();
    const items = configMaps(2500);
    const res = await listResponse(withRequest, { resourceVersion: "9" }, items);
    const source = claimDirectBody(request, () => res.body);
    expect(source).toBeDefined();
    const written: Buffer[] = [];
    const out = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        written.push(chunk);
        callback();
      },
    });
    const finished = new Promise((resolve) => out.on("finish", resolve));
    source?.attach(out as unknown as ServerResponse);
    await finished;
    expect(Buffer.concat(written).equals(Buffer.from(oneShot(s, { resourceVersion: "9" }, items)))).toBe(true);
  });

  it.each([
    { name: "compact JSON", scope: s },
    { name: "protobuf", scope: scope(kindOf("ConfigMap"), "protobuf", profile.protobufMediaType) },
  ])("$name: a second list of the same objects copies the bytes the first one kept (no item encoded again)", async ({ scope: sc }) => {
    const { items, reads } = watchedConfigMaps(2000);
    const first = await bodyOf(await listResponse(sc, { resourceVersion: "9" }, items));
    expect(reads()).toBe(2000);
    const second = await bodyOf(await listResponse(sc, { resourceVersion: "10" }, items));
    expect(reads()).toBe(2000);
    expect(second.equals(Buffer.from(oneShot(sc, { resourceVersion: "10" }, items)))).toBe(true);
    expect(first.equals(Buffer.from(oneShot(sc, { resourceVersion: "9" }, items)))).toBe(true);
  });

});
