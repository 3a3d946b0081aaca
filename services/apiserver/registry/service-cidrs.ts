/**
 * ServiceCIDRs in the registry: the ranges Service cluster IPs come from
 * (`/registry/networking/servicecidrs/<name>`). `listServiceCidrs` is the allocator's
 * view: a Terminating ServiceCIDR, or one marked Ready=False, hands out nothing new;
 * one without a Ready condition counts as ready (as the platform's allocator, so
 * allocation works while no controller manager runs). The protection finalizer, the
 * Ready condition and the end of a deleted ServiceCIDR are the controller manager's
 * ServiceCIDR controller's (services/controller-manager/servicecidr/), not the server's.
 * `ensureDefaultServiceCIDR` creates the default one (the profile's API service name)
 * from `--service-cluster-ip-range` and marks it Ready when it has no Ready condition,
 * as the platform's default ServiceCIDR controller in the API server does.
 */
import { parseCidrText, type ParsedCidr } from "../../../shared/api/groups/ip-text.ts";
import { validateServiceCIDRUpdate } from "../../../shared/api/groups/networking-v1-service-cidr.ts";
import { isStatusError } from "../../../shared/api/status.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { KindDefinition } from "../../../shared/schema/types.ts";
import { StorageError, type ObjectStorage } from "../storage/interface.ts";
import { isObject, meta, type JsonObject } from "../storage/object.ts";
import type { Registry } from "./registry.ts";
import { genericStrategy, type Strategy } from "./strategy.ts";
import { timestamp } from "./system-meta.ts";

export const SERVICE_CIDR_PREFIX = "/registry/networking/servicecidrs/";
export const IP_RECORD_PREFIX = "/registry/networking/ipaddresses/";

/** A stored ServiceCIDR as the allocator sees it. */
export interface ServiceCidrRecord {
  name: string;
  /** Deleted (Terminating) or marked Ready=False: nothing new is allocated from it. */
  closed: boolean;
  cidrs: ParsedCidr[];
}

function readyCondition(obj: JsonObject): JsonObject | undefined {
  const conditions = isObject(obj.status) && Array.isArray(obj.status.conditions) ? obj.status.conditions : [];
  return conditions.find((c): c is JsonObject => isObject(c) && c.type === "Ready");
}

function recordOf(obj: JsonObject): ServiceCidrRecord {
  const m = meta(obj);
  const texts = isObject(obj.spec) && Array.isArray(obj.spec.cidrs) ? obj.spec.cidrs : [];
  const cidrs = texts.map((t) => parseCidrText(String(t))).filter((c): c is NonNullable<typeof c> => !!c);
  return { name: m.name ?? "", closed: !!m.deletionTimestamp || readyCondition(obj)?.status === "False", cidrs };
}

export async function listServiceCidrs(storage: ObjectStorage): Promise<ServiceCidrRecord[]> {
  return (await storage.list(SERVICE_CIDR_PREFIX)).items.map(recordOf);
}

/**
 * ServiceCIDR strategy: status is the status subresource's (the platform validates only
 * metadata on status writes); cidrs keep their values except that a single-family
 * ServiceCIDR may add the other family.
 */
export function serviceCIDRStrategy(def: KindDefinition): Strategy {
  const base = genericStrategy(def);
  return {
    ...base,
    validate(obj) {
      const { status: _status, ...rest } = obj;
      return base.validate(rest);
    },
    validateUpdate(obj, old) {
      return [...this.validate(obj), ...validateServiceCIDRUpdate(obj, old)];
    },
  };
}

/** Ready=True on the default ServiceCIDR when it is live, has the flag's CIDRs and no Ready condition yet. */
async function markDefaultReady(registry: Registry, profile: PlatformProfile, cidrs: readonly string[]): Promise<void> {
  await registry.update(
    undefined,
    profile.apiServiceName,
    (current) => {
      if (!current) throw new StorageError("NotFound", profile.apiServiceName, "the default ServiceCIDR is gone");
      const spec = isObject(current.spec) && Array.isArray(current.spec.cidrs) ? current.spec.cidrs : [];
      const same = spec.length === cidrs.length && spec.every((c, i) => c === cidrs[i]);
      if (meta(current).deletionTimestamp || !same || readyCondition(current)) return current;
      const status = isObject(current.status) ? current.status : {};
      const others = Array.isArray(status.conditions) ? status.conditions : [];
      const ready = { type: "Ready", status: "True", lastTransitionTime: timestamp(Date.now()), reason: "", message: `${profile.displayName} default Service CIDR is ready` };
      return { ...current, status: { ...status, conditions: [...others, ready] } };
    },
    { dryRun: false, subresource: "status" },
  );
}

/**
 * Creates the default ServiceCIDR (named as the platform's API Service) with the
 * `--service-cluster-ip-range` CIDRs; an existing one is kept. Replicas may race.
 * One refused by admission (AlwaysDeny) is reported, not fatal: the flag's ranges then serve.
 */
export async function ensureDefaultServiceCIDR(registry: Registry | undefined, profile: PlatformProfile, cidrs: readonly string[], onRefused?: (message: string) => void): Promise<void> {
  if (!registry) return;
  const body = { apiVersion: profile.apiVersion("networking", "v1"), kind: "ServiceCIDR", metadata: { name: profile.apiServiceName }, spec: { cidrs: [...cidrs] } };
  try {
    await registry.create(body, { dryRun: false });
  } catch (err) {
    if (isStatusError(err, "Forbidden")) return onRefused?.(err.message);
    if (!isStatusError(err, "AlreadyExists")) throw err;
  }
  try {
    await markDefaultReady(registry, profile, cidrs);
  } catch (err) {
    // Another replica or the controller wrote meanwhile, or admission refused: the Ready condition is not this start's to insist on.
    if (!isStatusError(err)) throw err;
  }
}
