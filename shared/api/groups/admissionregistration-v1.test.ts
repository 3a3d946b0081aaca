import { describe, expect, it } from "vitest";
import { getProfile } from "../../platform/index.ts";
import type { KindDefinition } from "../../schema/types.ts";
import { admit, defaultObject, deleteAt, getAt, loadSample, mutate, paths, sampleFile, setAt } from "../testing/sample-harness.ts";
import { kinds, paramRefCell } from "./admissionregistration-v1.ts";

const profile = getProfile();
const byKind = (k: string): KindDefinition => {
  const d = kinds.find((x) => x.kind === k);
  if (!d) throw new Error(`no kind ${k}`);
  return d;
};
const MWC = "MutatingWebhookConfiguration";
const VWC = "ValidatingWebhookConfiguration";
const VAP = "ValidatingAdmissionPolicy";
const VAPB = "ValidatingAdmissionPolicyBinding";
const sample = (k: string) => loadSample("admissionregistration-v1", sampleFile(byKind(k)));
const errorPaths = (k: string, obj: Record<string, unknown>) => paths(admit(byKind(k), obj).errors);
const defaulted = (k: string, obj = sample(k)) => defaultObject(byKind(k), obj);

describe("admissionregistration/v1 kinds", () => {
  it("declares four cluster-scoped kinds in the api-extensions category", () => {
    expect(kinds.map((k) => [k.kind, k.plural])).toEqual([
      [MWC, "mutatingwebhookconfigurations"],
      [VWC, "validatingwebhookconfigurations"],
      [VAP, "validatingadmissionpolicies"],
      [VAPB, "validatingadmissionpolicybindings"],
    ]);
    for (const k of kinds) {
      expect(k.namespaced).toBe(false);
      expect(k.categories).toEqual(["api-extensions"]);
    }
    expect(byKind(VAP).subresources).toEqual(["status"]);
  });

  it("prints WEBHOOKS AGE for configurations, and the policy and binding columns", () => {
    expect(byKind(MWC).tableColumns?.map((c) => c.name)).toEqual(["Webhooks", "Age"]);
    expect(byKind(VWC).tableColumns?.[0].cell?.(sample(VWC))).toBe(2);
    expect(byKind(VAP).tableColumns?.map((c) => c.name)).toEqual(["Validations", "ParamKind", "Age"]);
    expect(byKind(VAP).tableColumns?.slice(0, 2).map((c) => c.cell?.(sample(VAP)))).toEqual([2, "rules.example.com/v1/ReplicaLimit"]);
    expect(byKind(VAPB).tableColumns?.map((c) => c.name)).toEqual(["PolicyName", "ParamRef", "Age"]);
    expect(paramRefCell(sample(VAPB))).toBe("policy-params/production-limit");
    expect(paramRefCell({ spec: { paramRef: { name: "p" } } })).toBe("*/p");
    expect(paramRefCell({ spec: { paramRef: { selector: { matchLabels: { a: "b" } } } } })).toBe("a=b");
    expect(paramRefCell({ spec: {} })).toBe("<unset>");
  });

  it("uses the platform's protobuf field numbers", () => {
    const tags = (k: string) => {
      const hook = byKind(k).schema.properties?.webhooks.items?.properties ?? {};
      return Object.fromEntries(Object.entries(hook).map(([n, s]) => [n, s.protoTag]));
    };
    expect(tags(MWC)).toEqual({
      name: 1,
      clientConfig: 2,
      rules: 3,
      failurePolicy: 4,
      namespaceSelector: 5,
      sideEffects: 6,
      timeoutSeconds: 7,
      admissionReviewVersions: 8,
      matchPolicy: 9,
      reinvocationPolicy: 10,
      objectSelector: 11,
      matchConditions: 12,
    });
    expect(tags(VWC)).toMatchObject({ objectSelector: 10, matchConditions: 11 });
    const spec = byKind(VAP).schema.properties?.spec.properties ?? {};
    expect(Object.fromEntries(Object.entries(spec).map(([n, s]) => [n, s.protoTag]))).toEqual({
      paramKind: 1,
      matchConstraints: 2,
      validations: 3,
      failurePolicy: 4,
      auditAnnotations: 5,
      matchConditions: 6,
      variables: 7,
    });
    const mr = spec.matchConstraints.properties ?? {};
    expect([mr.namespaceSelector, mr.objectSelector, mr.resourceRules, mr.excludeResourceRules, mr.matchPolicy].map((s) => s.protoTag)).toEqual([1, 2, 3, 4, 7]);
  });
});

describe("admissionregistration/v1 samples", () => {
  for (const def of kinds) {
    it(`${def.kind}: decodes with no unknown fields and no errors; defaulting is idempotent`, () => {
      const obj = sample(def.kind);
      expect(obj.apiVersion).toBe(profile.apiVersion("admissionregistration", "v1"));
      expect(obj.kind).toBe(def.kind);
      const { unknown, defaulted: d, errors } = admit(def, obj);
      expect(unknown).toEqual([]);
      expect(errors).toEqual([]);
      expect(defaultObject(def, d)).toEqual(d);
    });
  }

  it("fills the v1 webhook defaults", () => {
    const m = defaulted(MWC);
    expect(getAt(m, "webhooks[0]")).toMatchObject({
      failurePolicy: "Fail",
      matchPolicy: "Equivalent",
      timeoutSeconds: 10,
      objectSelector: {},
      reinvocationPolicy: "IfNeeded", // as written
    });
    expect(getAt(m, "webhooks[0].namespaceSelector.matchExpressions[0].key")).toBe("mesh-injection");
    expect(getAt(m, "webhooks[0].rules[0].scope")).toBe("*");
    expect(getAt(m, "webhooks[0].clientConfig.service.port")).toBe(443);
    const never = defaulted(MWC, mutate(sample(MWC), (o) => deleteAt(o, "webhooks[0].reinvocationPolicy")));
    expect(getAt(never, "webhooks[0].reinvocationPolicy")).toBe("Never");

    const v = defaulted(VWC);
    expect(getAt(v, "webhooks[1]")).toMatchObject({
      failurePolicy: "Fail",
      matchPolicy: "Equivalent",
      timeoutSeconds: 10,
      namespaceSelector: {},
      objectSelector: {},
    });
    expect(getAt(v, "webhooks[1].rules[0].scope")).toBe("Cluster");
    expect(getAt(v, "webhooks[1].clientConfig.service.port")).toBe(9443);
    // Written values stay; validating webhooks have no reinvocation policy.
    expect(getAt(v, "webhooks[0]")).toMatchObject({ failurePolicy: "Ignore", matchPolicy: "Exact", timeoutSeconds: 5, namespaceSelector: {} });
    expect(getAt(v, "webhooks[0].reinvocationPolicy")).toBeUndefined();
    // sideEffects and admissionReviewVersions have no default in v1.
    const bare = defaulted(VWC, mutate(sample(VWC), (o) => deleteAt(o, "webhooks[1].sideEffects")));
    expect(getAt(bare, "webhooks[1].sideEffects")).toBeUndefined();
  });

  it("fills the policy and binding defaults", () => {
    const p = defaulted(VAP);
    expect(getAt(p, "spec.failurePolicy")).toBe("Fail");
    expect(getAt(p, "spec.matchConstraints")).toMatchObject({ matchPolicy: "Equivalent", namespaceSelector: {}, objectSelector: {} });
    expect(getAt(p, "spec.matchConstraints.resourceRules[0].scope")).toBe("*");
    const b = defaulted(VAPB);
    expect(getAt(b, "spec.matchResources")).toMatchObject({ matchPolicy: "Equivalent", objectSelector: {}, namespaceSelector: { matchLabels: { environment: "production" } } });
  });
});

describe("admissionregistration/v1 rejects bad webhook configurations with the platform's field paths", () => {
  it("unknown nested field", () => {
    const bad = mutate(sample(MWC), (o) => setAt(o, "webhooks[0].clientConfig.service.portNumber", 8443));
    expect(admit(byKind(MWC), bad).unknown).toEqual(["webhooks[0].clientConfig.service.portNumber"]);
    const bad2 = mutate(sample(VWC), (o) => setAt(o, "webhooks[0].reinvocationPolicy", "Never"));
    expect(admit(byKind(VWC), bad2).unknown).toEqual(["webhooks[0].reinvocationPolicy"]);
  });

  it("wrong type", () => {
    expect(errorPaths(MWC, mutate(sample(MWC), (o) => setAt(o, "webhooks[0].timeoutSeconds", "10s")))).toEqual(["webhooks[0].timeoutSeconds"]);
    expect(errorPaths(VWC, mutate(sample(VWC), (o) => setAt(o, "webhooks[0].rules", { operations: ["CREATE"] })))).toEqual(["webhooks[0].rules"]);
  });

  it("bad names", () => {
    const short = mutate(sample(MWC), (o) => setAt(o, "webhooks[0].name", "inject.example"));
    const e = admit(byKind(MWC), short).errors;
    expect(paths(e)).toEqual(["webhooks[0].name"]);
    expect(e[0].message).toContain("should be a domain with at least three segments separated by dots");
    expect(errorPaths(MWC, mutate(sample(MWC), (o) => setAt(o, "metadata.name", "Sidecar_Injector")))).toEqual(["metadata.name"]);
    expect(errorPaths(VWC, mutate(sample(VWC), (o) => setAt(o, "webhooks[0].matchConditions[0].name", "-bad-")))).toEqual([
      "webhooks[0].matchConditions[0].name",
    ]);
    expect(errorPaths(VWC, mutate(sample(VWC), (o) => setAt(o, "webhooks[1].name", "deployments.policy.example.com")))).toEqual(["webhooks[1]"]);
  });

  it("missing required fields: sideEffects, admissionReviewVersions, clientConfig target", () => {
    expect(errorPaths(MWC, mutate(sample(MWC), (o) => deleteAt(o, "webhooks[0].sideEffects")))).toEqual(["webhooks[0].sideEffects"]);
    expect(errorPaths(MWC, mutate(sample(MWC), (o) => deleteAt(o, "webhooks[0].admissionReviewVersions")))).toEqual(["webhooks[0].admissionReviewVersions"]);
    expect(errorPaths(VWC, mutate(sample(VWC), (o) => setAt(o, "webhooks[1].admissionReviewVersions", [])))).toEqual(["webhooks[1].admissionReviewVersions"]);
    expect(errorPaths(VWC, mutate(sample(VWC), (o) => deleteAt(o, "webhooks[0].clientConfig.url")))).toEqual(["webhooks[0].clientConfig"]);
    const both = mutate(sample(VWC), (o) => setAt(o, "webhooks[1].clientConfig.url", "https://x.example.com"));
    expect(errorPaths(VWC, both)).toEqual(["webhooks[1].clientConfig"]);
    expect(errorPaths(MWC, mutate(sample(MWC), (o) => deleteAt(o, "webhooks[0].clientConfig.service.namespace")))).toEqual([
      "webhooks[0].clientConfig.service.namespace",
    ]);
    expect(errorPaths(MWC, mutate(sample(MWC), (o) => deleteAt(o, "webhooks[0].rules[0].operations")))).toEqual(["webhooks[0].rules[0].operations"]);
  });

  it("bad enum values", () => {
    const some = admit(byKind(MWC), mutate(sample(MWC), (o) => setAt(o, "webhooks[0].sideEffects", "Some"))).errors;
    expect(paths(some)).toEqual(["webhooks[0].sideEffects"]);
    expect(some[0].message).toBe('Unsupported value: "Some": supported values: "None", "NoneOnDryRun"');
    expect(errorPaths(VWC, mutate(sample(VWC), (o) => setAt(o, "webhooks[0].failurePolicy", "Retry")))).toEqual(["webhooks[0].failurePolicy"]);
    expect(errorPaths(VWC, mutate(sample(VWC), (o) => setAt(o, "webhooks[0].rules[0].operations[1]", "PATCH")))).toEqual([
      "webhooks[0].rules[0].operations[1]",
    ]);
    expect(errorPaths(VWC, mutate(sample(VWC), (o) => setAt(o, "webhooks[0].rules[0].scope", "Global")))).toEqual(["webhooks[0].rules[0].scope"]);
    expect(errorPaths(MWC, mutate(sample(MWC), (o) => setAt(o, "webhooks[0].reinvocationPolicy", "Always")))).toEqual(["webhooks[0].reinvocationPolicy"]);
  });

  it("bounds: timeout 1..30 s, at most 64 match conditions, unique condition names", () => {
    expect(errorPaths(MWC, mutate(sample(MWC), (o) => setAt(o, "webhooks[0].timeoutSeconds", 31)))).toEqual(["webhooks[0].timeoutSeconds"]);
    expect(errorPaths(MWC, mutate(sample(MWC), (o) => setAt(o, "webhooks[0].timeoutSeconds", 0)))).toEqual(["webhooks[0].timeoutSeconds"]);
    const many = Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: "true" }));
    const tooMany = admit(byKind(MWC), mutate(sample(MWC), (o) => setAt(o, "webhooks[0].matchConditions", many))).errors;
    expect(paths(tooMany)).toEqual(["webhooks[0].matchConditions"]);
    expect(tooMany[0].type).toBe("FieldValueTooMany");
    const dup = mutate(sample(VWC), (o) => setAt(o, "webhooks[0].matchConditions[1].name", "not-node-agents"));
    expect(errorPaths(VWC, dup)).toEqual(["webhooks[0].matchConditions[1]"]);
  });

  it("client config URLs and service paths", () => {
    const http = admit(byKind(VWC), mutate(sample(VWC), (o) => setAt(o, "webhooks[0].clientConfig.url", "http://policy.example.com/x"))).errors;
    expect(paths(http)).toEqual(["webhooks[0].clientConfig.url"]);
    expect(http[0].message).toContain("'https' is the only allowed URL scheme");
    expect(errorPaths(VWC, mutate(sample(VWC), (o) => setAt(o, "webhooks[0].clientConfig.url", "https://policy.example.com/x?a=b")))).toEqual([
      "webhooks[0].clientConfig.url",
    ]);
    expect(errorPaths(VWC, mutate(sample(VWC), (o) => setAt(o, "webhooks[0].clientConfig.url", "https://u:p@policy.example.com/x")))).toEqual([
      "webhooks[0].clientConfig.url",
    ]);
    expect(errorPaths(MWC, mutate(sample(MWC), (o) => setAt(o, "webhooks[0].clientConfig.service.path", "inject")))).toEqual([
      "webhooks[0].clientConfig.service.path",
    ]);
    expect(errorPaths(MWC, mutate(sample(MWC), (o) => setAt(o, "webhooks[0].clientConfig.service.port", 70000)))).toEqual([
      "webhooks[0].clientConfig.service.port",
    ]);
  });

  it("rules and review versions", () => {
    const wild = mutate(sample(VWC), (o) => setAt(o, "webhooks[0].rules[0].operations", ["*", "CREATE"]));
    expect(errorPaths(VWC, wild)).toEqual(["webhooks[0].rules[0].operations"]);
    const res = mutate(sample(VWC), (o) => setAt(o, "webhooks[0].rules[0].resources", ["*/*", "pods"]));
    expect(errorPaths(VWC, res)).toEqual(["webhooks[0].rules[0].resources"]);
    const v2 = admit(byKind(VWC), mutate(sample(VWC), (o) => setAt(o, "webhooks[1].admissionReviewVersions", ["v2"]))).errors;
    expect(paths(v2)).toEqual(["webhooks[1].admissionReviewVersions"]);
    expect(v2[0].message).toContain("must include at least one of v1, v1beta1");
  });
});

describe("admissionregistration/v1 rejects bad policies and bindings with the platform's field paths", () => {
  it("unknown nested field and wrong type", () => {
    const bad = mutate(sample(VAP), (o) => setAt(o, "spec.validations[0].rule", "true"));
    expect(admit(byKind(VAP), bad).unknown).toEqual(["spec.validations[0].rule"]);
    expect(errorPaths(VAP, mutate(sample(VAP), (o) => setAt(o, "spec.validations", { expression: "true" })))).toEqual(["spec.validations"]);
  });

  it("missing required fields", () => {
    expect(errorPaths(VAP, mutate(sample(VAP), (o) => deleteAt(o, "spec.matchConstraints")))).toEqual(["spec.matchConstraints"]);
    expect(errorPaths(VAP, mutate(sample(VAP), (o) => deleteAt(o, "spec.matchConstraints.resourceRules")))).toEqual(["spec.matchConstraints.resourceRules"]);
    expect(errorPaths(VAP, mutate(sample(VAP), (o) => deleteAt(o, "spec.validations[1].expression")))).toEqual(["spec.validations[1].expression"]);
    const empty = mutate(sample(VAP), (o) => {
      deleteAt(o, "spec.validations");
      deleteAt(o, "spec.auditAnnotations");
    });
    expect(errorPaths(VAP, empty)).toEqual(["spec.validations", "spec.auditAnnotations"]);
    expect(errorPaths(VAP, mutate(sample(VAP), (o) => deleteAt(o, "spec.paramKind.kind")))).toEqual(["spec.paramKind.kind"]);
    expect(errorPaths(VAPB, mutate(sample(VAPB), (o) => deleteAt(o, "spec.policyName")))).toEqual(["spec.policyName"]);
    expect(errorPaths(VAPB, mutate(sample(VAPB), (o) => deleteAt(o, "spec.validationActions")))).toEqual(["spec.validationActions"]);
    expect(errorPaths(VAPB, mutate(sample(VAPB), (o) => setAt(o, "spec.validationActions", [])))).toEqual(["spec.validationActions"]);
    expect(errorPaths(VAPB, mutate(sample(VAPB), (o) => deleteAt(o, "spec.paramRef.parameterNotFoundAction")))).toEqual([
      "spec.paramRef.parameterNotFoundAction",
    ]);
    expect(errorPaths(VAPB, mutate(sample(VAPB), (o) => deleteAt(o, "spec.paramRef.name")))).toEqual(["spec.paramRef"]);
  });

  it("bad enums and names", () => {
    expect(errorPaths(VAP, mutate(sample(VAP), (o) => setAt(o, "spec.validations[0].reason", "Conflict")))).toEqual(["spec.validations[0].reason"]);
    expect(errorPaths(VAP, mutate(sample(VAP), (o) => setAt(o, "spec.failurePolicy", "Retry")))).toEqual(["spec.failurePolicy"]);
    expect(errorPaths(VAP, mutate(sample(VAP), (o) => setAt(o, "spec.variables[0].name", "max-replicas")))).toEqual(["spec.variables[0].name"]);
    expect(errorPaths(VAP, mutate(sample(VAP), (o) => setAt(o, "spec.auditAnnotations[0].key", "high replicas")))).toEqual([
      "spec.auditAnnotations[0].key",
    ]);
    expect(errorPaths(VAPB, mutate(sample(VAPB), (o) => setAt(o, "spec.validationActions[1]", "Block")))).toEqual(["spec.validationActions[1]"]);
    expect(errorPaths(VAPB, mutate(sample(VAPB), (o) => setAt(o, "spec.policyName", "Replica_Limit")))).toEqual(["spec.policyName"]);
    expect(errorPaths(VAPB, mutate(sample(VAPB), (o) => setAt(o, "metadata.name", "a/b")))).toEqual(["metadata.name"]);
  });

  it("cross-field rules", () => {
    expect(errorPaths(VAPB, mutate(sample(VAPB), (o) => setAt(o, "spec.validationActions", ["Deny", "Warn"])))).toEqual(["spec.validationActions"]);
    expect(errorPaths(VAPB, mutate(sample(VAPB), (o) => setAt(o, "spec.validationActions", ["Deny", "Deny"])))).toEqual(["spec.validationActions[1]"]);
    const both = mutate(sample(VAPB), (o) => setAt(o, "spec.paramRef.selector", {}));
    expect(errorPaths(VAPB, both)).toEqual(["spec.paramRef.name", "spec.paramRef.selector"]);
    const multiline = mutate(sample(VAP), (o) => {
      setAt(o, "spec.validations[1].expression", "object.metadata.name.size()\n<= 48");
      deleteAt(o, "spec.validations[1].message");
    });
    expect(errorPaths(VAP, multiline)).toEqual(["spec.validations[1].message"]);
    const ruleWild = mutate(sample(VAP), (o) => setAt(o, "spec.matchConstraints.resourceRules[0].apiGroups", ["*", "apps"]));
    expect(errorPaths(VAP, ruleWild)).toEqual(["spec.matchConstraints.resourceRules[0].apiGroups"]);
  });
});
