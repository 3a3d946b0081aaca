import { describe, expect, it } from "vitest";
import { validateImmutable } from "../../schema/index.ts";
import { admit, defaultObject, deleteAt, getAt, mutate, paths, setAt } from "../testing/sample-harness.ts";
import { kinds } from "./networking-v1.ts";
import { isCIDR } from "./networking-v1-rules.ts";
import { byKind, sampleOf, sampleSuite } from "../testing/sample-suite.ts";

const DIR = "networking-v1";
const def = (k: string) => byKind(kinds, k);
const sample = (k: string) => sampleOf(DIR, kinds, k);
const I = "Ingress";
const NP = "NetworkPolicy";
const path0 = "spec.rules[0].http.paths[0]";

sampleSuite({
  dir: DIR,
  kinds,
  defaults: {
    Ingress: { [`${path0}.pathType`]: "Prefix" },
    IngressClass: { "spec.parameters.scope": "Namespace" },
    NetworkPolicy: {
      "spec.policyTypes": ["Ingress", "Egress"],
      "spec.ingress[0].ports[0].protocol": "TCP",
      "spec.egress[1].ports[0].protocol": "UDP",
    },
  },
  mutations: [
    { name: "unknown nested field", kind: I, edit: (o) => setAt(o, `${path0}.backend.service.port.nummber`, 80), unknown: [`${path0}.backend.service.port.nummber`] },
    { name: "wrong type", kind: I, edit: (o) => setAt(o, `${path0}.backend.service.port.number`, "80"), errors: [`${path0}.backend.service.port.number`], types: ["FieldValueTypeInvalid"] },
    { name: "bad name", kind: I, edit: (o) => setAt(o, "metadata.name", "Shop"), errors: ["metadata.name"] },
    { name: "missing pathType", kind: I, edit: (o) => deleteAt(o, `${path0}.pathType`), errors: [`${path0}.pathType`], types: ["FieldValueRequired"] },
    { name: "bad pathType", kind: I, edit: (o) => setAt(o, `${path0}.pathType`, "Regex"), errors: [`${path0}.pathType`], types: ["FieldValueNotSupported"] },
    { name: "relative Prefix path", kind: I, edit: (o) => setAt(o, `${path0}.path`, "shop"), errors: [`${path0}.path`] },
    { name: "path with a double slash", kind: I, edit: (o) => setAt(o, `${path0}.path`, "/a//b"), errors: [`${path0}.path`] },
    {
      name: "service and resource backends together",
      kind: I,
      edit: (o) => setAt(o, `${path0}.backend.resource`, { apiGroup: "storage.example.com", kind: "Bucket", name: "assets" }),
      errors: [`${path0}.backend`],
    },
    { name: "backend port without name or number", kind: I, edit: (o) => setAt(o, `${path0}.backend.service.port`, {}), errors: [`${path0}.backend`] },
    { name: "IP address as host", kind: I, edit: (o) => setAt(o, "spec.rules[0].host", "203.0.113.10"), errors: ["spec.rules[0].host"] },
    { name: "neither rules nor default backend", kind: I, edit: (o) => deleteAt(o, "spec.rules"), errors: ["spec"] },
    { name: "unknown nested field", kind: "IngressClass", edit: (o) => setAt(o, "spec.parameters.group", "x"), unknown: ["spec.parameters.group"] },
    { name: "bad scope", kind: "IngressClass", edit: (o) => setAt(o, "spec.parameters.scope", "Global"), errors: ["spec.parameters.scope"], types: ["FieldValueNotSupported"] },
    { name: "Namespace scope without namespace", kind: "IngressClass", edit: (o) => deleteAt(o, "spec.parameters.namespace"), errors: ["spec.parameters.namespace"], types: ["FieldValueRequired"] },
    { name: "missing parameters kind", kind: "IngressClass", edit: (o) => deleteAt(o, "spec.parameters.kind"), errors: ["spec.parameters.kind"], types: ["FieldValueRequired"] },
    { name: "controller not domain-prefixed", kind: "IngressClass", edit: (o) => setAt(o, "spec.controller", "nginx"), errors: ["spec.controller"] },
    { name: "namespace on a cluster-scoped kind", kind: "IngressClass", edit: (o) => setAt(o, "metadata.namespace", "default"), errors: ["metadata.namespace"], types: ["FieldValueForbidden"] },
    { name: "unknown nested field", kind: NP, edit: (o) => setAt(o, "spec.ingress[0].from[0].ipblock", {}), unknown: ["spec.ingress[0].from[0].ipblock"] },
    { name: "wrong type", kind: NP, edit: (o) => setAt(o, "spec.ingress[0].ports[0].endPort", "9090"), errors: ["spec.ingress[0].ports[0].endPort"], types: ["FieldValueTypeInvalid"] },
    { name: "bad name", kind: NP, edit: (o) => setAt(o, "metadata.name", "shop_api"), errors: ["metadata.name"] },
    { name: "bad protocol", kind: NP, edit: (o) => setAt(o, "spec.egress[0].ports[0].protocol", "ICMP"), errors: ["spec.egress[0].ports[0].protocol"], types: ["FieldValueNotSupported"] },
    { name: "bad policy type", kind: NP, edit: (o) => setAt(o, "spec.policyTypes", ["Both"]), errors: ["spec.policyTypes[0]"] },
    { name: "missing ipBlock cidr", kind: NP, edit: (o) => deleteAt(o, "spec.egress[1].to[0].ipBlock.cidr"), errors: ["spec.egress[1].to[0].ipBlock.cidr"], types: ["FieldValueRequired"] },
    { name: "malformed cidr", kind: NP, edit: (o) => setAt(o, "spec.egress[1].to[0].ipBlock.cidr", "10.96.0.0/40"), errors: ["spec.egress[1].to[0].ipBlock.cidr"] },
    { name: "endPort below port", kind: NP, edit: (o) => setAt(o, "spec.ingress[0].ports[0].endPort", 80), errors: ["spec.ingress[0].ports[0].endPort"] },
    { name: "endPort with a named port", kind: NP, edit: (o) => setAt(o, "spec.ingress[0].ports[0]", { port: "http", endPort: 9000 }), errors: ["spec.ingress[0].ports[0].endPort"] },
    { name: "empty peer", kind: NP, edit: (o) => setAt(o, "spec.ingress[0].from[0]", {}), errors: ["spec.ingress[0].from[0]"], types: ["FieldValueRequired"] },
    {
      name: "ipBlock with a selector",
      kind: NP,
      edit: (o) => setAt(o, "spec.egress[1].to[0].podSelector", {}),
      errors: ["spec.egress[1].to[0]"],
      types: ["FieldValueForbidden"],
    },
  ],
});

describe("networking/v1", () => {
  it("declares the kinds with the platform's scope, names and subresources", () => {
    expect(kinds.map((k) => [k.kind, k.plural, k.namespaced, k.shortNames ?? [], k.subresources ?? []])).toEqual([
      ["Ingress", "ingresses", true, ["ing"], ["status"]],
      ["IngressClass", "ingressclasses", false, [], []],
      ["NetworkPolicy", "networkpolicies", true, ["netpol"], []],
      ["IPAddress", "ipaddresses", false, [], []],
      ["ServiceCIDR", "servicecidrs", false, [], ["status"]],
    ]);
  });

  it("uses the platform's protobuf field numbers", () => {
    const spec = def(I).schema.properties?.spec.properties ?? {};
    expect([spec.ingressClassName.protoTag, spec.defaultBackend.protoTag, spec.tls.protoTag, spec.rules.protoTag]).toEqual([4, 1, 2, 3]);
    const backend = spec.defaultBackend.properties ?? {};
    expect([backend.service.protoTag, backend.resource.protoTag]).toEqual([4, 3]);
    const path = spec.rules.items?.properties?.http.properties?.paths.items?.properties ?? {};
    expect([path.path.protoTag, path.pathType.protoTag, path.backend.protoTag]).toEqual([1, 3, 2]);
    // `http` is the inlined IngressRuleValue: no tag of its own.
    expect(spec.rules.items?.properties?.http.protoTag).toBeUndefined();
    const npSpec = def(NP).schema.properties?.spec.properties ?? {};
    expect([npSpec.podSelector.protoTag, npSpec.ingress.protoTag, npSpec.egress.protoTag, npSpec.policyTypes.protoTag]).toEqual([1, 2, 3, 4]);
    const port = npSpec.ingress.items?.properties?.ports.items?.properties ?? {};
    expect([port.protocol.protoTag, port.port.protoTag, port.endPort.protoTag, port.port.intOrString]).toEqual([1, 2, 3, true]);
  });

  it("defaults policyTypes from the rules present, and an empty pod selector", () => {
    const ingressOnly = defaultObject(def(NP), mutate(sample(NP), (o) => deleteAt(o, "spec.egress")));
    expect(getAt(ingressOnly, "spec.policyTypes")).toEqual(["Ingress"]);
    const explicit = defaultObject(def(NP), mutate(sample(NP), (o) => setAt(o, "spec.policyTypes", ["Egress"])));
    expect(getAt(explicit, "spec.policyTypes")).toEqual(["Egress"]);
    const allPods = defaultObject(def(NP), mutate(sample(NP), (o) => deleteAt(o, "spec.podSelector")));
    expect(getAt(allPods, "spec.podSelector")).toEqual({});
    const cluster = defaultObject(def("IngressClass"), mutate(sample("IngressClass"), (o) => {
      deleteAt(o, "spec.parameters.scope");
      deleteAt(o, "spec.parameters.namespace");
    }));
    expect(getAt(cluster, "spec.parameters.scope")).toBe("Cluster");
    expect(admit(def("IngressClass"), cluster).errors).toEqual([]);
  });

  it("keeps an IngressClass controller immutable", () => {
    const old = sample("IngressClass");
    expect(paths(validateImmutable(def("IngressClass").schema, old, mutate(old, (o) => setAt(o, "spec.controller", "other.example.com/x"))))).toEqual(["spec.controller"]);
  });

  it("parses CIDRs", () => {
    expect(["10.0.0.0/8", "192.168.1.7/32", "2001:db8::/64", "::/0"].every(isCIDR)).toBe(true);
    expect(["10.0.0.0", "10.0.0.0/33", "2001:db8::/129", "x/8", "10.0.0.0/-1"].some(isCIDR)).toBe(false);
  });

  it("prints the platform's columns and cells", () => {
    const cells = (k: string, o = sample(k)) => (def(k).tableColumns ?? []).map((c) => c.cell?.(o));
    expect((def(I).tableColumns ?? []).map((c) => c.name)).toEqual(["Class", "Hosts", "Address", "Ports", "Age"]);
    expect(cells(I).slice(0, 4)).toEqual(["nginx", "shop.example.com,api.shop.example.com", "203.0.113.10", "80, 443"]);
    const plain = mutate(sample(I), (o) => {
      deleteAt(o, "spec.tls");
      deleteAt(o, "spec.ingressClassName");
      for (const r of o.spec && Array.isArray((o.spec as Record<string, unknown>).rules) ? ((o.spec as Record<string, unknown>).rules as Record<string, unknown>[]) : []) delete r.host;
    });
    expect(cells(I, plain).slice(0, 4)).toEqual(["<none>", "*", "203.0.113.10", "80"]);
    expect(cells("IngressClass").slice(0, 2)).toEqual(["nginx.example.com/ingress-controller", "IngressParameters.config.nginx.example.com/external-lb"]);
    expect((def(NP).tableColumns ?? []).map((c) => c.name)).toEqual(["Pod-Selector", "Age"]);
    expect(cells(NP, mutate(sample(NP), (o) => setAt(o, "spec.podSelector", {})))[0]).toBe("<none>");
  });
});
