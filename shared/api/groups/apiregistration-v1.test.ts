import { describe, expect, it } from "vitest";
import { formatFieldError } from "../../schema/field-errors.ts";
import { setAt } from "../testing/sample-harness.ts";
import { byKind, sampleOf, sampleSuite } from "../testing/sample-suite.ts";
import { kinds, validateAPIService } from "./apiregistration-v1.ts";

const apiService = byKind(kinds, "APIService");

sampleSuite({
  dir: "apiregistration-v1",
  kinds,
  defaults: { APIService: { "spec.service.port": 443 } },
  mutations: [
    { name: "unknown nested field", kind: "APIService", edit: (o) => setAt(o, "spec.serviceName", "x"), unknown: ["spec.serviceName"] },
    { name: "name not version.group", kind: "APIService", edit: (o) => setAt(o, "metadata.name", "v1.metrics.example.com"), errors: ["metadata.name"] },
    { name: "priority out of range", kind: "APIService", edit: (o) => setAt(o, "spec.versionPriority", 1001), errors: ["spec.versionPriority"] },
    { name: "service without a name", kind: "APIService", edit: (o) => setAt(o, "spec.service.name", ""), errors: ["spec.service.name"], types: ["FieldValueRequired"] },
  ],
});

describe("apiregistration/v1", () => {
  it("declares APIService with the platform's field numbers and table columns", () => {
    expect([apiService.plural, apiService.namespaced, apiService.subresources, apiService.nameFormat]).toEqual(["apiservices", false, ["status"], "path-segment-name"]);
    const spec = apiService.schema.properties?.spec.properties ?? {};
    expect(Object.fromEntries(Object.entries(spec).map(([k, v]) => [k, v.protoTag]))).toEqual({ service: 1, group: 2, version: 3, insecureSkipTLSVerify: 4, caBundle: 5, groupPriorityMinimum: 7, versionPriority: 8 });
    const sample = sampleOf("apiregistration-v1", kinds, "APIService");
    expect((apiService.tableColumns ?? []).map((c) => [c.name, c.cell?.(sample)])).toEqual([
      ["Service", "kube-system/metrics-server"],
      ["Available", "False (ServiceNotFound)"],
      ["Age", expect.any(String)],
    ]);
  });

  const base = { metadata: { name: "v1.g.example.com" }, spec: { group: "g.example.com", version: "v1", groupPriorityMinimum: 100, versionPriority: 10 } };
  const ca = Buffer.from("-----BEGIN CERTIFICATE-----\n").toString("base64");
  it.each([
    ["a local APIService", {}, []],
    ["the core group's", { metadata: { name: "v1." }, spec: { group: "" } }, []],
    ["an empty group for another version", { metadata: { name: "v2." }, spec: { group: "", version: "v2" } }, ["spec.group: Required value: only v1 may have an empty group and it better be legacy kube"]],
    ["a version that is not a DNS label", { metadata: { name: "V1.g.example.com" }, spec: { version: "V1" } }, ['spec.version: Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')']],
    ["a caBundle on a local APIService", { spec: { caBundle: ca } }, [`spec.caBundle: Invalid value: "${Buffer.from(ca, "base64").length} bytes": local APIServices may not have a caBundle`]],
    ["insecureSkipTLSVerify on a local APIService", { spec: { insecureSkipTLSVerify: true } }, ["spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify"]],
    ["a service port out of range", { spec: { service: { namespace: "n", name: "s", port: 70000 } } }, ["spec.service.port: Invalid value: 70000: must be between 1 and 65535, inclusive"]],
    ["a service without namespace", { spec: { service: { name: "s" } } }, ["spec.service.namespace: Required value"]],
  ] as const)("%s", (_name, change, want) => {
    const change_ = change as { metadata?: object; spec?: object };
    const obj = { metadata: { ...base.metadata, ...change_.metadata }, spec: { ...base.spec, ...change_.spec } };
    const lines = validateAPIService(obj).map(formatFieldError);
    expect(lines).toEqual(want);
  });
});
