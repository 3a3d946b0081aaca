/**
 * Defaulting around mutating admission: an object no plugin read comes back from
 * `admit` as it went in and is not defaulted a second time; an object a plugin
 * changed is defaulted again (a default it removed comes back) and keeps the
 * system fields the server set.
 */
import { describe, expect, it } from "vitest";
import { builtinKinds } from "../../../shared/api/groups/index.ts";
import { getProfile } from "../../../shared/platform/index.ts";
import { meta, type JsonObject } from "../storage/object.ts";
import { OneObjectStorage } from "./testing/one-object-storage.ts";
import { Registry, type AdmissionHooks, type AdmissionRequest } from "./registry.ts";
import { resourceInfo } from "./resource.ts";
import { genericStrategy, type Strategy } from "./strategy.ts";

const profile = getProfile("plat");
const leaseDef = builtinKinds(profile).find((d) => d.kind === "Lease")!;
const resource = resourceInfo(leaseDef, profile);

/** The generic Lease strategy, counting its defaulting passes; its one default: spec.leaseDurationSeconds 40. */
function countingStrategy(): { strategy: Strategy; passes: () => number } {
  const base = genericStrategy(leaseDef);
  let passes = 0;
  const strategy: Strategy = {
    ...base,
    applyDefaults(obj) {
      passes++;
      const out = base.applyDefaults(obj);
      const spec = (out.spec ??= {}) as Record<string, unknown>;
      spec.leaseDurationSeconds ??= 40;
      return out;
    },
    // It defaults otherwise than the generic strategy, so it has no in-place variant.
    applyDefaultsInPlace: undefined,
  };
  return { strategy, passes: () => passes };
}

function setup(admit: (req: AdmissionRequest) => JsonObject | undefined) {
  const { strategy, passes } = countingStrategy();
  const storage = new OneObjectStorage();
  const admission: AdmissionHooks = { admit: (req) => Promise.resolve(admit(req)) };
  const registry = new Registry(resource, strategy, storage.asObjectStorage(), { admission });
  return { registry, passes, storage };
}

const lease = (holder: string): JsonObject => ({ apiVersion: resource.apiVersion, kind: "Lease", metadata: { name: "n1", namespace: "ns" }, spec: { holderIdentity: holder } });
const ctx = { namespace: "ns", dryRun: false };

describe("defaulting around mutating admission", () => {
  it("an update no plugin read is defaulted once", async () => {
    const { registry, passes, storage } = setup((req) => req.object);
    await registry.create(lease("a"), ctx);
    const before = passes();
    const { object } = await registry.update("ns", "n1", (cur) => ({ ...cur!, spec: { holderIdentity: "b" } }), ctx);
    expect(passes() - before).toBe(1);
    expect(object.spec).toEqual({ holderIdentity: "b", leaseDurationSeconds: 40 });
    expect(storage.stored?.spec).toEqual({ holderIdentity: "b", leaseDurationSeconds: 40 });
  });

  it("a create no plugin read is defaulted once (undefined from admit: unchanged)", async () => {
    const { registry, passes } = setup(() => undefined);
    const created = await registry.create(lease("a"), ctx);
    expect(passes()).toBe(1);
    expect(created.spec).toEqual({ holderIdentity: "a", leaseDurationSeconds: 40 });
  });

  it("an object a plugin changed is defaulted again and keeps the server's system fields", async () => {
    const { registry, passes } = setup((req) => {
      const copy = structuredClone(req.object!);
      copy.spec = { holderIdentity: "from-plugin" };
      meta(copy).uid = "forged";
      return copy;
    });
    const created = await registry.create(lease("a"), ctx);
    const uid = meta(created).uid;
    expect(uid).not.toBe("forged");
    const before = passes();
    const { object } = await registry.update("ns", "n1", (cur) => ({ ...cur!, spec: { holderIdentity: "b" } }), ctx);
    expect(passes() - before).toBe(2);
    expect(object.spec).toEqual({ holderIdentity: "from-plugin", leaseDurationSeconds: 40 });
    expect(meta(object).uid).toBe(uid);
  });
});
