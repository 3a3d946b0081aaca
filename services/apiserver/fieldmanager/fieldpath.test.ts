import { describe, expect, it } from "vitest";
import {
  compareElements,
  deserializeElement,
  FieldSet,
  fieldElement as f,
  fromFieldsV1,
  goJson,
  indexElement,
  keyElement,
  pathString,
  serializeElement,
  toFieldsV1,
  valueElement,
  type Path,
} from "./fieldpath.ts";

const k = (o: Record<string, string | number>) => keyElement(Object.entries(o));
const v = valueElement;
const set = (...paths: Path[]) => FieldSet.of(...paths);
const printed = (s: FieldSet) => s.paths().map(pathString);

describe("path elements", () => {
  it("serialize with the platform's prefixes, sorted keys and HTML-safe JSON", () => {
    expect(serializeElement(f("image"))).toBe("f:image");
    expect(serializeElement(k({ protocol: "TCP", containerPort: 80 }))).toBe('k:{"containerPort":80,"protocol":"TCP"}');
    expect(serializeElement(v("example.com/a"))).toBe('v:"example.com/a"');
    expect(serializeElement(indexElement(3))).toBe("i:3");
    expect(serializeElement(v("a<b>&c"))).toBe('v:"a\\u003cb\\u003e\\u0026c"');
    expect(goJson({ b: [1, true, null], a: "x" })).toBe('{"a":"x","b":[1,true,null]}');
  });

  it("parse back; unknown prefixes are skipped and malformed known ones fail", () => {
    for (const pe of [f("a.b"), k({ name: "x", port: 1 }), v(42), v("s"), indexElement(0)]) {
      expect(deserializeElement(serializeElement(pe))).toEqual(pe);
    }
    expect(deserializeElement("z:whatever")).toBeUndefined();
    expect(deserializeElement("x")).toBeUndefined();
    expect(() => deserializeElement("k:[1]")).toThrow("key must be a JSON object");
    expect(() => deserializeElement("v:{oops")).toThrow("parsing key as path element");
    expect(() => deserializeElement("i:1.5")).toThrow("invalid index");
  });

  it("order fields, then keys, then values, then indexes; strings by UTF-8 bytes", () => {
    const sorted = [indexElement(1), v("b"), v(2), k({ name: "b" }), k({ name: "a" }), f("\u{1F600}"), f("\uFFFD"), f("Z"), f("a")].sort(compareElements);
    expect(sorted.map(serializeElement)).toEqual(["f:Z", "f:a", "f:\uFFFD", "f:\u{1F600}", 'k:{"name":"a"}', 'k:{"name":"b"}', "v:2", 'v:"b"', "i:1"]);
  });

  it("print like the platform", () => {
    expect(pathString([f("spec"), f("containers"), k({ name: "nginx" }), f("image")])).toBe('.spec.containers[name="nginx"].image');
    expect(pathString([f("spec"), f("ports"), k({ port: 80, protocol: "TCP" })])).toBe('.spec.ports[port=80,protocol="TCP"]');
    expect(pathString([f("metadata"), f("finalizers"), v("x")])).toBe('.metadata.finalizers[="x"]');
    expect(pathString([f("a"), indexElement(2)])).toBe(".a[2]");
  });
});

describe("field sets", () => {
  const a = set([f("a")], [f("b"), f("c")], [f("b"), f("d")]);
  const b = set([f("b")], [f("b"), f("c")], [f("e")]);

  it("union, difference, intersection", () => {
    expect(printed(a.union(b))).toEqual([".a", ".b", ".e", ".b.c", ".b.d"]);
    expect(printed(a.difference(b))).toEqual([".a", ".b.d"]);
    expect(printed(a.intersection(b))).toEqual([".b.c"]);
    expect(a.difference(a).empty()).toBe(true);
  });

  it("recursive difference also removes what lies below a member of the other set", () => {
    expect(printed(a.recursiveDifference(b))).toEqual([".a"]);
    expect(printed(a.recursiveDifference(set([f("b"), f("c")])))).toEqual([".a", ".b.d"]);
  });

  it("membership, prefixes and equality; operations never change their inputs", () => {
    expect(a.has([f("b"), f("c")])).toBe(true);
    expect(a.has([f("b")])).toBe(false);
    expect(printed(a.withPrefix(f("b")))).toEqual([".c", ".d"]);
    const before = [a.toString(), b.toString()];
    for (const op of ["union", "difference", "intersection", "recursiveDifference"] as const) {
      a[op](b);
      b[op](a);
    }
    expect([a.toString(), b.toString()]).toEqual(before);
    expect(set([f("x")], [f("y")]).equals(set([f("y")], [f("x")]))).toBe(true);
    expect(a.size()).toBe(3);
  });

  it("shares what an operation leaves unchanged: an input itself, or its untouched subtrees", () => {
    expect(a.union(FieldSet.of([f("a")]))).toBe(a);
    expect(a.difference(b.difference(b))).toBe(a);
    expect(a.difference(set([f("zzz")]))).toBe(a);
    expect(a.intersection(a)).toBe(a);
    expect(a.recursiveDifference(set([f("zzz")]))).toBe(a);
    const grown = a.union(set([f("b"), f("q")]));
    expect(printed(grown)).toEqual([".a", ".b.c", ".b.d", ".b.q"]);
    expect(grown.withPrefix(f("b"))).not.toBe(a.withPrefix(f("b")));
    const shrunk = set([f("a"), f("x")], [f("b"), f("c")]).difference(set([f("a"), f("x")]));
    expect(printed(shrunk)).toEqual([".b.c"]);
  });

  it("adds paths only through a builder, closed once built", () => {
    const builder = FieldSet.builder();
    builder.add([f("x"), f("y")]);
    builder.add([]);
    const built = builder.build();
    expect(printed(built)).toEqual([".x.y"]);
    expect(() => builder.add([f("z")])).toThrow(/after build/);
    expect(printed(built)).toEqual([".x.y"]);
  });
});

describe("FieldsV1", () => {
  it("writes the brief's example exactly", () => {
    const s = set(
      [f("metadata"), f("labels"), f("app")],
      [f("spec"), f("containers"), k({ name: "nginx" })],
      [f("spec"), f("containers"), k({ name: "nginx" }), f("image")],
    );
    expect(JSON.stringify(toFieldsV1(s))).toBe('{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{}}}}}');
  });

  // Entries as the platform writes them for real objects (domains replaced by example.com).
  const realistic = [
    // a client-side apply of a Deployment
    '{"f:metadata":{"f:annotations":{".":{},"f:example.com/last-applied-configuration":{}},"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{".":{},"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{},"f:protocol":{}}},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}}',
    // a controller's status update
    '{"f:metadata":{"f:annotations":{".":{},"f:example.com/revision":{}}},"f:status":{"f:availableReplicas":{},"f:conditions":{".":{},"k:{\\"type\\":\\"Available\\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}},"k:{\\"type\\":\\"Progressing\\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:updatedReplicas":{}}}',
    // a pod made by a controller: set members, atomic owner references, env and ports
    '{"f:metadata":{"f:finalizers":{".":{},"v:\\"example.com/protect\\"":{}},"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\\"uid\\":\\"3b8c5f0e-6c5e-4d8e-9a51-3f0c2f7d9e11\\"}":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"app\\"}":{".":{},"f:env":{".":{},"k:{\\"name\\":\\"MODE\\"}":{".":{},"f:name":{},"f:value":{}}},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\\"containerPort\\":53,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{},"f:protocol":{}},"k:{\\"containerPort\\":53,\\"protocol\\":\\"UDP\\"}":{".":{},"f:containerPort":{},"f:protocol":{}}}}}}}',
    // a service applied server-side
    '{"f:spec":{"f:ports":{"k:{\\"port\\":443,\\"protocol\\":\\"TCP\\"}":{".":{},"f:port":{},"f:targetPort":{}}},"f:selector":{},"f:type":{}}}',
  ];

  it.each(realistic.map((s, i) => [i, s]))("round-trips realistic entry %i byte for byte", (_i, text) => {
    expect(JSON.stringify(toFieldsV1(fromFieldsV1(JSON.parse(text))))).toBe(text);
  });

  it("normalizes order and merges keys written in another order", () => {
    const s = fromFieldsV1({ "f:b": {}, 'k:{"z":1,"a":2}': { "f:x": {} }, "f:a": { "f:y": {}, ".": {} }, 'k:{"a":2,"z":1}': { ".": {} } });
    expect(JSON.stringify(toFieldsV1(s))).toBe('{"f:a":{".":{},"f:y":{}},"f:b":{},"k:{\\"a\\":2,\\"z\\":1}":{".":{},"f:x":{}}}');
  });

  it("reads like the platform: null entries and unknown prefixes are skipped, an object of only those is a leaf", () => {
    const s = fromFieldsV1({ "f:a": { "x:new": {} }, "f:b": null, "f:c": { "f:d": null }, "f:e": { "f:f": {} } });
    expect(printed(s)).toEqual([".a", ".c", ".e.f"]);
    expect(fromFieldsV1({}).empty()).toBe(true);
  });

  it("rejects malformed input", () => {
    expect(() => fromFieldsV1([])).toThrow("FieldsV1 must be a JSON object");
    expect(() => fromFieldsV1({ "f:a": 1 })).toThrow("expected an object");
    expect(() => fromFieldsV1({ "f:a": { "k:not-json": {} } })).toThrow("parsing key as path element");
  });
});
