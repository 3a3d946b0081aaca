/**
 * ServiceCIDRs in the registry: the ranges Service cluster IPs come from
 * (`/registry/networking/servicecidrs/<name>`), and what keeps one alive. The server
 * gives every new ServiceCIDR the protection finalizer (`<networking group>/service-cidr-finalizer`)
 * and the Ready condition; a deleted one stays Terminating (Ready=False, reason
 * Terminating) while an allocated IPAddress lies in it and in no other live
 * ServiceCIDR, and is removed when the last such address goes (`releaseUnusedServiceCidrs`,
 * run after a ServiceCIDR's deletion and after a Service frees its addresses).
 * `ensureDefaultServiceCIDR` creates the default one (the profile's API service name)
 * from `--service-cluster-ip-range`.
 */
import { cidrContains, parseAddress, parseCidrText, type ParsedCidr } from "../../../shared/api/groups/ip-text.ts";
import { validateServiceCIDRUpdate } from "../../../shared/api/groups/networking-v1-service-cidr.ts";
import { isStatusError } from "../../../shared/api/status.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { KindDefinition } from "../../../shared/schema/types.ts";
import { StorageError, type ObjectStorage, type TryUpdate, type UpdateOptions } from "../storage/interface.ts";
import { isObject, meta, type JsonObject } from "../storage/object.ts";
import { ForwardingStorage } from "./forwarding-storage.ts";
import type { Registry } from "./registry.ts";
import { genericStrategy, type Strategy } from "./strategy.ts";
import { timestamp } from "./system-meta.ts";

export const SERVICE_CIDR_PREFIX = "/registry/networking/servicecidrs/";
export const IP_RECORD_PREFIX = "/registry/networking/ipaddresses/";

/** The protection finalizer, in the networking group of the profile (`networking.<domain>`). */
export function serviceCidrFinalizer(networkingGroup: string): string {
  return `${networkingGroup}/service-cidr-finalizer`;
}

/** A stored ServiceCIDR as the allocator sees it. */
export interface ServiceCidrRecord {
  name: string;
  /** Deleted (Terminating) or marked Ready=False: nothing new is allocated from it. */
  closed: boolean;
  terminating: boolean;
  finalizers: string[];
  cidrs: ParsedCidr[];
}

function readyIsFalse(obj: JsonObject): boolean {
  const conditions = isObject(obj.status) && Array.isArray(obj.status.conditions) ? obj.status.conditions : [];
  return conditions.some((c) => isObject(c) && c.type === "Ready" && c.status === "False");
}

function recordOf(obj: JsonObject): ServiceCidrRecord {
  const m = meta(obj);
  const texts = isObject(obj.spec) && Array.isArray(obj.spec.cidrs) ? obj.spec.cidrs : [];
  const cidrs = texts.map((t) => parseCidrText(String(t))).filter((c): c is NonNullable<typeof c> => !!c);
  const terminating = !!m.deletionTimestamp;
  return { name: m.name ?? "", terminating, closed: terminating || readyIsFalse(obj), finalizers: m.finalizers ?? [], cidrs };
}

export async function listServiceCidrs(storage: ObjectStorage): Promise<ServiceCidrRecord[]> {
  return (await storage.list(SERVICE_CIDR_PREFIX)).items.map(recordOf);
}

export function readyCondition(profile: PlatformProfile, now: number): JsonObject {
  return { type: "Ready", status: "True", lastTransitionTime: timestamp(now), reason: "", message: `${profile.displayName} Service CIDR is ready` };
}

const TERMINATING_MESSAGE = "There are still IPAddresses referencing the ServiceCIDR, please remove them or create a new ServiceCIDR";

/**
 * ServiceCIDR strategy: a new one gets the finalizer and Ready=True; status is the
 * server's (the platform validates only metadata on status writes); cidrs keep their
 * values except that a single-family ServiceCIDR may add the other family.
 */
export function serviceCIDRStrategy(def: KindDefinition, profile: PlatformProfile): Strategy {
  const base = genericStrategy(def);
  const finalizer = serviceCidrFinalizer(profile.group("networking"));
  return {
    ...base,
    prepareForCreate(obj, user) {
      base.prepareForCreate(obj, user);
      const m = meta(obj);
      if (!(m.finalizers ?? []).includes(finalizer)) m.finalizers = [...(m.finalizers ?? []), finalizer];
      obj.status = { conditions: [readyCondition(profile, Date.now())] };
    },
    validate(obj) {
      const { status: _status, ...rest } = obj;
      return base.validate(rest);
    },
    validateUpdate(obj, old) {
      return [...this.validate(obj), ...validateServiceCIDRUpdate(obj, old)];
    },
  };
}

async function allocatedAddresses(storage: ObjectStorage): Promise<Array<{ family: "IPv4" | "IPv6"; value: bigint }>> {
  const out: Array<{ family: "IPv4" | "IPv6"; value: bigint }> = [];
  for (const item of (await storage.list(IP_RECORD_PREFIX)).items) {
    const ip = parseAddress(meta(item).name ?? "");
    if (ip) out.push(ip);
  }
  return out;
}

/** Marks a Terminating ServiceCIDR that still holds addresses Ready=False (once). */
async function markStillInUse(storage: ObjectStorage, key: string): Promise<void> {
  await storage.guaranteedUpdate(key, (current) => {
    if (!current || readyIsFalse(current)) return current;
    const status = isObject(current.status) ? current.status : (current.status = {});
    const others = (Array.isArray(status.conditions) ? status.conditions : []).filter((c) => !(isObject(c) && c.type === "Ready"));
    status.conditions = [...others, { type: "Ready", status: "False", lastTransitionTime: timestamp(Date.now()), reason: "Terminating", message: TERMINATING_MESSAGE }];
    return current;
  });
}

/** Drops the finalizer of a Terminating ServiceCIDR and removes it when nothing else holds it. */
async function release(storage: ObjectStorage, key: string, finalizer: string): Promise<void> {
  const updated = await storage.guaranteedUpdate(key, (current) => {
    if (!current) return undefined;
    const m = meta(current);
    m.finalizers = (m.finalizers ?? []).filter((f) => f !== finalizer);
    if (m.finalizers.length === 0) delete m.finalizers;
    return current;
  });
  const m = meta(updated);
  if (m.deletionTimestamp && (m.finalizers ?? []).length === 0) await storage.delete(key, { preconditions: { resourceVersion: m.resourceVersion } });
}

/**
 * Every Terminating ServiceCIDR with the finalizer: released when no allocated address
 * lies in it outside the live ServiceCIDRs, otherwise marked Ready=False. Races with
 * another writer are left to the next call (each step is a compare-and-swap).
 */
export async function releaseUnusedServiceCidrs(storage: ObjectStorage, finalizer: string): Promise<void> {
  const all = await listServiceCidrs(storage);
  const pending = all.filter((c) => c.terminating && c.finalizers.includes(finalizer));
  if (pending.length === 0) return;
  const ips = await allocatedAddresses(storage);
  const live = all.filter((c) => !c.terminating);
  for (const c of pending) {
    const inside = (ip: { family: "IPv4" | "IPv6"; value: bigint }, r: ServiceCidrRecord) => r.cidrs.some((x) => cidrContains(x, ip));
    const orphaned = ips.some((ip) => inside(ip, c) && !live.some((o) => inside(ip, o)));
    try {
      if (orphaned) await markStillInUse(storage, `${SERVICE_CIDR_PREFIX}${c.name}`);
      else await release(storage, `${SERVICE_CIDR_PREFIX}${c.name}`, finalizer);
    } catch (err) {
      if (!(err instanceof StorageError)) throw err;
    }
  }
}

/** The servicecidrs storage: a write that leaves a ServiceCIDR Terminating checks at once whether it can go. */
export class ServiceCidrStorage extends ForwardingStorage {
  constructor(
    inner: ObjectStorage,
    private readonly finalizer: string,
  ) {
    super(inner);
  }

  override async guaranteedUpdate(key: string, tryUpdate: TryUpdate, options?: UpdateOptions): Promise<JsonObject> {
    const result = await this.inner.guaranteedUpdate(key, tryUpdate, options);
    if (!options?.dryRun && meta(result).deletionTimestamp && (meta(result).finalizers ?? []).includes(this.finalizer)) {
      await releaseUnusedServiceCidrs(this.inner, this.finalizer);
    }
    return result;
  }
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
    if (isStatusError(err, "Forbidden")) onRefused?.(err.message);
    else if (!isStatusError(err, "AlreadyExists")) throw err;
  }
}
