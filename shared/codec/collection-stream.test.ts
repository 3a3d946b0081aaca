import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify as yamlStringify } from "yaml";
import { kinds as coreKinds } from "../api/groups/core-v1.ts";
import { SAMPLES_DIR, defaultObject } from "../api/testing/sample-harness.ts";
import { getProfile } from "../platform/index.ts";
import { decodeYamlStrict } from "../schema/index.ts";
import type { KindDefinition } from "../schema/types.ts";
import { encodeCbor } from "./cbor.ts";
import { chunkedStream, readAll, type Piece } from "./chunked-stream.ts";
import { cborCollection, jsonCollection, yamlCollection, type CollectionParts } from "./collection-stream.ts";
import { encodeList, encodeObject } from "./protobuf/object.ts";
import { protobufListBody } from "./protobuf/list-stream.ts";

type Obj = Record<string, unknown>;
const profile = getProfile();
const def = (kind: string): KindDefinition => {
  const d = coreKinds.find((k) => k.kind === kind);
  if (!d) throw new Error(kind);
  return d;
};
const pod = def("Pod");
const configMap = def("ConfigMap");
const podSample = defaultObject(pod, decodeYamlStrict(readFileSync(join(SAMPLES_DIR, "core-v1", "pod.yaml"), "utf8").split(/^---\s*$/m)[0]).value as Obj);

const text = (v: unknown, pretty: boolean): string => (pretty ? JSON.stringify(v, null, 2) + "\n" : JSON.stringify(v));
const utf8 = new TextEncoder();

/** Streams with tiny chunks so that every piece boundary is exercised. */
const stream = (pieces: Iterator<Piece>): Promise<Uint8Array> => readAll(chunkedStream(pieces, { chunkBytes: 7 }));

function configMaps(n: number): Obj[] {
  return Array.from({ length: n }, (_, i) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `cm-${i}`, namespace: "ns", resourceVersion: String(100 + i), labels: { i: String(i), "ünï": "çødé" } },
    data: { long: "word ".repeat(30 + (i % 5)), multi: "a\nb\n", quote: `"${i}"`, empty: "" },
  }));
}

const envelope = (extra: Obj = {}): Obj => ({ kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "77", ...extra } });
const parts = (items: Obj[], env: Obj = envelope(), arrayKey = "items", cached?: (i: number) => Uint8Array | undefined): CollectionParts => ({
  envelope: env,
  arrayKey,
  count: items.length,
  element: (i) => items[i],
  cached,
});

describe("streamed collection bodies equal whole ones", () => {
  const sizes = [0, 1, 2, 23, 24, 255, 256, 300];

  it("JSON, compact and pretty", async () => {
    for (const n of sizes) {
      const items = configMaps(n);
      for (const pretty of [false, true]) {
        const whole = text({ ...envelope({ continue: "tok" }), items }, pretty);
        const streamed = await stream(jsonCollection(parts(items, envelope({ continue: "tok" })), text, pretty));
        expect(Buffer.from(streamed).toString("utf8"), `n=${n} pretty=${pretty}`).toBe(whole);
      }
    }
    // An envelope with no keys, and a Table's rows.
    expect(Buffer.from(await stream(jsonCollection(parts(configMaps(2), {}), text, false))).toString()).toBe(text({ items: configMaps(2) }, false));
    expect(Buffer.from(await stream(jsonCollection(parts(configMaps(2), {}), text, true))).toString()).toBe(text({ items: configMaps(2) }, true));
    const table = { kind: "Table", apiVersion: "meta/v1", metadata: {}, columnDefinitions: [{ name: "Name" }] };
    const rows = configMaps(3).map((o) => ({ cells: [(o.metadata as Obj).name], object: null }));
    expect(Buffer.from(await stream(jsonCollection(parts(rows, table, "rows"), text, true))).toString()).toBe(text({ ...table, rows }, true));
  });

  it("JSON reuses the cached bytes of an item", async () => {
    const items = configMaps(3);
    const cached = (i: number) => (i === 1 ? utf8.encode(text(items[1], false)) : undefined);
    const streamed = await stream(jsonCollection(parts(items, envelope(), "items", cached), text, false));
    expect(Buffer.from(streamed).toString()).toBe(text({ ...envelope(), items }, false));
  });

  it("YAML", async () => {
    const opts = { aliasDuplicateObjects: false } as const;
    for (const n of [0, 1, 5]) {
      const items = configMaps(n);
      const streamed = await stream(yamlCollection(parts(items)));
      expect(Buffer.from(streamed).toString("utf8"), `n=${n}`).toBe(yamlStringify({ ...envelope(), items }, opts));
    }
    expect(Buffer.from(await stream(yamlCollection(parts(configMaps(2), {})))).toString()).toBe(yamlStringify({ items: configMaps(2) }, opts));
  });

  it("CBOR, with every array header size and cached items", async () => {
    for (const n of [...sizes, 70_000]) {
      const items = n === 70_000 ? Array.from({ length: n }, (_, i) => ({ i })) : configMaps(n);
      const cached = (i: number) => (i % 2 === 0 ? encodeCbor(items[i]) : undefined);
      const streamed = await readAll(chunkedStream(cborCollection(parts(items, envelope(), "items", cached))));
      expect(Buffer.from(streamed).equals(Buffer.from(encodeCbor({ ...envelope(), items }))), `n=${n}`).toBe(true);
    }
  });

  it("protobuf, items sized first (kept or encoded again) and cached bodies reused", async () => {
    const pods = Array.from({ length: 40 }, (_, i) => ({ ...podSample, metadata: { ...(podSample.metadata as Obj), name: `p-${i}`, resourceVersion: String(i + 1) } }));
    const metadata = { resourceVersion: "99", continue: "next", remainingItemCount: 3 };
    for (const [kind, items] of [
      [pod, pods],
      [configMap, configMaps(300)],
      [configMap, []],
    ] as Array<[KindDefinition, Obj[]]>) {
      const whole = encodeList(kind, { apiVersion: "v1", kind: `${kind.kind}List`, metadata, items }, profile);
      for (const retain of [0, 2000, 1 << 20]) {
        const cached = (i: number) => (i % 3 === 0 ? encodeObject(kind, items[i], profile) : undefined);
        const body = protobufListBody(kind, profile, { metadata, count: items.length, item: (i) => items[i], cached }, retain);
        const streamed = await stream(body);
        expect(Buffer.from(streamed).equals(Buffer.from(whole)), `${kind.kind} x${items.length} retain=${retain}`).toBe(true);
      }
    }
  });
});

describe("chunkedStream", () => {
  it("pulls pieces only when asked and hands them on in chunks", async () => {
    let produced = 0;
    function* pieces(): Generator<Piece> {
      for (let i = 0; i < 100; i++) {
        produced++;
        yield "x".repeat(1000);
      }
    }
    const reader = chunkedStream(pieces(), { chunkBytes: 10_000 }).getReader();
    const first = await reader.read();
    const n = first.value?.length ?? 0;
    // A chunk ends at chunkBytes or when its slice of time is used up (a loaded machine).
    expect(n % 1000).toBe(0);
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThanOrEqual(10_000);
    // Nothing is produced beyond what was handed on until the next read.
    await new Promise((r) => setTimeout(r, 20));
    expect(produced).toBe(n / 1000);
    let total = n;
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      total += r.value.length;
    }
    expect(total).toBe(100_000);
  });

  it("ends the generator when the stream is cancelled and errors when it throws", async () => {
    let finished = false;
    function* pieces(): Generator<Piece> {
      try {
        for (;;) yield "y".repeat(100);
      } finally {
        finished = true;
      }
    }
    const reader = chunkedStream(pieces(), { chunkBytes: 100 }).getReader();
    await reader.read();
    await reader.cancel();
    expect(finished).toBe(true);
    function* failing(): Generator<Piece> {
      yield "a";
      throw new Error("boom");
    }
    await expect(readAll(chunkedStream(failing()))).rejects.toThrow("boom");
  });
});
