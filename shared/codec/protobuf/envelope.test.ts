import { describe, expect, it } from "vitest";
import { getProfile } from "../../platform/index.ts";
import { kinds as appsKinds } from "../../api/groups/apps-v1.ts";
import { kinds as coreKinds } from "../../api/groups/core-v1.ts";
import {
  FrameReader,
  PROTOBUF_MAGIC,
  ProtobufError,
  decodeEnvelope,
  envelopeRaw,
  decodeFrames,
  decodeList,
  decodeObject,
  decodeStatus,
  decodeWatchEvent,
  encodeEnvelope,
  encodeFrame,
  encodeList,
  encodeObject,
  encodeStatus,
  encodeWatchEvent,
  decodeMessage,
  hasProtobufMagic,
  messageLayout,
} from "./index.ts";
import { jsonSchemaProps } from "../../api/groups/apiextensions-v1.ts";

const profile = getProfile();
const kube = getProfile("kubernetes");
const byKind = (k: string) => {
  const d = [...coreKinds, ...appsKinds].find((x) => x.kind === k);
  if (!d) throw new Error(k);
  return d;
};
const pod = byKind("Pod");
const configMap = byKind("ConfigMap");
const deployment = byKind("Deployment");

function errorOf(f: () => unknown): ProtobufError {
  try {
    f();
  } catch (e) {
    if (e instanceof ProtobufError) return e;
    throw new Error(`expected a ProtobufError, got ${String(e)}`, { cause: e });
  }
  throw new Error("expected an error");
}

const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "default", labels: { x: "1", b: "" } }, data: { k: "v" }, immutable: false };

describe("envelope", () => {
  it("starts with 6b 38 73 00 and carries typeMeta, raw and empty content fields", () => {
    const bytes = encodeEnvelope({ apiVersion: "v1", kind: "Pod", raw: Uint8Array.of(1, 2, 3) });
    expect(Array.from(bytes.subarray(0, 4))).toEqual([0x6b, 0x38, 0x73, 0x00]);
    expect(Array.from(PROTOBUF_MAGIC)).toEqual([0x6b, 0x38, 0x73, 0x00]);
    // Unknown{typeMeta{apiVersion "v1", kind "Pod"}, raw 01 02 03, contentEncoding "", contentType ""}
    expect(Array.from(bytes.subarray(4))).toEqual([
      0x0a, 0x09, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x03, 0x50, 0x6f, 0x64, 0x12, 0x03, 0x01, 0x02, 0x03, 0x1a, 0x00, 0x22, 0x00,
    ]);
    expect(hasProtobufMagic(bytes)).toBe(true);
    const env = decodeEnvelope(bytes);
    expect(env).toMatchObject({ apiVersion: "v1", kind: "Pod", contentEncoding: "", contentType: "" });
    expect(Array.from(env.raw)).toEqual([1, 2, 3]);
  });

  it("round-trips content type and encoding", () => {
    const env = decodeEnvelope(encodeEnvelope({ apiVersion: "apps/v1", kind: "Deployment", raw: new Uint8Array(0), contentType: "application/json", contentEncoding: "gzip" }));
    expect(env).toMatchObject({ apiVersion: "apps/v1", kind: "Deployment", contentType: "application/json", contentEncoding: "gzip" });
  });

  it("rejects empty, short, wrong-magic, truncated and garbage input with typed errors", () => {
    const good = encodeObject(configMap, cm, profile);
    expect(errorOf(() => decodeEnvelope(new Uint8Array(0))).code).toBe("Truncated");
    expect(errorOf(() => decodeEnvelope(Uint8Array.of(0x6b, 0x38))).code).toBe("Truncated");
    expect(errorOf(() => decodeEnvelope(PROTOBUF_MAGIC.slice())).code).toBe("Truncated");
    expect(errorOf(() => decodeEnvelope(Uint8Array.of(0x7b, 0x22, 0x61, 0x22))).code).toBe("BadMagic");
    expect(errorOf(() => decodeEnvelope(Uint8Array.of(0x6b, 0x38, 0x73, 0x01, 0x0a))).message).toMatch(/expected prefix 6b 38 73 00, got 6b 38 73 01/);
    // Every cut inside a field fails; cuts at the field boundaries of Unknown are well-formed messages.
    const afterTypeMeta = 4 + 2 + good[5];
    const afterRaw = good.length - 4;
    for (let cut = 5; cut < good.length; cut++) {
      if (cut === afterTypeMeta || cut === afterRaw || cut === afterRaw + 2) continue;
      const e = errorOf(() => decodeObject(configMap, good.subarray(0, cut)));
      expect(["Truncated", "Malformed", "WrongWireType", "InvalidValue"]).toContain(e.code);
    }
    // Field 0, a group wire type, an overlong varint.
    expect(errorOf(() => decodeEnvelope(Uint8Array.of(...PROTOBUF_MAGIC, 0x00, 0x00))).code).toBe("Malformed");
    expect(errorOf(() => decodeEnvelope(Uint8Array.of(...PROTOBUF_MAGIC, 0x0b))).code).toBe("Malformed");
    expect(errorOf(() => decodeEnvelope(Uint8Array.of(...PROTOBUF_MAGIC, 0x08, ...new Array<number>(11).fill(0xff)))).code).toBe("Malformed");
    // typeMeta as a varint.
    expect(errorOf(() => decodeEnvelope(Uint8Array.of(...PROTOBUF_MAGIC, 0x08, 0x01))).code).toBe("WrongWireType");
  });

  it("never throws anything but ProtobufError on random garbage or flipped bytes", () => {
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    const good = encodeObject(pod, { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "i", ports: [{ containerPort: 80 }] }] } }, profile);
    for (let i = 0; i < 2000; i++) {
      const b = i % 2 === 0 ? good.slice() : Uint8Array.from({ length: 4 + (rnd() % 64) }, () => rnd() & 0xff);
      if (i % 2 === 0) for (let j = 0; j < 3; j++) b[4 + (rnd() % (b.length - 4))] = rnd() & 0xff;
      else b.set(PROTOBUF_MAGIC);
      try {
        decodeObject(pod, b);
      } catch (e) {
        expect(e).toBeInstanceOf(ProtobufError);
      }
    }
  });
});

describe("objects", () => {
  it("encode a ConfigMap with the platform's field numbers (metadata 1, data 2 as sorted map entries)", () => {
    const env = decodeEnvelope(encodeObject(configMap, { metadata: { name: "a" }, data: { z: "2", k: "v" } }, profile));
    // metadata{name "a"}, data{k: v}, data{z: 2}
    expect(Array.from(env.raw)).toEqual([0x0a, 0x03, 0x0a, 0x01, 0x61, 0x12, 0x06, 0x0a, 0x01, 0x6b, 0x12, 0x01, 0x76, 0x12, 0x06, 0x0a, 0x01, 0x7a, 0x12, 0x01, 0x32]);
  });

  it("decode to JSON with typeMeta from the envelope; empty strings read as unset; empty map values kept", () => {
    const back = decodeObject(configMap, encodeObject(configMap, { ...cm, metadata: { ...cm.metadata, generateName: "" } }, profile), { profile });
    expect(back).toEqual({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "default", labels: { b: "", x: "1" } }, data: { k: "v" }, immutable: false });
  });

  it("use the profile's apiVersion and check it and the kind on decode", () => {
    const bytes = encodeObject(deployment, { metadata: { name: "d" } }, kube);
    expect(decodeEnvelope(bytes).apiVersion).toBe(kube.apiVersion("apps", "v1"));
    expect(errorOf(() => decodeObject(pod, bytes)).code).toBe("KindMismatch");
    expect(decodeObject(deployment, bytes, { profile: kube }).metadata).toEqual({ name: "d" });
  });

  it("keep zero values that were present, int64 beyond 2^53, times, quantities, int-or-string and bytes", () => {
    const d = {
      metadata: { name: "d", generation: 9007199254740993n, creationTimestamp: "2024-05-01T10:00:00+02:00" },
      spec: {
        replicas: 0,
        paused: false,
        selector: { matchLabels: { app: "x" } },
        strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: "25%" } },
        template: { spec: { containers: [{ name: "c", image: "i", resources: { limits: { cpu: "500m", memory: "1Gi" } } }] } },
      },
    };
    const back = decodeObject(deployment, encodeObject(deployment, d, profile));
    expect(back.metadata).toEqual({ name: "d", generation: 9007199254740993n, creationTimestamp: "2024-05-01T08:00:00Z" });
    expect(back.spec).toEqual(d.spec);
    const secret = byKind("Secret");
    const s = decodeObject(secret, encodeObject(secret, { metadata: { name: "s" }, data: { a: "aGVsbG8=", e: "" } }, profile));
    expect(s.data).toEqual({ a: "aGVsbG8=", e: "" });
  });

  it("keep microsecond and nanosecond fractions of times", () => {
    const lease = { metadata: { name: "l", creationTimestamp: "1969-12-31T23:59:59.5Z" }, spec: {} };
    const ev = byKind("Event");
    const e = decodeObject(ev, encodeObject(ev, { ...lease, eventTime: "2024-05-01T10:00:00.123456Z", lastTimestamp: "2024-05-01T10:00:00.000000001Z" }, profile));
    expect(e.eventTime).toBe("2024-05-01T10:00:00.123456Z");
    expect(e.lastTimestamp).toBe("2024-05-01T10:00:00.000000001Z");
    expect((e.metadata as Record<string, unknown>).creationTimestamp).toBe("1969-12-31T23:59:59.500000Z");
  });

  it("report values that do not fit the schema", () => {
    expect(errorOf(() => encodeObject(deployment, { spec: { replicas: "three" } }, profile))).toMatchObject({ code: "InvalidValue", path: "spec.replicas" });
    expect(errorOf(() => encodeObject(deployment, { metadata: { creationTimestamp: "yesterday" } }, profile))).toMatchObject({ code: "InvalidValue", path: "metadata.creationTimestamp" });
    expect(errorOf(() => encodeObject(byKind("Secret"), { data: { a: "%%%" } }, profile)).path).toBe("data[a]");
  });

  it("skip unknown field numbers and merge repeated occurrences of a message field", () => {
    const env = decodeEnvelope(encodeObject(configMap, { metadata: { name: "a" } }, profile));
    // + unknown field 99 (varint) + a second metadata occurrence {namespace "n"}
    const raw = Uint8Array.of(...env.raw, 0x98, 0x06, 0x01, 0x0a, 0x03, 0x1a, 0x01, 0x6e);
    const back = decodeObject(configMap, encodeEnvelope({ apiVersion: "v1", kind: "ConfigMap", raw }));
    expect(back.metadata).toEqual({ name: "a", namespace: "n" });
  });

  it("bound the nesting depth", () => {
    const p = { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "i", ports: [{ containerPort: 80 }] }] } };
    const bytes = encodeObject(pod, p, profile);
    expect(errorOf(() => decodeObject(pod, bytes, { maxDepth: 2 })).code).toBe("TooDeep");
    expect(decodeObject(pod, bytes, { maxDepth: 4 }).spec).toEqual(p.spec);
    // JSONSchemaProps nested through `not` (field 28), 100 and 1000 levels deep.
    const layout = messageLayout(jsonSchemaProps(profile.ext), "JSONSchemaProps", { group: "apiextensions", version: "v1" });
    const nest = (n: number): Uint8Array => {
      let m: Uint8Array = Uint8Array.of(0x2a, 0x01, 0x78); // type: "x"
      for (let i = 0; i < n; i++) m = Uint8Array.of(0xe2, 0x01, ...varint(m.length), ...m);
      return m;
    };
    let v: unknown = decodeMessage(layout, nest(100));
    for (let i = 0; i < 100; i++) v = (v as Record<string, unknown>).not;
    expect(v).toEqual({ type: "x" });
    expect(errorOf(() => decodeMessage(layout, nest(1000))).code).toBe("TooDeep");
  });
});

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

describe("lists, Status and watch events", () => {
  it("encode a list as <Kind>List{metadata 1, items 2} without item typeMeta", () => {
    const list = { apiVersion: "v1", kind: "ConfigMapList", metadata: { resourceVersion: "12", continue: "tok", remainingItemCount: 3 }, items: [cm, { ...cm, metadata: { name: "b" } }] };
    const bytes = encodeList(configMap, list, profile);
    expect(decodeEnvelope(bytes).kind).toBe("ConfigMapList");
    const back = decodeList(configMap, bytes, { profile });
    expect(back.metadata).toEqual(list.metadata);
    expect(back.items).toEqual([{ metadata: cm.metadata, data: cm.data, immutable: false }, { metadata: { name: "b" }, data: cm.data, immutable: false }]);
    expect(decodeList(configMap, encodeList(configMap, { metadata: {}, items: [] }, profile)).items).toEqual([]);
  });

  it("encode a Status with typeMeta v1/Status", () => {
    const st = { apiVersion: "v1", kind: "Status", metadata: {}, status: "Failure", message: "pods \"x\" not found", reason: "NotFound", details: { name: "x", kind: "pods", causes: [{ reason: "FieldValueInvalid", field: "spec" }] }, code: 404 };
    const bytes = encodeStatus(st);
    expect(decodeEnvelope(bytes)).toMatchObject({ apiVersion: "v1", kind: "Status" });
    expect(decodeStatus(bytes)).toEqual(st);
  });

  it("encode watch events as WatchEvent{type 1, object 2 = RawExtension{raw = the object's protobuf body}}", () => {
    const payload = encodeWatchEvent(configMap, { type: "ADDED", object: cm }, profile);
    // type "ADDED"
    expect(Array.from(payload.subarray(0, 7))).toEqual([0x0a, 0x05, 0x41, 0x44, 0x44, 0x45, 0x44]);
    expect(payload[7]).toBe(0x12);
    const ev = decodeWatchEvent(configMap, payload, { profile });
    expect(ev.type).toBe("ADDED");
    expect(ev.object).toEqual({ ...cm, metadata: { ...cm.metadata, labels: { b: "", x: "1" } } });
    const status = { apiVersion: "v1", kind: "Status", status: "Failure", reason: "Expired", message: "too old resource version", code: 410 };
    expect(decodeWatchEvent(configMap, encodeWatchEvent(configMap, { type: "ERROR", object: status }, profile)).object).toEqual(status);
    const bookmark = decodeWatchEvent(configMap, encodeWatchEvent(configMap, { type: "BOOKMARK", object: { kind: "ConfigMap", apiVersion: "v1", metadata: { resourceVersion: "77" } } }, profile));
    expect(bookmark.object).toEqual({ apiVersion: "v1", kind: "ConfigMap", metadata: { resourceVersion: "77" } });
    expect(errorOf(() => decodeWatchEvent(configMap, Uint8Array.of(0x0a, 0x01, 0x41))).code).toBe("InvalidValue");
  });

  it("frame a watch stream with 4-byte big-endian lengths and split it across arbitrary chunk boundaries", () => {
    const events = ["ADDED", "MODIFIED", "DELETED"].map((type, i) => encodeWatchEvent(configMap, { type, object: { ...cm, metadata: { name: `n${i}` } } }, profile));
    const stream = Uint8Array.from(events.flatMap((e) => Array.from(encodeFrame(e))));
    expect(Array.from(stream.subarray(0, 4))).toEqual([0, 0, (events[0].length >> 8) & 0xff, events[0].length & 0xff]);
    expect(decodeFrames(stream)).toEqual(events);
    for (const size of [1, 3, 7, 64]) {
      const r = new FrameReader();
      const got: Uint8Array[] = [];
      for (let i = 0; i < stream.length; i += size) got.push(...r.push(stream.subarray(i, i + size)));
      r.finish();
      expect(got.map((f) => decodeWatchEvent(configMap, f).type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
    }
    expect(errorOf(() => decodeFrames(stream.subarray(0, stream.length - 1))).code).toBe("Truncated");
    expect(errorOf(() => new FrameReader(10).push(Uint8Array.of(0, 0, 1, 0))).code).toBe("FrameTooLarge");
  });
});

describe("envelopeRaw: the raw field without decoding the others", () => {
  const withUnknown = (raw: Uint8Array) => {
    const e = encodeEnvelope({ apiVersion: "v1", kind: "ConfigMap", raw });
    const extra = Uint8Array.of((9 << 3) | 2, 2, 0x61, 0x62); // field 9, length-delimited: skipped
    return Uint8Array.from([...e, ...extra]);
  };
  it.each([
    { name: "empty raw", bytes: encodeEnvelope({ apiVersion: "v1", kind: "ConfigMap", raw: new Uint8Array(0) }) },
    { name: "short raw", bytes: encodeEnvelope({ apiVersion: "v1", kind: "ConfigMap", raw: Uint8Array.of(10, 3, 1, 2, 3) }) },
    { name: "raw over 127 bytes (two-byte length)", bytes: encodeEnvelope({ apiVersion: "apps/v1", kind: "Deployment", raw: new Uint8Array(300).fill(7) }) },
    { name: "raw over 16 KiB (three-byte length)", bytes: encodeEnvelope({ apiVersion: "v1", kind: "Pod", raw: new Uint8Array(20_000).fill(9) }) },
    { name: "an object as a GET encodes it", bytes: encodeObject(configMap, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "b" }, data: { k: "v".repeat(200) } }, kube) },
    { name: "an unknown field after the others", bytes: withUnknown(Uint8Array.of(1, 2)) },
    { name: "no raw field", bytes: Uint8Array.from([...PROTOBUF_MAGIC, (3 << 3) | 2, 0]) },
  ])("$name: the same bytes as decodeEnvelope's raw", ({ bytes }) => {
    const got = envelopeRaw(bytes);
    expect(Buffer.from(got).equals(Buffer.from(decodeEnvelope(bytes).raw))).toBe(true);
  });

  it.each([
    { name: "empty", bytes: new Uint8Array(0) },
    { name: "prefix only", bytes: Uint8Array.from(PROTOBUF_MAGIC) },
    { name: "no prefix", bytes: Uint8Array.of(1, 2, 3, 4, 5) },
    { name: "a length past the end", bytes: Uint8Array.from([...PROTOBUF_MAGIC, (2 << 3) | 2, 9, 1]) },
    { name: "a varint field", bytes: Uint8Array.from([...PROTOBUF_MAGIC, (2 << 3) | 0, 1]) },
  ])("$name: the error decodeEnvelope gives", ({ bytes }) => {
    const want = errorOf(() => decodeEnvelope(bytes));
    const got = errorOf(() => envelopeRaw(bytes));
    expect([got.code, got.message]).toEqual([want.code, want.message]);
  });
});
