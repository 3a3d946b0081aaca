import { describe, expect, it } from "vitest";
import { getProfile } from "../../../../shared/platform/index.ts";
import type { JsonObject } from "../../storage/object.ts";
import { format, q } from "./quantity.ts";
import { missingContainerResources, quotaSelects, usageOf, type Usage } from "./quota-usage.ts";
import { charge, exceededMessage, needsSync } from "./resource-quota.ts";

const profile = getProfile("kubernetes");
const render = (u: Usage) => Object.fromEntries([...u].map(([k, v]) => [k, format(v)]));
const pod = (containers: JsonObject[], extra: JsonObject = {}): JsonObject => ({ metadata: { name: "p" }, spec: { containers, ...extra } });

describe("quota usage", () => {
  it("counts a pod's compute resources, overhead included", () => {
    const p = pod([{ name: "a", resources: { requests: { cpu: "250m", memory: "64Mi" }, limits: { cpu: "1" } } }, { name: "b", resources: { requests: { cpu: "250m" } } }], { overhead: { cpu: "10m" } });
    expect(render(usageOf("", "pods", p, profile))).toEqual({ pods: "1", "count/pods": "1", cpu: "510m", "requests.cpu": "510m", memory: "64Mi", "requests.memory": "64Mi", "limits.cpu": "1010m" });
  });

  it("counts nothing for finished pods", () => {
    expect(usageOf("", "pods", { ...pod([]), status: { phase: "Succeeded" } }, profile).size).toBe(0);
  });

  it("counts claims per class and services by type", () => {
    const pvc = { spec: { storageClassName: "fast", resources: { requests: { storage: "5Gi" } } } };
    expect(render(usageOf("", "persistentvolumeclaims", pvc, profile))).toEqual({
      persistentvolumeclaims: "1",
      "count/persistentvolumeclaims": "1",
      "requests.storage": "5Gi",
      [`fast.storageclass.${profile.group("storage")}/persistentvolumeclaims`]: "1",
      [`fast.storageclass.${profile.group("storage")}/requests.storage`]: "5Gi",
    });
    expect(render(usageOf("", "services", { spec: { type: "LoadBalancer", ports: [{ port: 80 }, { port: 443 }] } }, profile))).toEqual({
      services: "1",
      "count/services": "1",
      "services.nodeports": "2",
      "services.loadbalancers": "1",
    });
    expect(render(usageOf("apps", "deployments", {}, profile))).toEqual({ "count/deployments.apps": "1" });
    expect(render(usageOf("", "configmaps", {}, profile))).toEqual({ "count/configmaps": "1", configmaps: "1" });
  });

  it.each<[string, JsonObject, JsonObject, boolean]>([
    ["no scopes", {}, pod([]), true],
    ["BestEffort pod", { scopes: ["BestEffort"] }, pod([{ name: "a" }]), true],
    ["BestEffort vs requests", { scopes: ["BestEffort"] }, pod([{ name: "a", resources: { requests: { cpu: "1" } } }]), false],
    ["Terminating", { scopes: ["Terminating"] }, pod([], { activeDeadlineSeconds: 10 }), true],
    ["NotTerminating", { scopes: ["NotTerminating"] }, pod([], { activeDeadlineSeconds: 10 }), false],
    ["PriorityClass In", { scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "In", values: ["high"] }] } }, pod([], { priorityClassName: "high" }), true],
    ["PriorityClass NotIn", { scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "NotIn", values: ["high"] }] } }, pod([], { priorityClassName: "high" }), false],
  ])("scope %s", (_n, spec, o, want) => {
    expect(quotaSelects({ spec }, "", "pods", o)).toBe(want);
  });

  it("scoped quotas never match other kinds", () => {
    expect(quotaSelects({ spec: { scopes: ["NotTerminating"] } }, "", "configmaps", {})).toBe(false);
  });

  it("names the containers lacking tracked compute resources", () => {
    const p = pod([{ name: "a", resources: { requests: { cpu: "1" } } }, { name: "b" }]);
    expect(missingContainerResources(p, ["requests.cpu", "limits.memory", "pods"])).toBe("must specify limits.memory for: a,b; requests.cpu for: b");
    expect(missingContainerResources(p, ["pods"])).toBeUndefined();
  });
});

describe("quota charge", () => {
  const hard: Usage = new Map([["requests.cpu", q("1")], ["pods", q("2")]]);
  it("adds within the limit and reports exceeded resources sorted", () => {
    const ok = charge(hard, new Map([["requests.cpu", q("500m")]]), new Map([["requests.cpu", q("500m")]]));
    expect("used" in ok && render(ok.used)).toEqual({ "requests.cpu": "1" });
    const over = charge(hard, new Map([["requests.cpu", q("600m")], ["pods", q("2")]]), new Map([["requests.cpu", q("500m")], ["pods", q("1")]]));
    expect(over).toEqual({ exceeded: ["pods", "requests.cpu"] });
    const used = new Map([["requests.cpu", q("600m")], ["pods", q("2")]]);
    const delta = new Map([["requests.cpu", q("500m")], ["pods", q("1")]]);
    expect(exceededMessage("compute", delta, used, hard, ["pods", "requests.cpu"])).toBe(
      "exceeded quota: compute, requested: pods=1,requests.cpu=500m, used: pods=2,requests.cpu=600m, limited: pods=2,requests.cpu=1",
    );
  });

  it.each<[JsonObject, boolean]>([
    [{ spec: { hard: { pods: "2" } } }, true],
    [{ spec: { hard: { pods: "2" } }, status: { hard: { pods: "2" }, used: { pods: "1" } } }, false],
    [{ spec: { hard: { pods: "3" } }, status: { hard: { pods: "2" }, used: { pods: "1" } } }, true],
    [{ spec: { hard: { pods: "2", cpu: "1" } }, status: { hard: { pods: "2" }, used: { pods: "1" } } }, true],
  ])("needsSync(%j) is %s", (quota, want) => {
    expect(needsSync(quota)).toBe(want);
  });
});
