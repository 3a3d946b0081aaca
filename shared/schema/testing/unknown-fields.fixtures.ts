/** Test data shared by unknown-fields.test.ts and prune.test.ts: a kind exercising every rule and its cases. */
import { objectKind } from "../../api/groups/meta-v1.ts";
import { anyValue, int32, intOrString, list, mapOf, obj, str } from "../build.ts";
import type { Schema } from "../types.ts";

/** A kind exercising every rule; shared with prune.test.ts. */
export const kindSchema: Schema = objectKind({
  spec: obj({
    replicas: int32(),
    template: obj({
      spec: obj({
        containers: list(obj({ name: str(), ports: list(obj({ containerPort: int32() })) }), { listType: "map", mapKeys: ["name"] }),
      }),
    }),
    selector: obj({ matchLabels: mapOf(str()) }),
    byName: mapOf(obj({ weight: int32() })),
    config: anyValue(),
    extensible: obj({ known: str() }, { preserveUnknownFields: true }),
    port: intOrString(),
    embedded: obj({ spec: obj({ x: str() }) }, { embeddedResource: true }),
    empty: obj({}),
    untypedList: { type: "array" },
  }),
});

/** Rows: input, unknown paths. */
export const UNKNOWN_CASES: Array<[string, unknown, string[]]> = [
  ["a known object", { apiVersion: "v1", kind: "K", metadata: { name: "a", labels: { x: "y" } }, spec: { replicas: 1 } }, []],
  ["top-level and metadata", { apiVersion: "v1", foo: 1, metadata: { name: "a", bar: 2 } }, ["foo", "metadata.bar"]],
  ["in spec", { spec: { foo: 1, replicas: 2 } }, ["spec.foo"]],
  [
    "inside list items",
    { spec: { template: { spec: { containers: [{ name: "a", unknownNested: 1 }, { name: "b", ports: [{ containerPort: 1, hostIP: "x" }] }] } } } },
    ["spec.template.spec.containers[0].unknownNested", "spec.template.spec.containers[1].ports[0].hostIP"],
  ],
  ["map keys are never unknown", { spec: { selector: { matchLabels: { anything: "x", "a.b/c": "y" } } } }, []],
  ["inside map values", { spec: { byName: { a: { weight: 1, extra: true } } } }, ["spec.byName[a].extra"]],
  ["any values keep everything", { spec: { config: { deep: { er: [1, { x: 2 }] } }, port: "http" } }, []],
  ["preserve keeps unknowns but checks nothing below them", { spec: { extensible: { known: "k", other: { x: 1 } } } }, []],
  ["embedded resources know apiVersion, kind and metadata", { spec: { embedded: { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { x: "1", y: 2 }, status: {} } } }, ["spec.embedded.spec.y", "spec.embedded.status"]],
  ["an object without properties knows nothing", { spec: { empty: { a: 1 } } }, ["spec.empty.a"]],
  ["an array without item schema keeps its items", { spec: { untypedList: [{ a: 1 }] } }, []],
  ["type mismatches are not descended", { spec: { template: "x", selector: [1], replicas: { a: 1 } } }, []],
  ["hostile keys", JSON.parse('{"__proto__": 1, "constructor": 2, "spec": {"toString": 3}}') as unknown, ["__proto__", "constructor", "spec.toString"]],
];
