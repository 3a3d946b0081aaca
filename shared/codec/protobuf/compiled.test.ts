/**
 * The compiled encoder writes byte for byte what the reference encoder writes: every
 * kind's sample manifests (as written, defaulted, and as lists of them), a table of
 * edge values (lengths needing 2 and 3 length bytes, unicode, negative and big
 * integers, nulls in lists and maps, times with fractions), and the same errors
 * (message and path) for values the reference rejects.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtinKinds } from "../../api/groups/index.ts";
import { SAMPLES_DIR, defaultObject } from "../../api/testing/sample-harness.ts";
import { getProfile } from "../../platform/index.ts";
import { decodeYamlStrict } from "../../schema/index.ts";
import type { KindDefinition } from "../../schema/types.ts";
import { isObject } from "../../schema/values.ts";
import { encodeMessage } from "./compiled.ts";
import { kindLayout, listLayout } from "./layout.ts";
import { encodeMessageReference } from "./message.ts";

type Obj = Record<string, unknown>;
const profile = getProfile();
const kinds = builtinKinds(profile);
const byKind = (kind: string, group = ""): KindDefinition => {
  const def = kinds.find((k) => k.kind === kind && (group === "" || k.group === group));
  if (!def) throw new Error(`no kind ${kind}`);
  return def;
};

function samples(): Array<{ file: string; def: KindDefinition; obj: Obj }> {
  const out: Array<{ file: string; def: KindDefinition; obj: Obj }> = [];
  for (const dir of readdirSync(SAMPLES_DIR).sort()) {
    for (const file of readdirSync(join(SAMPLES_DIR, dir)).sort()) {
      if (!file.endsWith(".yaml")) continue;
      readFileSync(join(SAMPLES_DIR, dir, file), "utf8")
        .split(/^---\s*$/m)
        .forEach((text, i) => {
          const obj = decodeYamlStrict(text).value;
          if (!isObject(obj)) return;
          const def = kinds.find((k) => profile.apiVersion(k.group, k.version) === obj.apiVersion && k.kind === obj.kind);
          if (def?.protobuf) out.push({ file: `${dir}/${file}#${i}`, def, obj });
        });
    }
  }
  return out;
}

const all = samples();

function same(layout: ReturnType<typeof kindLayout>, obj: Obj): void {
  const want = Buffer.from(encodeMessageReference(layout, obj));
  const got = Buffer.from(encodeMessage(layout, obj));
  expect(got.toString("hex")).toBe(want.toString("hex"));
}

describe("compiled protobuf encoder: byte-identical to the reference", () => {
  it("has the samples (roundtrip.test.ts checks that every kind with protobuf messages has one)", () => {
    expect(all.length).toBeGreaterThan(40);
  });

  it.each(all.map((s) => [s.file, s] as const))("%s: as written, defaulted, and in a list of 3", (_file, s) => {
    const defaulted = defaultObject(s.def, s.obj);
    same(kindLayout(s.def), s.obj);
    same(kindLayout(s.def), defaulted);
    same(listLayout(s.def), { metadata: { resourceVersion: "42", continue: "abc" }, items: [s.obj, defaulted, s.obj] });
  });

  const cm = byKind("ConfigMap");
  const pod = byKind("Pod");
  const crd = byKind("CustomResourceDefinition");
  it.each<[string, KindDefinition, Obj]>([
    ["empty object", cm, {}],
    ["string needing 2 length bytes", cm, { metadata: { name: "a" }, data: { k: "x".repeat(200) } }],
    ["string needing 3 length bytes", cm, { data: { k: "y".repeat(20_000) } }],
    ["nested message needing 3 length bytes", cm, { metadata: { annotations: { big: "z".repeat(17_000) } } }],
    ["unicode in short and long strings, lone surrogate", cm, { metadata: { name: "é☃😀" }, data: { a: "ü".repeat(100), b: "\ud800x", c: "😀".repeat(30) } }],
    ["42 and 43 character strings with a 3-byte character", cm, { data: { a: "☃".repeat(42), b: "☃".repeat(43) } }],
    ["map with null and empty values, keys needing sorting", cm, { data: { z: "", a: null as unknown as string, m: "1", B: "2" } }],
    ["times with and without fractions, offsets", cm, { metadata: { creationTimestamp: "2024-02-29T23:59:59.123456789+02:00", deletionTimestamp: "1970-01-01T00:00:00Z" } }],
    ["negative and big integers, zero, booleans", pod, { metadata: { generation: -5, deletionGracePeriodSeconds: 2 ** 40 }, spec: { priority: -2147483648, enableServiceLinks: false, hostNetwork: true, terminationGracePeriodSeconds: 0 } }],
    ["bigint beyond 2^53", pod, { metadata: { generation: 2n ** 60n } }],
    ["nulls inside lists, empty list, null message", pod, { spec: { containers: [{ name: "c", args: ["a", null, ""], command: [], securityContext: null }] } }],
    ["int-or-string and quantities", pod, { spec: { containers: [{ name: "c", ports: [{ containerPort: 80 }], resources: { limits: { cpu: "500m", memory: "" } }, livenessProbe: { httpGet: { port: "http" } }, readinessProbe: { httpGet: { port: 8080 } } }] } }],
    ["free-form JSON with a bigint and fieldsV1", pod, { metadata: { managedFields: [{ manager: "m", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:x": {} } } }] } }],
    [
      "JSON schema unions",
      crd,
      {
        spec: {
          group: "g",
          names: { plural: "ps", kind: "P" },
          scope: "Namespaced",
          versions: [
            {
              name: "v1",
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: "object", additionalProperties: false, items: [{ type: "string" }], dependencies: { a: ["b"], c: { type: "object" } }, additionalItems: { type: "integer" }, default: { n: 2n ** 62n } } },
            },
          ],
        },
      },
    ],
  ])("%s", (_name, def, obj) => {
    same(kindLayout(def), obj);
  });

  it.each<[string, KindDefinition, Obj]>([
    ["a string where a list is expected", pod, { spec: { containers: "no" } }],
    ["a number where a string is expected", cm, { data: { a: 1 } }],
    ["an integer beyond int32", pod, { spec: { priority: 2 ** 31 } }],
    ["an invalid time", cm, { metadata: { creationTimestamp: "yesterday" } }],
    ["invalid base64", byKind("Secret"), { data: { a: "!!!" } }],
    ["a fraction where an integer is expected", pod, { metadata: { generation: 1.5 } }],
  ])("rejects %s with the reference's error and path", (_name, def, obj) => {
    let want: unknown;
    try {
      encodeMessageReference(kindLayout(def), obj);
    } catch (err) {
      want = err;
    }
    expect(want).toBeInstanceOf(Error);
    expect(() => encodeMessage(kindLayout(def), obj)).toThrow((want as Error).message);
  });
});
