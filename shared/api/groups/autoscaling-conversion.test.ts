import { describe, expect, it } from "vitest";
import { getProfile } from "../../platform/index.ts";
import { hpaV1ToV2, hpaV2Clean, hpaV2ToV1 } from "./autoscaling-conversion.ts";
import type { Obj } from "./workload-rules.ts";

const profile = getProfile("plat");
const n = profile.annotations;
const V1 = profile.apiVersion("autoscaling", "v1");
const V2 = profile.apiVersion("autoscaling", "v2");
const ref = { kind: "Deployment", name: "web", apiVersion: "apps/v1" };
const cpu = (u: number): Obj => ({ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: u } } });
const memory: Obj = { type: "Resource", resource: { name: "memory", target: { type: "AverageValue", averageValue: "500Mi" } } };
const pods: Obj = { type: "Pods", pods: { metric: { name: "qps", selector: { matchLabels: { a: "b" } } }, target: { type: "AverageValue", averageValue: "1k" } } };
const object: Obj = { type: "Object", object: { describedObject: { kind: "Ingress", name: "main", apiVersion: "networking/v1" }, target: { type: "Value", value: "10k" }, metric: { name: "hits" } } };
const external: Obj = { type: "External", external: { metric: { name: "queue" }, target: { type: "AverageValue", averageValue: "30" } } };
const container: Obj = { type: "ContainerResource", containerResource: { name: "cpu", container: "app", target: { type: "Utilization", averageUtilization: 60 } } };
const behavior: Obj = {
  scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: "Max", policies: [{ type: "Pods", value: 4, periodSeconds: 15 }] },
  scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: "Percent", value: 10, periodSeconds: 60 }] },
};
const conditions = [{ type: "AbleToScale", status: "True", lastTransitionTime: "2024-01-01T00:00:00Z", reason: "ReadyForNewScale", message: "ok" }];
const currentMetrics: Obj[] = [
  { type: "Resource", resource: { name: "cpu", current: { averageUtilization: 42, averageValue: "120m" } } },
  { type: "Pods", pods: { metric: { name: "qps" }, current: { averageValue: "900" } } },
  { type: "Object", object: { metric: { name: "hits" }, current: { value: "8k" }, describedObject: { kind: "Ingress", name: "main" } } },
  { type: "External", external: { metric: { name: "queue" }, current: { averageValue: "12" } } },
  { type: "ContainerResource", containerResource: { name: "cpu", current: { averageUtilization: 50 }, container: "app" } },
];

const v2 = (spec: Obj, extra: Obj = {}): Obj => ({ apiVersion: V2, kind: "HorizontalPodAutoscaler", metadata: { name: "h", namespace: "ns", resourceVersion: "7" }, spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, ...spec }, ...extra });
const v1 = (spec: Obj, extra: Obj = {}, annotations?: Obj): Obj => ({
  apiVersion: V1,
  kind: "HorizontalPodAutoscaler",
  metadata: { name: "h", namespace: "ns", resourceVersion: "7", ...(annotations ? { annotations } : {}) },
  spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, ...spec },
  ...extra,
});
const annotationsOf = (o: Obj): Record<string, string> => ((o.metadata as Obj).annotations ?? {}) as Record<string, string>;

describe("HorizontalPodAutoscaler v2 → v1 → v2", () => {
  // Every case ends with the cpu metric (if any): v1 → v2 puts it after the other metrics.
  const cases: Array<[string, Obj]> = [
    ["cpu only", v2({ metrics: [cpu(70)] })],
    ["every other metric kind and cpu last", v2({ metrics: [memory, pods, object, external, container, cpu(50)] })],
    ["no cpu metric", v2({ metrics: [memory] })],
    ["behavior", v2({ metrics: [cpu(80)], behavior })],
    ["behavior with one direction and a tolerance", v2({ metrics: [cpu(80)], behavior: { scaleDown: { selectPolicy: "Min", tolerance: "50m" } } })],
    ["status with conditions and current metrics", v2({ metrics: [memory, cpu(60)] }, { status: { observedGeneration: 2, lastScaleTime: "2024-01-01T00:00:00Z", currentReplicas: 3, desiredReplicas: 4, currentMetrics, conditions } })],
    ["status without metrics", v2({ metrics: [cpu(60)] }, { status: { currentReplicas: 1, desiredReplicas: 1 } })],
    ["user annotations kept", { ...v2({ metrics: [memory, cpu(10)] }), metadata: { name: "h", annotations: { owner: "team-a" } } }],
  ];
  it.each(cases)("%s", (_name, obj) => {
    const down = hpaV2ToV1(obj, profile);
    expect(down.apiVersion).toBe(V1);
    expect(hpaV1ToV2(down, profile)).toEqual(obj);
  });

  it("maps the cpu utilization target and current value to the v1 fields", () => {
    const down = hpaV2ToV1(v2({ metrics: [cpu(70), memory] }, { status: { currentReplicas: 2, desiredReplicas: 2, currentMetrics } }), profile);
    expect(down.spec).toEqual({ scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 70 });
    expect(down.status).toEqual({ currentReplicas: 2, desiredReplicas: 2, currentCPUUtilizationPercentage: 42 });
  });

  it("writes the v2-only data in the platform's annotation shapes", () => {
    const down = hpaV2ToV1(v2({ metrics: [cpu(70), memory, object], behavior: { scaleUp: { policies: [{ type: "Pods", value: 2, periodSeconds: 30 }] } } }, { status: { desiredReplicas: 1, currentMetrics: currentMetrics.slice(0, 1), conditions } }), profile);
    const a = annotationsOf(down);
    expect(JSON.parse(a[n.hpaMetrics])).toEqual([
      { type: "Resource", resource: { name: "memory", targetAverageValue: "500Mi" } },
      { type: "Object", object: { target: { kind: "Ingress", name: "main", apiVersion: "networking/v1" }, metricName: "hits", targetValue: "10k" } },
    ]);
    expect(JSON.parse(a[n.hpaBehavior])).toEqual({ ScaleUp: { StabilizationWindowSeconds: null, SelectPolicy: null, Policies: [{ Type: "Pods", Value: 2, PeriodSeconds: 30 }], Tolerance: null }, ScaleDown: null });
    expect(JSON.parse(a[n.hpaCurrentMetrics])).toEqual([{ type: "Resource", resource: { name: "cpu", currentAverageUtilization: 42, currentAverageValue: "120m" } }]);
    expect(JSON.parse(a[n.hpaConditions])).toEqual(conditions);
    expect(down.status).toEqual({ currentReplicas: 0, desiredReplicas: 1, currentCPUUtilizationPercentage: 42 });
  });

  it("adds no annotations when v2 has nothing v1 lacks", () => {
    expect((hpaV2ToV1(v2({ metrics: [cpu(70)] }), profile).metadata as Obj).annotations).toBeUndefined();
  });

  it("keeps a cpu metric without a utilization target among the other metrics", () => {
    const cpuValue: Obj = { type: "Resource", resource: { name: "cpu", target: { type: "AverageValue", averageValue: "200m" } } };
    const down = hpaV2ToV1(v2({ metrics: [cpuValue] }), profile);
    expect((down.spec as Obj).targetCPUUtilizationPercentage).toBeUndefined();
    expect(JSON.parse(annotationsOf(down)[n.hpaMetrics])).toEqual([{ type: "Resource", resource: { name: "cpu", targetAverageValue: "200m" } }]);
    expect(hpaV1ToV2(down, profile).spec).toEqual(v2({ metrics: [cpuValue] }).spec);
  });
});

describe("HorizontalPodAutoscaler v1 → v2 → v1", () => {
  const cases: Array<[string, Obj]> = [
    ["cpu target", v1({ targetCPUUtilizationPercentage: 70 })],
    ["other metrics annotation", v1({ targetCPUUtilizationPercentage: 50 }, {}, { [n.hpaMetrics]: JSON.stringify([{ type: "Pods", pods: { metricName: "qps", targetAverageValue: "1k" } }]) })],
    [
      "status annotations",
      v1({ targetCPUUtilizationPercentage: 50 }, { status: { currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 40 } }, {
        [n.hpaCurrentMetrics]: JSON.stringify([{ type: "Resource", resource: { name: "cpu", currentAverageUtilization: 40 } }]),
        [n.hpaConditions]: JSON.stringify(conditions),
        keep: "me",
      }),
    ],
  ];
  it.each(cases)("%s", (_name, obj) => {
    const up = hpaV1ToV2(obj, profile);
    expect(up.apiVersion).toBe(V2);
    expect(annotationsOf(up)[n.hpaMetrics]).toBeUndefined();
    expect(hpaV2ToV1(up, profile)).toEqual(obj);
  });

  it("turns the v1 cpu target into a metric after the annotated ones", () => {
    const up = hpaV1ToV2(v1({ targetCPUUtilizationPercentage: 65 }, {}, { [n.hpaMetrics]: JSON.stringify([{ type: "Resource", resource: { name: "memory", targetAverageValue: "500Mi" } }]) }), profile);
    expect((up.spec as Obj).metrics).toEqual([memory, cpu(65)]);
  });

  it("keeps the current cpu value, and records it as a current metric the way v1 reads it back", () => {
    const obj = v1({ targetCPUUtilizationPercentage: 50 }, { status: { currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 40 } });
    const up = hpaV1ToV2(obj, profile);
    expect((up.status as Obj).currentMetrics).toEqual([{ type: "Resource", resource: { name: "cpu", current: { averageUtilization: 40 } } }]);
    const back = hpaV2ToV1(up, profile);
    expect(back.status).toEqual(obj.status);
    expect(JSON.parse(annotationsOf(back)[n.hpaCurrentMetrics])).toEqual([{ type: "Resource", resource: { name: "cpu", currentAverageUtilization: 40 } }]);
  });

  it("defaults to 80% cpu when there is no metric at all, and v1 then shows it", () => {
    const up = hpaV1ToV2(v1({}), profile);
    expect((up.spec as Obj).metrics).toEqual([cpu(80)]);
    expect((hpaV2ToV1(up, profile).spec as Obj).targetCPUUtilizationPercentage).toBe(80);
  });

  it("reads behavior in any key case and drops an empty or malformed one", () => {
    const read = (raw: string) => (hpaV1ToV2(v1({}, {}, { [n.hpaBehavior]: raw }), profile).spec as Obj).behavior;
    expect(read(JSON.stringify({ scaleUp: { selectPolicy: "Min", policies: [{ type: "Pods", value: 1, periodSeconds: 10 }] } }))).toEqual({ scaleUp: { selectPolicy: "Min", policies: [{ type: "Pods", value: 1, periodSeconds: 10 }] } });
    expect(read(JSON.stringify({ ScaleUp: null, ScaleDown: null }))).toBeUndefined();
    expect(read("{not json")).toBeUndefined();
  });

  it("ignores malformed metric annotations and never leaves round-trip annotations on v2", () => {
    const up = hpaV1ToV2(v1({ targetCPUUtilizationPercentage: 30 }, { status: { currentReplicas: 1, desiredReplicas: 1 } }, { [n.hpaMetrics]: "[", [n.hpaCurrentMetrics]: "{}", [n.hpaConditions]: "x" }), profile);
    expect((up.spec as Obj).metrics).toEqual([cpu(30)]);
    expect(up.status).toEqual({ currentReplicas: 1, desiredReplicas: 1 });
    expect((up.metadata as Obj).annotations).toBeUndefined();
  });

  it("handles absent spec and status", () => {
    const up = hpaV1ToV2({ apiVersion: V1, kind: "HorizontalPodAutoscaler", metadata: { name: "h" } }, profile);
    expect(up).toEqual({ apiVersion: V2, kind: "HorizontalPodAutoscaler", metadata: { name: "h" }, spec: { metrics: [cpu(80)] } });
    expect(hpaV2ToV1({ apiVersion: V2, kind: "HorizontalPodAutoscaler", metadata: { name: "h" } }, profile)).toEqual({ apiVersion: V1, kind: "HorizontalPodAutoscaler", metadata: { name: "h" } });
  });

  it("does not mutate its input", () => {
    const obj = v2({ metrics: [memory, cpu(70)], behavior }, { status: { desiredReplicas: 1, currentMetrics, conditions } });
    const copy = structuredClone(obj);
    hpaV1ToV2(hpaV2ToV1(obj, profile), profile);
    expect(obj).toEqual(copy);
  });
});

describe("HorizontalPodAutoscaler v2 normalization", () => {
  it("drops round-trip annotations sent to v2 and keeps the others", () => {
    const obj = { ...v2({ metrics: [cpu(70)] }), metadata: { name: "h", annotations: { [n.hpaMetrics]: "[]", [n.hpaBehavior]: "{}", other: "x" } } };
    expect(hpaV2Clean(obj, profile).metadata).toEqual({ name: "h", annotations: { other: "x" } });
  });

  it("uses the kubernetes profile's annotation names there", () => {
    const k = getProfile("kubernetes");
    const down = hpaV2ToV1(v2({ metrics: [memory, cpu(70)] }), k);
    expect(Object.keys(annotationsOf(down))).toEqual([k.annotations.hpaMetrics]);
  });
});
