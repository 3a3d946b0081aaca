import { describe, expect, it } from "vitest";
import { applyDefaults, findUnknownFields, validate } from "../../schema/index.ts";
import { defaultObject, deleteAt, getAt, mutate, paths, setAt } from "../testing/sample-harness.ts";
import { kinds, scaleKindSchema } from "./autoscaling-v1.ts";
import { byKind, sampleOf, sampleSuite } from "../testing/sample-suite.ts";

const DIR = "autoscaling-v1";
const hpa = byKind(kinds, "HorizontalPodAutoscaler");
const sample = () => sampleOf(DIR, kinds, "HorizontalPodAutoscaler");

sampleSuite({
  dir: DIR,
  kinds,
  defaults: { HorizontalPodAutoscaler: { "spec.minReplicas": 2, "spec.targetCPUUtilizationPercentage": 70 } },
  mutations: [
    {
      name: "unknown nested field",
      kind: "HorizontalPodAutoscaler",
      edit: (o) => setAt(o, "spec.scaleTargetRef.namespace", "shop"),
      unknown: ["spec.scaleTargetRef.namespace"],
    },
    { name: "wrong type", kind: "HorizontalPodAutoscaler", edit: (o) => setAt(o, "spec.maxReplicas", "10"), errors: ["spec.maxReplicas"], types: ["FieldValueTypeInvalid"] },
    { name: "bad name", kind: "HorizontalPodAutoscaler", edit: (o) => setAt(o, "metadata.name", "web frontend"), errors: ["metadata.name"] },
    { name: "missing target kind", kind: "HorizontalPodAutoscaler", edit: (o) => deleteAt(o, "spec.scaleTargetRef.kind"), errors: ["spec.scaleTargetRef.kind"], types: ["FieldValueRequired"] },
    { name: "missing maxReplicas", kind: "HorizontalPodAutoscaler", edit: (o) => deleteAt(o, "spec.maxReplicas"), errors: ["spec.maxReplicas"], types: ["FieldValueRequired"] },
    { name: "maxReplicas below minReplicas", kind: "HorizontalPodAutoscaler", edit: (o) => setAt(o, "spec.maxReplicas", 1), errors: ["spec.maxReplicas"] },
    { name: "minReplicas of zero", kind: "HorizontalPodAutoscaler", edit: (o) => setAt(o, "spec.minReplicas", 0), errors: ["spec.minReplicas"] },
    { name: "status without desiredReplicas", kind: "HorizontalPodAutoscaler", edit: (o) => deleteAt(o, "status.desiredReplicas"), errors: ["status.desiredReplicas"] },
  ],
});

describe("autoscaling/v1", () => {
  it("declares the autoscaler with the platform's names and field numbers", () => {
    expect([hpa.plural, hpa.shortNames, hpa.categories, hpa.subresources, hpa.namespaced]).toEqual(["horizontalpodautoscalers", ["hpa"], ["all"], ["status"], true]);
    const spec = hpa.schema.properties?.spec.properties ?? {};
    expect([spec.scaleTargetRef.protoTag, spec.minReplicas.protoTag, spec.maxReplicas.protoTag, spec.targetCPUUtilizationPercentage.protoTag]).toEqual([1, 2, 3, 4]);
    expect(spec.scaleTargetRef.mapType).toBe("atomic");
  });

  it("defaults minReplicas to 1", () => {
    expect(getAt(defaultObject(hpa, mutate(sample(), (o) => deleteAt(o, "spec.minReplicas"))), "spec.minReplicas")).toBe(1);
  });

  it("exports the Scale kind of scale subresources", () => {
    expect(scaleKindSchema.definition).toMatchObject({ group: "autoscaling", version: "v1", name: "Scale" });
    const scale = { apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: "web", namespace: "shop" }, spec: { replicas: 5 }, status: { replicas: 3, selector: "app=web" } };
    expect(validate(scaleKindSchema, scale)).toEqual([]);
    expect(findUnknownFields(scaleKindSchema, { ...scale, spec: { replicas: 5, paused: true } })).toEqual(["spec.paused"]);
    expect(getAt(applyDefaults(scaleKindSchema, { spec: {} }) as Record<string, unknown>, "spec.replicas")).toBe(0);
    expect(paths(validate(scaleKindSchema, { spec: { replicas: -1 }, status: {} }))).toEqual(["spec.replicas", "status.replicas"]);
    const props = scaleKindSchema.properties ?? {};
    expect([props.metadata.protoTag, props.spec.protoTag, props.status.protoTag, props.status.properties?.selector.protoTag]).toEqual([1, 2, 3, 2]);
  });

  it("prints the autoscaler columns", () => {
    const cells = (hpa.tableColumns ?? []).map((c) => c.cell?.(sample()));
    expect((hpa.tableColumns ?? []).map((c) => c.name)).toEqual(["Reference", "Targets", "MinPods", "MaxPods", "Replicas", "Age"]);
    expect(cells.slice(0, 5)).toEqual(["Deployment/web-frontend", "cpu: 41%/70%", "2", 10, 3]);
  });
});
