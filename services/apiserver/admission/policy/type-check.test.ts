import { describe, expect, it } from "vitest";
import { builtinKinds } from "../../../../shared/api/groups/index.ts";
import { getProfile } from "../../../../shared/platform/index.ts";
import { resourcesToCheck, typeCheck, type CheckedKind } from "./type-check.ts";

const profile = getProfile("kubernetes");
const def = (kind: string, group = "apps") => {
  const d = builtinKinds(profile).find((k) => k.kind === kind && k.group === group);
  if (!d) throw new Error(kind);
  return d;
};
const deployment: CheckedKind = { group: "apps", version: "v1", kind: "Deployment", schema: def("Deployment").schema };
const statefulSet: CheckedKind = { group: "apps", version: "v1", kind: "StatefulSet", schema: def("StatefulSet").schema };
const configMap = def("ConfigMap", "core").schema;

const spec = (expression: string, messageExpression?: string) => ({ validations: [{ expression, ...(messageExpression ? { messageExpression } : {}) }] });

describe("policy type checking", () => {
  const clean: string[] = [
    "object.spec.replicas > 1",
    "has(object.spec.template.spec.nodeName)",
    "object.metadata.labels['a'] == 'b' && object.metadata.labels.anything == 'x'",
    "oldObject == null || oldObject.spec.replicas >= 0",
    "object.spec.template.spec.containers.all(c, c.image != '')",
    "object.?spec.?replicas.orValue(1) > 0",
  ];
  it.each(clean)("finds nothing in %s", (expression) => {
    expect(typeCheck(spec(expression), [deployment])).toEqual([]);
  });

  it("reports an undeclared field with the platform's text, position and caret", () => {
    expect(typeCheck(spec("object.spec.replicass > 1"), [deployment])).toEqual([
      { fieldRef: "spec.validations[0].expression", warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass > 1\n | ...........^\n" },
    ]);
  });

  it("reports per kind, in group/version/kind order, and checks messageExpression", () => {
    const w = typeCheck(spec("object.spec.serviceName == 'x'", "'bad ' + object.spec.nope"), [statefulSet, deployment]);
    expect(w.map((x) => x.fieldRef)).toEqual(["spec.validations[0].expression", "spec.validations[0].messageExpression"]);
    expect(w[0].warning).toBe("apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'serviceName'\n | object.spec.serviceName == 'x'\n | ...........^\n");
    expect(w[1].warning.split("\n\n")).toHaveLength(2);
    expect(w[1].warning).toMatch(/^apps\/v1, Kind=Deployment: ERROR: <input>:1:21: undefined field 'nope'/);
    expect(w[1].warning).toContain("\napps/v1, Kind=StatefulSet: ERROR: <input>:1:21: undefined field 'nope'");
  });

  it("checks params against the paramKind's schema, and lines of multi-line expressions", () => {
    const w = typeCheck(spec("object.spec.replicas <= int(params.data.max) &&\n  params.spec.max > 0"), [deployment], configMap);
    expect(w).toHaveLength(1);
    expect(w[0].warning).toBe("apps/v1, Kind=Deployment: ERROR: <input>:2:9: undefined field 'spec'\n |   params.spec.max > 0\n | ........^\n");
  });

  it("takes the resources to check from rules without wildcards or subresources", () => {
    const rules = { matchConstraints: { resourceRules: [
      { apiGroups: ["apps"], apiVersions: ["v1"], resources: ["statefulsets", "deployments", "deployments/scale", "*"] },
      { apiGroups: ["*"], apiVersions: ["v1"], resources: ["pods"] },
    ] } };
    expect(resourcesToCheck(rules)).toEqual([
      { group: "apps", version: "v1", resource: "deployments" },
      { group: "apps", version: "v1", resource: "statefulsets" },
    ]);
  });
});
