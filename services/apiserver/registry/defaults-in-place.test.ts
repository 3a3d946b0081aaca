/**
 * Defaulting of the registry's own copy: a create or update of a kind with the generic
 * defaulting defaults the object it prepared in place (no second copy), with the same
 * result; a strategy that defaults otherwise (as custom resources do) has no in-place
 * variant and is defaulted by its own copying `applyDefaults`; the caller's objects are never changed.
 */
import { describe, expect, it } from "vitest";
import { builtinKinds } from "../../../shared/api/groups/index.ts";
import { customGroupKey, getProfile } from "../../../shared/platform/index.ts";
import { servedResources } from "../apiextensions/served.ts";
import { crontabCrd } from "../apiextensions/testing/crontab-crd.ts";
import { meta, type JsonObject } from "../storage/object.ts";
import { OneObjectStorage } from "./testing/one-object-storage.ts";
import { Registry } from "./registry.ts";
import { resourceInfo } from "./resource.ts";
import { genericStrategy, type Strategy } from "./strategy.ts";

const profile = getProfile("plat");
const podDef = builtinKinds(profile).find((d) => d.kind === "Pod" && d.group === "core")!;
const resource = resourceInfo(podDef, profile);

/** The generic strategy, recording each defaulting call and whether its result was its argument. */
function recordingStrategy(): { strategy: Strategy; calls: string[] } {
  const base = genericStrategy(podDef);
  const calls: string[] = [];
  const strategy: Strategy = {
    ...base,
    applyDefaultsInPlace(obj) {
      const out = base.applyDefaultsInPlace!.call(this, obj);
      calls.push(out === obj ? "in place" : "copy");
      return out;
    },
  };
  return { strategy, calls };
}

const pod = (): JsonObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns" }, spec: { containers: [{ name: "c", image: "i" }] } });
const ctx = { namespace: "ns", dryRun: false };

describe("defaulting the registry's own copy", () => {
  it("a create and an update are defaulted in place, with the defaults of a copying pass, and the caller's objects unchanged", async () => {
    const { strategy, calls } = recordingStrategy();
    const storage = new OneObjectStorage();
    const registry = new Registry(resource, strategy, storage.asObjectStorage(), {});
    const input = pod();
    const created = await registry.create(input, ctx);
    expect(input).toEqual(pod());
    const expected = genericStrategy(podDef).applyDefaults(pod());
    expect(created.spec).toEqual(expected.spec);
    let given: JsonObject | undefined;
    await registry.update("ns", "p", (cur) => (given = { ...cur!, metadata: { ...meta(cur!), labels: { a: "b" } } }), ctx);
    const snapshot = structuredClone(given);
    expect(calls).toEqual(["in place", "in place"]);
    expect(given).toEqual(snapshot);
    expect(storage.stored?.spec).toEqual(expected.spec);
  });

  it("a strategy that defaults otherwise, with no in-place variant, is defaulted by its own applyDefaults", async () => {
    const base = genericStrategy(podDef);
    const strategy: Strategy = {
      ...base,
      applyDefaults(obj) {
        return { ...base.applyDefaults(obj), marked: true };
      },
      applyDefaultsInPlace: undefined,
    };
    const storage = new OneObjectStorage();
    const registry = new Registry(resource, strategy, storage.asObjectStorage(), {});
    const input = pod();
    expect((await registry.create(input, ctx)).marked).toBe(true);
    expect(input).toEqual(pod());
    await registry.update("ns", "p", (cur) => ({ ...cur!, marked: false }), ctx);
    expect(storage.stored?.marked).toBe(true);
  });

  it("a custom resource's strategy has no in-place defaulting, so its writes are pruned", async () => {
    const openAPIV3Schema = { type: "object", properties: { spec: { type: "object", properties: { image: { type: "string", default: "busybox" } } } } };
    const crd = crontabCrd(profile, openAPIV3Schema);
    const storage = new OneObjectStorage();
    const [served] = servedResources(crd, profile, storage.asObjectStorage(), {});
    expect(served.registry.strategy.applyDefaultsInPlace).toBeUndefined();
    const apiVersion = profile.apiVersion(customGroupKey("stable.example.com"), "v1");
    const created = await served.registry.create({ apiVersion, kind: "CronTab", metadata: { name: "a", namespace: "ns" }, spec: { unknown: 1 } }, ctx);
    expect(created.spec).toEqual({ image: "busybox" });
  });

  it("the generic strategy's in-place defaulting equals its copying one", () => {
    const base = genericStrategy(podDef);
    const obj = pod();
    const copied = base.applyDefaults(pod());
    expect(base.applyDefaultsInPlace!(obj)).toBe(obj);
    expect(obj).toEqual(copied);
  });
});
