/**
 * APIService objects as the aggregator reads and writes them (pure):
 *  - `apiServiceInfo`: the parts of an APIService the proxy and the checks use;
 *  - `localApiService`: the local APIService of a built-in group version, with the
 *    platform's group and version priorities (`groupPriorityMinimum`/`versionPriority`);
 *  - `crdApiService`/`crdApiServices`: the local APIService of every group version served
 *    by a CRD (as the platform's crd-autoregister controller keeps them: priorities
 *    1000/100, automanaged label "true", none where a built-in one has the name);
 *  - the `Available` conditions with the platform's reasons and messages, and
 *    `withAvailable`, the status with a condition set (lastTransitionTime kept when the
 *    status does not change; undefined when nothing changes at all).
 */
import type { GroupKey, PlatformProfile } from "../../../shared/platform/index.ts";
import { isObject, type JsonObject } from "../storage/object.ts";

export interface ServiceRef {
  namespace: string;
  name: string;
  port: number;
}

export interface ApiServiceInfo {
  name: string;
  group: string;
  version: string;
  /** Absent for a local APIService (served by this server). */
  service?: ServiceRef;
  /** PEM text of `spec.caBundle`. */
  caPem?: string;
  insecureSkipTLSVerify: boolean;
  groupPriorityMinimum: number;
  versionPriority: number;
  /** The `Available` condition is True. */
  available: boolean;
}

export interface AvailableCondition {
  type: "Available";
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

export function availableConditionOf(obj: JsonObject): AvailableCondition | undefined {
  const status = isObject(obj.status) ? obj.status : {};
  const list = Array.isArray(status.conditions) ? status.conditions : [];
  const c = list.find((x): x is JsonObject => isObject(x) && x.type === "Available");
  return c ? { type: "Available", status: c.status as AvailableCondition["status"], reason: str(c.reason), message: str(c.message), lastTransitionTime: str(c.lastTransitionTime) || undefined } : undefined;
}

export function apiServiceInfo(obj: JsonObject): ApiServiceInfo {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const svc = isObject(spec.service) ? spec.service : undefined;
  const ca = str(spec.caBundle);
  return {
    name: str(meta.name),
    group: str(spec.group),
    version: str(spec.version),
    service: svc ? { namespace: str(svc.namespace), name: str(svc.name), port: typeof svc.port === "number" ? svc.port : 443 } : undefined,
    caPem: ca ? Buffer.from(ca, "base64").toString("utf8") : undefined,
    insecureSkipTLSVerify: spec.insecureSkipTLSVerify === true,
    groupPriorityMinimum: typeof spec.groupPriorityMinimum === "number" ? spec.groupPriorityMinimum : 0,
    versionPriority: typeof spec.versionPriority === "number" ? spec.versionPriority : 0,
    available: availableConditionOf(obj)?.status === "True",
  };
}

/** The platform's priorities of the built-in group versions: [groupPriorityMinimum, versionPriority]. */
const PRIORITIES: Partial<Record<string, [number, number]>> = {
  "core/v1": [18000, 1],
  "apps/v1": [17800, 15],
  "events/v1": [17750, 15],
  "authentication/v1": [17700, 15],
  "authorization/v1": [17600, 15],
  "autoscaling/v1": [17500, 15],
  "autoscaling/v2": [17500, 30],
  "batch/v1": [17400, 15],
  "certificates/v1": [17300, 15],
  "networking/v1": [17200, 15],
  "policy/v1": [17100, 15],
  "rbac/v1": [17000, 15],
  "storage/v1": [16800, 15],
  "apiextensions/v1": [16700, 15],
  "admissionregistration/v1": [16700, 15],
  "scheduling/v1": [16600, 15],
  "coordination/v1": [16500, 15],
  "node/v1": [16300, 15],
  "discovery/v1": [16200, 15],
  "flowcontrol/v1": [16100, 21],
  "apiregistration/v1": [18000, 1],
};

/** The label the platform puts on the APIServices it manages itself. */
export function automanagedLabel(profile: PlatformProfile): string {
  // The domain of the profile's well-known labels (`<domain>/hostname`).
  const domain = profile.labels.hostname.split("/")[0];
  return `kube-aggregator.${domain}/automanaged`;
}

/** The local APIService of a built-in group version (`group` is the group key). */
export function localApiService(profile: PlatformProfile, group: GroupKey, version: string): JsonObject {
  const wire = profile.group(group);
  const [groupPriorityMinimum, versionPriority] = PRIORITIES[`${group}/${version}`] ?? [1000, 100];
  return {
    apiVersion: profile.apiVersion("apiregistration", "v1"),
    kind: "APIService",
    // `<version>.<group>`: the core group's is `v1.`, as on the platform.
    metadata: { name: `${version}.${wire}`, labels: { [automanagedLabel(profile)]: "onstart" } },
    spec: { group: wire, version, groupPriorityMinimum, versionPriority },
  };
}

/** The automanaged label's value on APIServices kept in sync while their source exists (CRD group versions). */
export const AUTOMANAGED_SYNC = "true";

/** The local APIService of a group version served by a CRD (`group` is the wire group name). */
export function crdApiService(profile: PlatformProfile, group: string, version: string): JsonObject {
  return {
    apiVersion: profile.apiVersion("apiregistration", "v1"),
    kind: "APIService",
    metadata: { name: `${version}.${group}`, labels: { [automanagedLabel(profile)]: AUTOMANAGED_SYNC } },
    // CRDs have a low group priority; their versions sort by the platform's version order.
    spec: { group, version, groupPriorityMinimum: 1000, versionPriority: 100 },
  };
}

/**
 * The APIServices the CRDs call for, by name: one per group version some CRD serves
 * (`served: true`), except names in `builtin` (a built-in APIService is left alone).
 */
export function crdApiServices(profile: PlatformProfile, crds: Iterable<JsonObject>, builtin: ReadonlySet<string>): Map<string, JsonObject> {
  const out = new Map<string, JsonObject>();
  for (const crd of crds) {
    const spec = isObject(crd.spec) ? crd.spec : {};
    const group = str(spec.group);
    const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
    for (const v of versions) {
      const version = str(v.name);
      const name = `${version}.${group}`;
      if (!group || !version || v.served !== true || builtin.has(name) || out.has(name)) continue;
      out.set(name, crdApiService(profile, group, version));
    }
  }
  return out;
}

/** Whether an APIService is one kept in sync with its source by this server (label value "true"). */
export function isSyncManaged(profile: PlatformProfile, obj: JsonObject): boolean {
  const metadata = isObject(obj.metadata) ? obj.metadata : {};
  const labels = isObject(metadata.labels) ? metadata.labels : {};
  return labels[automanagedLabel(profile)] === AUTOMANAGED_SYNC;
}

export const LOCAL_CONDITION: AvailableCondition = { type: "Available", status: "True", reason: "Local", message: "Local APIServices are always available" };
export const PASSED_CONDITION: AvailableCondition = { type: "Available", status: "True", reason: "Passed", message: "all checks passed" };

export function unavailable(reason: string, message: string): AvailableCondition {
  return { type: "Available", status: "False", reason, message };
}

/** The status of `obj` with `cond` as its Available condition, or undefined when it is already so. */
export function withAvailable(obj: JsonObject, cond: AvailableCondition, now: string): JsonObject | undefined {
  const current = availableConditionOf(obj);
  if (current && current.status === cond.status && current.reason === cond.reason && current.message === cond.message) return undefined;
  const lastTransitionTime = current && current.status === cond.status && current.lastTransitionTime ? current.lastTransitionTime : now;
  const status = isObject(obj.status) ? obj.status : {};
  const others = (Array.isArray(status.conditions) ? status.conditions : []).filter((c) => !(isObject(c) && c.type === "Available"));
  return { ...status, conditions: [...others, { type: "Available", status: cond.status, lastTransitionTime, reason: cond.reason, message: cond.message }] };
}
