import { describe, expect, it } from "vitest";
import { getProfile } from "../../../../shared/platform/index.ts";
import type { JsonObject } from "../../storage/object.ts";
import type { AdmissionPlugin, Attributes, PluginContext } from "../interfaces.ts";
import { aggregate, claimViolations, defaultPodResources, limitRangerPlugin, podViolations } from "./limit-ranger.ts";

const p = getProfile("plat");
const range = (...limits: JsonObject[]): JsonObject => ({ spec: { limits } });
const pod = (containers: JsonObject[], initContainers: JsonObject[] = []): JsonObject => ({ metadata: { name: "p" }, spec: { containers, initContainers } });
const ctr = (name: string, requests?: JsonObject, limits?: JsonObject): JsonObject => ({ name, resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) } });

describe("LimitRanger core", () => {
  it("defaults missing requests and limits and annotates the pod", () => {
    const p1 = pod([ctr("app", { cpu: "50m" }), { name: "side" }], [{ name: "init" }]);
    defaultPodResources(p1, [range({ type: "Container", default: { cpu: "500m", memory: "128Mi" }, defaultRequest: { cpu: "100m", memory: "64Mi" } })], p);
    const spec = p1.spec as { containers: JsonObject[]; initContainers: JsonObject[] };
    expect(spec.containers[0].resources).toEqual({ requests: { cpu: "50m", memory: "64Mi" }, limits: { cpu: "500m", memory: "128Mi" } });
    expect(spec.containers[1].resources).toEqual({ requests: { cpu: "100m", memory: "64Mi" }, limits: { cpu: "500m", memory: "128Mi" } });
    expect((p1.metadata as { annotations: Record<string, string> }).annotations[p.admission.limitRanger]).toBe(
      "LimitRanger plugin set: memory request for container app; cpu, memory limit for container app; cpu, memory request for container side; cpu, memory limit for container side; cpu, memory request for init container init; cpu, memory limit for init container init",
    );
  });

  it("leaves a pod alone when nothing is defaulted", () => {
    const p1 = pod([ctr("app", { cpu: "1" }, { cpu: "1" })]);
    defaultPodResources(p1, [range({ type: "Container", default: { cpu: "2" } })], p);
    expect((p1.metadata as JsonObject).annotations).toBeUndefined();
  });

  it.each<[string, JsonObject, JsonObject, string[]]>([
    ["within bounds", { type: "Container", min: { cpu: "100m" }, max: { cpu: "1" } }, pod([ctr("a", { cpu: "200m" }, { cpu: "1" })]), []],
    ["no request for min", { type: "Container", min: { cpu: "100m" } }, pod([ctr("a")]), ["minimum cpu usage per Container is 100m.  No request is specified"]],
    ["request below min", { type: "Container", min: { cpu: "100m" } }, pod([ctr("a", { cpu: "50m" })]), ["minimum cpu usage per Container is 100m, but request is 50m"]],
    ["no limit for max", { type: "Container", max: { memory: "1Gi" } }, pod([ctr("a", { memory: "1Mi" })]), ["maximum memory usage per Container is 1Gi.  No limit is specified"]],
    ["limit above max", { type: "Container", max: { memory: "1Gi" } }, pod([ctr("a", {}, { memory: "2Gi" })]), ["maximum memory usage per Container is 1Gi, but limit is 2Gi"]],
    ["ratio too high", { type: "Container", maxLimitRequestRatio: { cpu: "2" } }, pod([ctr("a", { cpu: "100m" }, { cpu: "300m" })]), ["cpu max limit to request ratio per Container is 2, but provided ratio is 3.000000"]],
    ["ratio without request", { type: "Container", maxLimitRequestRatio: { cpu: "2" } }, pod([ctr("a", {}, { cpu: "300m" })]), ["cpu max limit to request ratio per Container is 2, but no request is specified or request is 0"]],
    ["pod sum above max", { type: "Pod", max: { cpu: "1" } }, pod([ctr("a", { cpu: "600m" }, { cpu: "600m" }), ctr("b", { cpu: "600m" }, { cpu: "600m" })]), ["maximum cpu usage per Pod is 1, but limit is 1200m"]],
    ["init container dominates", { type: "Pod", max: { cpu: "1" } }, pod([ctr("a", { cpu: "100m" }, { cpu: "100m" })], [ctr("i", { cpu: "2" }, { cpu: "2" })]), ["maximum cpu usage per Pod is 1, but limit is 2"]],
  ])("%s", (_n, item, p1, want) => {
    expect(podViolations(p1, [range(item)])).toEqual(want);
  });

  it("checks claims against min and max of requests", () => {
    const lr = [range({ type: "PersistentVolumeClaim", min: { storage: "1Gi" }, max: { storage: "10Gi" } })];
    expect(claimViolations({ spec: { resources: { requests: { storage: "5Gi" } } } }, lr)).toEqual([]);
    expect(claimViolations({ spec: { resources: { requests: { storage: "20Gi" } } } }, lr)).toEqual(["maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi"]);
    expect(claimViolations({ spec: { resources: { requests: { storage: "500Mi" } } } }, lr)).toEqual(["minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi"]);
  });

  it("aggregates like the platform", () => {
    expect(aggregate(["a"])).toBe("a");
    expect(aggregate(["a", "b", "a"])).toBe("[a, b]");
  });
});

describe("LimitRanger on kinds it leaves alone", () => {
  it("answers a ConfigMap create at once without reading its object (a read costs the chain a copy)", () => {
    let reads = 0;
    const a = {
      operation: "CREATE",
      resource: { group: "", version: "v1", resource: "configmaps" },
      subresource: "",
      namespace: "default",
      get object() {
        reads++;
        return { metadata: { name: "c" } };
      },
    } as unknown as Attributes;
    const plugin = limitRangerPlugin({ profile: p } as PluginContext) as AdmissionPlugin;
    expect(plugin.admit!(a)).toBeUndefined();
    expect(plugin.validate!(a)).toBeUndefined();
    expect(reads).toBe(0);
  });
});
