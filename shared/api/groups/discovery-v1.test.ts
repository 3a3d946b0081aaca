import { describe, expect, it } from "vitest";
import { validateImmutable } from "../../schema/index.ts";
import { mutate, paths, setAt, deleteAt } from "../testing/sample-harness.ts";
import { kinds } from "./discovery-v1.ts";
import { byKind, sampleOf, sampleSuite } from "../testing/sample-suite.ts";

const slice = byKind(kinds, "EndpointSlice");
const sample = () => sampleOf("discovery-v1", kinds, "EndpointSlice");
const ES = "EndpointSlice";

sampleSuite({
  dir: "discovery-v1",
  kinds,
  defaults: { EndpointSlice: { "ports[1]": { name: "", protocol: "TCP", port: 9090 }, "ports[0].protocol": "TCP", "endpoints[0].conditions.ready": true } },
  mutations: [
    { name: "unknown nested field", kind: ES, edit: (o) => setAt(o, "endpoints[0].conditions.healthy", true), unknown: ["endpoints[0].conditions.healthy"] },
    { name: "wrong type", kind: ES, edit: (o) => setAt(o, "endpoints[0].conditions.ready", "yes"), errors: ["endpoints[0].conditions.ready"], types: ["FieldValueTypeInvalid"] },
    { name: "bad name", kind: ES, edit: (o) => setAt(o, "metadata.name", "web frontend"), errors: ["metadata.name"] },
    { name: "missing address type", kind: ES, edit: (o) => deleteAt(o, "addressType"), errors: ["addressType"], types: ["FieldValueRequired"] },
    { name: "bad address type", kind: ES, edit: (o) => setAt(o, "addressType", "IPv5"), errors: ["addressType"], types: ["FieldValueNotSupported"] },
    { name: "missing endpoints", kind: ES, edit: (o) => deleteAt(o, "endpoints"), errors: ["endpoints"], types: ["FieldValueRequired"] },
    { name: "endpoint without addresses", kind: ES, edit: (o) => setAt(o, "endpoints[2].addresses", []), errors: ["endpoints[2].addresses"] },
    { name: "address of the wrong family", kind: ES, edit: (o) => setAt(o, "endpoints[1].addresses", ["fd00::9"]), errors: ["endpoints[1].addresses[0]"] },
    { name: "duplicate address", kind: ES, edit: (o) => setAt(o, "endpoints[0].addresses", ["10.244.1.17", "10.244.1.17"]), errors: ["endpoints[0].addresses[1]"], types: ["FieldValueDuplicate"] },
    { name: "duplicate port name", kind: ES, edit: (o) => setAt(o, "ports[1].name", "http"), errors: ["ports[1].name"], types: ["FieldValueDuplicate"] },
    { name: "bad protocol", kind: ES, edit: (o) => setAt(o, "ports[0].protocol", "QUIC"), errors: ["ports[0].protocol"] },
    { name: "hostname not a DNS label", kind: ES, edit: (o) => setAt(o, "endpoints[0].hostname", "Web_1"), errors: ["endpoints[0].hostname"] },
    { name: "too many zone hints", kind: ES, edit: (o) => setAt(o, "endpoints[0].hints.forZones", Array.from({ length: 9 }, (_, i) => ({ name: `z${i}` }))), errors: ["endpoints[0].hints.forZones"], types: ["FieldValueTooMany"] },
  ],
});

describe("discovery/v1", () => {
  it("declares EndpointSlice with the platform's field numbers and markers", () => {
    expect([slice.plural, slice.namespaced, slice.shortNames, slice.subresources]).toEqual(["endpointslices", true, undefined, undefined]);
    const p = slice.schema.properties ?? {};
    expect([p.metadata.protoTag, p.addressType.protoTag, p.endpoints.protoTag, p.ports.protoTag]).toEqual([1, 4, 2, 3]);
    expect([p.endpoints.listType, p.ports.listType, p.ports.items?.mapType]).toEqual(["atomic", "atomic", "atomic"]);
    const ep = p.endpoints.items?.properties ?? {};
    expect(Object.fromEntries(Object.entries(ep).map(([k, v]) => [k, v.protoTag]))).toEqual({
      addresses: 1,
      conditions: 2,
      hostname: 3,
      targetRef: 4,
      deprecatedTopology: 5,
      nodeName: 6,
      zone: 7,
      hints: 8,
    });
    expect([ep.addresses.listType, ep.hints.properties?.forNodes.protoTag]).toEqual(["set", 2]);
  });

  it("keeps the address type immutable", () => {
    const old = sample();
    const changed = mutate(old, (o) => {
      setAt(o, "addressType", "IPv6");
      setAt(o, "endpoints[0].addresses", ["fd00::1"]);
    });
    expect(paths(validateImmutable(slice.schema, old, changed))).toEqual(["addressType"]);
  });

  it("prints the platform's columns", () => {
    const cells = (slice.tableColumns ?? []).map((c) => c.cell?.(sample()));
    expect((slice.tableColumns ?? []).map((c) => c.name)).toEqual(["AddressType", "Ports", "Endpoints", "Age"]);
    expect(cells.slice(0, 3)).toEqual(["IPv4", "8080,9090", "10.244.1.17,10.244.2.9,10.244.3.4"]);
    const many = mutate(sample(), (o) => setAt(o, "endpoints[0].addresses", ["10.0.0.1", "10.0.0.2"]));
    expect(slice.tableColumns?.[2].cell?.(many)).toBe("10.0.0.1,10.0.0.2,10.244.2.9 + 1 more...");
    expect(slice.tableColumns?.[1].cell?.(mutate(sample(), (o) => setAt(o, "ports", [])))).toBe("<unset>");
  });
});
