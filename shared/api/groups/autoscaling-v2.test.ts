import { describe, expect, it } from "vitest";
import { deleteAt, defaultObject, getAt, mutate, setAt } from "../testing/sample-harness.ts";
import { DEFAULT_CPU_UTILIZATION, formatHPAMetrics, kinds } from "./autoscaling-v2.ts";
import { byKind, sampleOf, sampleSuite } from "../testing/sample-suite.ts";

const DIR = "autoscaling-v2";
const hpa = byKind(kinds, "HorizontalPodAutoscaler");
const sample = () => sampleOf(DIR, kinds, "HorizontalPodAutoscaler");
const K = "HorizontalPodAutoscaler";

sampleSuite({
  dir: DIR,
  kinds,
  defaults: {
    HorizontalPodAutoscaler: {
      "spec.minReplicas": 3,
      "spec.behavior.scaleUp": {
        stabilizationWindowSeconds: 0,
        selectPolicy: "Max",
        policies: [
          { type: "Pods", value: 4, periodSeconds: 15 },
          { type: "Percent", value: 100, periodSeconds: 15 },
        ],
      },
      "spec.behavior.scaleDown": { stabilizationWindowSeconds: 300, selectPolicy: "Max", policies: [{ type: "Percent", value: 10, periodSeconds: 60 }] },
    },
  },
  mutations: [
    { name: "unknown nested field", kind: K, edit: (o) => setAt(o, "spec.metrics[0].resource.target.utilisation", 5), unknown: ["spec.metrics[0].resource.target.utilisation"] },
    {
      name: "wrong type",
      kind: K,
      edit: (o) => setAt(o, "spec.metrics[0].resource.target.averageUtilization", "65%"),
      errors: ["spec.metrics[0].resource.target.averageUtilization"],
      types: ["FieldValueTypeInvalid"],
    },
    { name: "bad name", kind: K, edit: (o) => setAt(o, "metadata.name", "-web"), errors: ["metadata.name"] },
    { name: "missing metric target", kind: K, edit: (o) => deleteAt(o, "spec.metrics[1].pods.target"), errors: ["spec.metrics[1].pods.target"], types: ["FieldValueRequired"] },
    { name: "bad metric source type", kind: K, edit: (o) => setAt(o, "spec.metrics[1].type", "Custom"), errors: ["spec.metrics[1].type"], types: ["FieldValueNotSupported"] },
    { name: "bad select policy", kind: K, edit: (o) => setAt(o, "spec.behavior.scaleDown.selectPolicy", "Average"), errors: ["spec.behavior.scaleDown.selectPolicy"] },
    { name: "policy period of zero", kind: K, edit: (o) => setAt(o, "spec.behavior.scaleDown.policies[0].periodSeconds", 0), errors: ["spec.behavior.scaleDown.policies[0].periodSeconds"] },
    { name: "stabilization window over an hour", kind: K, edit: (o) => setAt(o, "spec.behavior.scaleDown.stabilizationWindowSeconds", 3601), errors: ["spec.behavior.scaleDown.stabilizationWindowSeconds"] },
    {
      name: "metric type without its source",
      kind: K,
      edit: (o) => setAt(o, "spec.metrics[0]", { type: "Resource", pods: { metric: { name: "rps" }, target: { type: "AverageValue", averageValue: "1" } } }),
      errors: ["spec.metrics[0].resource"],
    },
    {
      name: "two metric sources in one metric",
      kind: K,
      edit: (o) => setAt(o, "spec.metrics[1].resource", { name: "memory", target: { type: "Utilization", averageUtilization: 70 } }),
      errors: ["spec.metrics[1].resource"],
      types: ["FieldValueForbidden"],
    },
    {
      name: "utilization target without a value",
      kind: K,
      edit: (o) => deleteAt(o, "spec.metrics[0].resource.target.averageUtilization"),
      errors: ["spec.metrics[0].resource.target.averageUtilization"],
    },
    { name: "maxReplicas below minReplicas", kind: K, edit: (o) => setAt(o, "spec.maxReplicas", 2), errors: ["spec.maxReplicas"] },
  ],
});

describe("autoscaling/v2", () => {
  it("declares the autoscaler with the platform's names and field numbers", () => {
    expect([hpa.plural, hpa.shortNames, hpa.categories, hpa.subresources]).toEqual(["horizontalpodautoscalers", ["hpa"], ["all"], ["status"]]);
    const spec = hpa.schema.properties?.spec.properties ?? {};
    expect([spec.metrics.protoTag, spec.behavior.protoTag, spec.metrics.listType]).toEqual([4, 5, "atomic"]);
    const metric = spec.metrics.items?.properties ?? {};
    expect([metric.object.protoTag, metric.pods.protoTag, metric.resource.protoTag, metric.containerResource.protoTag, metric.external.protoTag]).toEqual([2, 3, 4, 7, 5]);
    const rules = spec.behavior.properties?.scaleUp.properties ?? {};
    expect([rules.stabilizationWindowSeconds.protoTag, rules.selectPolicy.protoTag, rules.policies.protoTag, rules.tolerance.protoTag]).toEqual([3, 1, 2, 4]);
    const conditions = hpa.schema.properties?.status.properties?.conditions;
    expect([conditions?.protoTag, conditions?.listType, conditions?.listMapKeys]).toEqual([6, "map", ["type"]]);
  });

  it("defaults an 80% CPU metric when none is given, and no behaviour when unset", () => {
    const d = defaultObject(
      hpa,
      mutate(sample(), (o) => {
        deleteAt(o, "spec.metrics");
        deleteAt(o, "spec.behavior");
        deleteAt(o, "spec.minReplicas");
      }),
    );
    expect(getAt(d, "spec.metrics")).toEqual([{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: DEFAULT_CPU_UTILIZATION } } }]);
    expect(getAt(d, "spec.minReplicas")).toBe(1);
    expect((d.spec as Record<string, unknown>).behavior).toBeUndefined();
    const empty = defaultObject(hpa, mutate(sample(), (o) => setAt(o, "spec.behavior", {})));
    expect(getAt(empty, "spec.behavior.scaleDown")).toEqual({ selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] });
  });

  it("prints targets as the CLI does", () => {
    expect(formatHPAMetrics(sample())).toBe("cpu: 48%/65%, <unknown>/100 + 1 more...");
    const one = mutate(sample(), (o) => setAt(o, "spec.metrics", [{ type: "External", external: { metric: { name: "q" }, target: { type: "Value", value: "5" } } }]));
    expect(formatHPAMetrics(one)).toBe("<unknown>/5");
    expect(formatHPAMetrics(mutate(sample(), (o) => setAt(o, "spec.metrics", [])))).toBe("<none>");
    const cells = (hpa.tableColumns ?? []).map((c) => c.cell?.(sample()));
    expect(cells.slice(2, 5)).toEqual(["3", 30, 4]);
  });
});
