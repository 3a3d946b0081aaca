/**
 * The platform's CEL libraries through HTTPS against a real replica: for each
 * library (quantity, IP/CIDR, URL, semver, format, lists, regex, strings) a
 * ValidatingAdmissionPolicy over ConfigMaps that admits a good value and denies
 * a bad one, and a CRD `x-…-validations` rule on a custom resource field that
 * does the same.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { CRD_GROUP, crdPath, waitServed } from "../support/crd-fixtures.ts";

type Obj = Record<string, unknown>;

interface Library {
  name: string;
  /** Rule over the string `v` (the ConfigMap value, or the CRD field as `self`). */
  rule: (v: string) => string;
  good: string;
  bad: string;
  /** The CRD field is a list of integers parsed from the text. */
  list?: boolean;
}

const LIBRARIES: Library[] = [
  { name: "quantity", rule: (v) => `isQuantity(${v}) && quantity(${v}).isLessThan(quantity('2Gi')) && quantity(${v}).add(1).isGreaterThan(quantity('1'))`, good: "1.5Gi", bad: "3Gi" },
  { name: "net", rule: (v) => `isIP(${v}) && ip(${v}).family() == 4 && !ip(${v}).isLoopback() && cidr('10.0.0.0/8').containsIP(ip(${v}))`, good: "10.1.2.3", bad: "127.0.0.1" },
  { name: "url", rule: (v) => `isURL(${v}) && url(${v}).getScheme() == 'https' && url(${v}).getHostname().endsWith('.example.com')`, good: "https://api.example.com:8443/v1", bad: "http://api.example.com/" },
  { name: "semver", rule: (v) => `isSemver(${v}, true) && semver(${v}, true).isGreaterThan(semver('1.2.0'))`, good: "v1.3", bad: "1.1.9" },
  { name: "format", rule: (v) => `!format.dns1123Label().validate(${v}).hasValue() && format.named('labelValue').hasValue()`, good: "my-name", bad: "My_Name" },
  { name: "regex", rule: (v) => `${v}.findAll('[0-9]+').size() == 2 && ${v}.find('[a-z]+') == 'v'`, good: "v1-2", bad: "v1" },
  { name: "strings", rule: (v) => `${v}.replace('-', '.').charAt(1) == '.' && strings.quote(${v}).size() == ${v}.size() + 2`, good: "a-b", bad: "ab-" },
  { name: "lists", rule: (v) => `${v}.isSorted() && ${v}.sum() < 100 && ${v}.max() == ${v}[${v}.size() - 1] && ${v}.indexOf(${v}.min()) == 0`, good: "1,2,3", bad: "3,2,1", list: true },
];

const asList = (text: string): number[] => text.split(",").map(Number);
/** The ConfigMap form of a list: the rule reads the parsed integers. */
const listOf = (v: string): string => `${v}.split(',').map(s, int(s))`;

let api: TestApiserver;
let ar: string;
const crBase = `/apis/${CRD_GROUP}/v1/namespaces/default/celchecks`;

function celCheckCrd(): Obj {
  const x = api.profile.ext;
  const properties: Obj = {};
  for (const lib of LIBRARIES) {
    const validations = [{ rule: lib.rule("self"), message: `${lib.name} check failed` }];
    properties[lib.name] = lib.list ? { type: "array", maxItems: 10, items: { type: "integer" }, [x.validations]: validations } : { type: "string", maxLength: 64, [x.validations]: validations };
  }
  return {
    apiVersion: api.profile.apiVersion("apiextensions", "v1"),
    kind: "CustomResourceDefinition",
    metadata: { name: `celchecks.${CRD_GROUP}` },
    spec: {
      group: CRD_GROUP,
      scope: "Namespaced",
      names: { plural: "celchecks", singular: "celcheck", kind: "CelCheck" },
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties } } } } }],
    },
  };
}

beforeAll(async () => {
  api = await startTestApiserver();
  ar = `/apis/${api.profile.group("admissionregistration")}/v1`;
  const crd = await api.admin.post(crdPath(api.profile), celCheckCrd());
  expect(crd.status, crd.text).toBe(201);
  await waitServed(api.admin, crBase);
});

afterAll(async () => {
  await api?.close();
});

async function post(path: string, body: Obj): Promise<void> {
  const r = await api.admin.post(path, body);
  expect(r.status, r.text).toBe(201);
}

function configMap(name: string, value: string): Obj {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { v: value } };
}

/** A namespace `cel-<lib>` whose ConfigMaps the library's policy checks. */
async function libraryPolicy(lib: Library): Promise<string> {
  const ns = `cel-${lib.name}`;
  const apiVersion = `${api.profile.group("admissionregistration")}/v1`;
  await post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns, labels: { cel: ns } } });
  const value = lib.list ? listOf("object.data.v") : "object.data.v";
  await post(`${ar}/validatingadmissionpolicies`, {
    apiVersion,
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: `${ns}.example.com` },
    spec: {
      failurePolicy: "Fail",
      matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }] },
      validations: [{ expression: lib.rule(value), message: `${lib.name} check failed` }],
    },
  });
  await post(`${ar}/validatingadmissionpolicybindings`, {
    apiVersion,
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name: `${ns}-binding.example.com` },
    spec: { policyName: `${ns}.example.com`, validationActions: ["Deny"], matchResources: { namespaceSelector: { matchLabels: { cel: ns } } } },
  });
  return ns;
}

/** Creates the bad ConfigMap (dry run) until the policy denies it: the policy reached the replica's cache. */
async function whenEffective(ns: string, lib: Library): Promise<void> {
  const deadline = Date.now() + 2000;
  for (;;) {
    const r = await api.admin.post(`/api/v1/namespaces/${ns}/configmaps?dryRun=All`, configMap("probe", lib.bad));
    if (r.status === 422) return;
    if (Date.now() > deadline) throw new Error(`policy not effective: ${r.status} ${r.text}`);
    await new Promise((res) => setTimeout(res, 25));
  }
}

describe.each(LIBRARIES)("the $name library", (lib) => {
  it("is available to ValidatingAdmissionPolicy expressions", async () => {
    const ns = await libraryPolicy(lib);
    await whenEffective(ns, lib);
    const good = await api.admin.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("good", lib.good));
    expect(good.status, good.text).toBe(201);
    const bad = await api.admin.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("bad", lib.bad));
    expect(bad.status).toBe(422);
    expect(bad.json<{ message: string }>().message).toBe(
      `configmaps "bad" is forbidden: ValidatingAdmissionPolicy '${ns}.example.com' with binding '${ns}-binding.example.com' denied request: ${lib.name} check failed`,
    );
  });

  it("is available to CRD validation rules", async () => {
    const value = (text: string): unknown => (lib.list ? asList(text) : text);
    const cr = (name: string, text: string): Obj => ({ apiVersion: `${CRD_GROUP}/v1`, kind: "CelCheck", metadata: { name }, spec: { [lib.name]: value(text) } });
    const good = await api.admin.post(crBase, cr(`${lib.name}-good`, lib.good));
    expect(good.status, good.text).toBe(201);
    const bad = await api.admin.post(crBase, cr(`${lib.name}-bad`, lib.bad));
    expect(bad.status).toBe(422);
    const status = bad.json<{ message: string; details: { causes: Array<{ field: string; message: string }> } }>();
    expect(status.details.causes).toEqual([expect.objectContaining({ field: `spec.${lib.name}`, message: expect.stringContaining(`${lib.name} check failed`) as unknown })]);
  });
});
