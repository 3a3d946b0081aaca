/**
 * fast-check generators of hostile request inputs. Each mixes plausible documents
 * (so decoding gets past the first byte and reaches deeper code) with garbage.
 */
import fc from "fast-check";
import { encode as encodeCbor } from "cbor-x";

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** A ConfigMap-like object, valid or nearly so. */
function plausibleObject(): fc.Arbitrary<unknown> {
  return fc.record(
    {
      apiVersion: fc.constantFrom("v1", "v2", "", "apps/v1"),
      kind: fc.constantFrom("ConfigMap", "Secret", "", "Status"),
      metadata: fc.record(
        {
          name: fc.oneof(fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/), fc.string({ maxLength: 300 })),
          generateName: fc.string({ maxLength: 30 }),
          namespace: fc.string({ maxLength: 20 }),
          labels: fc.dictionary(fc.string({ maxLength: 70 }), fc.string({ maxLength: 70 }), { maxKeys: 4 }),
          resourceVersion: fc.string({ maxLength: 12 }),
          uid: fc.string({ maxLength: 40 }),
          managedFields: fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 2 }),
          finalizers: fc.array(fc.string({ maxLength: 30 }), { maxLength: 3 }),
        },
        { requiredKeys: [] },
      ),
      data: fc.oneof(fc.dictionary(fc.string({ maxLength: 20 }), fc.string({ maxLength: 50 }), { maxKeys: 5 }), fc.jsonValue({ maxDepth: 2 })),
      binaryData: fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 20 }), { maxKeys: 2 }),
    },
    { requiredKeys: [] },
  );
}

function nested(depth: number, open: string, close: string): string {
  return open.repeat(depth) + close.repeat(depth);
}

/** JSON request bodies: plausible objects, arbitrary JSON, duplicate keys, deep nesting and broken text. */
export function arbitraryJsonBody(): fc.Arbitrary<string> {
  return fc.oneof(
    plausibleObject().map((o) => JSON.stringify(o)),
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
    fc.tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 })).map(([a, b]) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup","name":${JSON.stringify(a)}},"data":{"k":${JSON.stringify(b)},"k":"x"}}`),
    fc.integer({ min: 1, max: 20_000 }).map((d) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":${nested(d, "[", "]")}}`),
    fc.integer({ min: 1, max: 20_000 }).map((d) => `{"a":`.repeat(d) + "1" + "}".repeat(d)),
    fc.string({ maxLength: 200 }),
    fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString("latin1")),
  );
}

/** YAML request bodies: documents from objects, aliases (billion laughs), tags, multiple documents and garbage. */
export function arbitraryYaml(): fc.Arbitrary<string> {
  const laughs = (n: number) => {
    const lines = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < n; i++) lines.push(`${"a".repeat(i + 1)}: &${"a".repeat(i + 1)} [${Array(9).fill(`*${"a".repeat(i)}`).join(", ")}]`);
    return lines.join("\n");
  };
  return fc.oneof(
    plausibleObject().map((o) => Object.entries(o as Record<string, unknown>).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join("\n")),
    fc.integer({ min: 2, max: 9 }).map(laughs),
    fc.constantFrom("!!binary AAAA", "!!python/object:os.system ls", "--- a\n--- b", "? [a]\n: b", "a: !!int 99999999999999999999999999", "apiVersion: v1\nkind: ConfigMap\nkind: Secret", "\t- bad indent"),
    fc.integer({ min: 1, max: 5_000 }).map((d) => nested(d, "[", "]")),
    fc.string({ maxLength: 200 }),
  );
}

/** Protobuf bodies: the envelope with random messages, truncated envelopes and bytes without the prefix. */
export function arbitraryProtobuf(): fc.Arbitrary<Buffer> {
  const varint = (n: number) => {
    const out: number[] = [];
    let v = n;
    while (v > 0x7f) {
      out.push((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    out.push(v);
    return Buffer.from(out);
  };
  const field = (no: number, bytes: Buffer) => Buffer.concat([varint((no << 3) | 2), varint(bytes.length), bytes]);
  const typeMeta = fc.tuple(fc.constantFrom("v1", "", "x/y"), fc.constantFrom("ConfigMap", "Secret", "")).map(([v, k]) => field(1, Buffer.concat([field(1, Buffer.from(v)), field(2, Buffer.from(k))])));
  return fc.oneof(
    fc.tuple(typeMeta, fc.uint8Array({ maxLength: 300 })).map(([tm, raw]) => Buffer.concat([MAGIC, tm, field(2, Buffer.from(raw))])),
    fc.tuple(typeMeta, fc.uint8Array({ maxLength: 300 }), fc.string({ maxLength: 10 })).map(([tm, raw, enc]) => Buffer.concat([MAGIC, tm, field(2, Buffer.from(raw)), field(3, Buffer.from(enc))])),
    fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.concat([MAGIC, Buffer.from(b)])),
    // A length prefix that promises far more than is sent.
    fc.integer({ min: 1, max: 2 ** 31 - 1 }).map((n) => Buffer.concat([MAGIC, varint((2 << 3) | 2), varint(n), Buffer.from([1, 2, 3])])),
    fc.uint8Array({ maxLength: 50 }).map((b) => Buffer.from(b)),
  );
}

/** CBOR bodies: encoded objects (with the self-describing tag or not), random items and raw bytes. */
export function arbitraryCbor(): fc.Arbitrary<Buffer> {
  const selfDescribed = (b: Uint8Array) => Buffer.concat([Buffer.from([0xd9, 0xd9, 0xf7]), Buffer.from(b)]);
  return fc.oneof(
    plausibleObject().map((o) => selfDescribed(encodeCbor(o))),
    fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(encodeCbor(v))),
    fc.uint8Array({ maxLength: 200 }).map((b) => selfDescribed(b)),
    // Indefinite-length and deeply nested arrays, huge declared lengths.
    fc.integer({ min: 1, max: 5_000 }).map((d) => selfDescribed(Buffer.concat([Buffer.alloc(d, 0x81), Buffer.from([0x01])]))),
    fc.constantFrom(Buffer.from([0xd9, 0xd9, 0xf7, 0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), Buffer.from([0xd9, 0xd9, 0xf7, 0x9f, 0x9f, 0x9f])),
  );
}

const b64url = (s: string) => Buffer.from(s).toString("base64url");

/** Authorization headers: JWT-shaped tokens (alg none, wrong keys, huge claims), odd spacing and garbage. */
export function arbitraryBearer(): fc.Arbitrary<string> {
  const jwt = fc
    .tuple(
      fc.record({ alg: fc.constantFrom("none", "RS256", "HS256", "ES256", "", "PS512"), kid: fc.string({ maxLength: 10 }), typ: fc.constantFrom("JWT", "") }),
      fc.record({ iss: fc.string({ maxLength: 40 }), sub: fc.string({ maxLength: 40 }), aud: fc.oneof(fc.string({ maxLength: 20 }), fc.array(fc.string({ maxLength: 10 }))), exp: fc.oneof(fc.integer(), fc.string()) }, { requiredKeys: [] }),
      fc.string({ maxLength: 80 }),
    )
    .map(([h, p, sig]) => `${b64url(JSON.stringify(h))}.${b64url(JSON.stringify(p))}.${b64url(sig)}`);
  const bootstrapLike = fc.tuple(fc.stringMatching(/^[a-z0-9]{6}$/), fc.stringMatching(/^[a-z0-9]{16}$/)).map(([id, secret]) => `${id}.${secret}`);
  const token = fc.oneof(jwt, bootstrapLike, fc.string({ minLength: 1, maxLength: 100 }).filter((s) => /^[\x21-\x7e]+$/.test(s)));
  return fc.oneof(
    token.map((t) => `Bearer ${t}`),
    token.map((t) => `Bearer  ${t}`),
    token.map((t) => `Bearer\t${t}`),
    token.map((t) => `bearer ${t}`),
    fc.constantFrom("Bearer", "Bearer ", "Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Negotiate x"),
  );
}

/** Label and field selector strings: plausible expressions and garbage. */
export function arbitrarySelector(): fc.Arbitrary<string> {
  const key = fc.oneof(fc.stringMatching(/^[a-z]([a-z0-9.-]{0,10}[a-z0-9])?(\/[a-z0-9]{1,8})?$/), fc.string({ maxLength: 20 }));
  const value = fc.oneof(fc.stringMatching(/^[a-z0-9]{0,10}$/), fc.string({ maxLength: 20 }));
  const term = fc.oneof(
    fc.tuple(key, fc.constantFrom("=", "==", "!=", "=!", ">", "<"), value).map(([k, op, v]) => `${k}${op}${v}`),
    fc.tuple(key, fc.constantFrom(" in ", " notin "), fc.array(value, { maxLength: 4 })).map(([k, op, vs]) => `${k}${op}(${vs.join(",")})`),
    key.map((k) => `!${k}`),
    key,
  );
  return fc.oneof(fc.array(term, { maxLength: 5 }).map((ts) => ts.join(",")), fc.string({ maxLength: 100 }), fc.constant("(".repeat(1000)));
}

/** Continue tokens: base64 of plausible JSON, of garbage, and non-base64 text. */
export function arbitraryContinue(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.record({ v: fc.constantFrom("meta/v1", "v1", ""), rv: fc.oneof(fc.integer(), fc.string({ maxLength: 10 })), start: fc.string({ maxLength: 40 }) }, { requiredKeys: [] }).map((o) => Buffer.from(JSON.stringify(o)).toString("base64")),
    fc.jsonValue({ maxDepth: 2 }).map((v) => Buffer.from(JSON.stringify(v)).toString("base64url")),
    fc.string({ maxLength: 60 }),
  );
}

export const PATCH_TYPES = ["application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json", "application/apply-patch+yaml"] as const;

/** Patch documents: JSON-patch operation lists (valid paths and not), merge documents with directives, apply bodies and garbage. */
export function arbitraryPatch(): fc.Arbitrary<string> {
  const pointer = fc.oneof(fc.constantFrom("/data/k", "/data", "/metadata", "/metadata/labels/a", "/metadata/name", "/metadata/managedFields", "/kind", "", "/data/~1x", "/items/-", "/data/k/0"), fc.string({ maxLength: 20 }));
  const op = fc.record(
    { op: fc.constantFrom("add", "remove", "replace", "move", "copy", "test", "bogus"), path: pointer, from: pointer, value: fc.jsonValue({ maxDepth: 3 }) },
    { requiredKeys: ["op", "path"] },
  );
  const directive = fc.record(
    { $patch: fc.constantFrom("replace", "delete", "merge", "explode"), $retainKeys: fc.array(fc.string({ maxLength: 5 })), "$setElementOrder/data": fc.array(fc.jsonValue({ maxDepth: 1 })) },
    { requiredKeys: [] },
  );
  return fc.oneof(
    fc.array(op, { maxLength: 12 }).map((ops) => JSON.stringify(ops)),
    fc.tuple(directive, plausibleObject()).map(([d, o]) => JSON.stringify({ ...(o as object), data: d, metadata: { ...d } })),
    plausibleObject().map((o) => JSON.stringify(o)),
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
    fc.integer({ min: 1, max: 12_000 }).map((n) => JSON.stringify(Array.from({ length: n }, () => ({ op: "test", path: "/data/k", value: "v" })))),
    fc.string({ maxLength: 100 }),
  );
}
