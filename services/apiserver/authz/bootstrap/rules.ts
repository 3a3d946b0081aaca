/**
 * The vocabulary of the bootstrap policy tables: verb sets, rule constructors, the API
 * groups as the profile names them, and the names of the core components (which carry
 * the profile's component prefix: `kube-scheduler` in the kubernetes profile,
 * `plat-scheduler` in the plat one).
 */
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import type { PolicyRule } from "../rbac/types.ts";

export const CONTROLLER_ROLE_PREFIX = "system:controller:";

export const READ = ["get", "list", "watch"];
export const WRITE = ["create", "update", "patch", "delete", "deletecollection"];
export const READ_WRITE = [...READ, ...WRITE];
export const READ_UPDATE = ["get", "list", "watch", "update", "patch"];

export function rule(verbs: string[], groups: string[], resources: string[], names?: string[]): PolicyRule {
  const r: PolicyRule = { verbs: [...verbs], apiGroups: [...groups], resources: [...resources] };
  if (names && names.length > 0) r.resourceNames = [...names];
  return r;
}

export function urls(verbs: string[], paths: string[]): PolicyRule {
  return { verbs: [...verbs], nonResourceURLs: [...paths] };
}

/** `kube` / `plat`: the prefix of component names (`<prefix>-scheduler`), from the system namespace's name. */
export function componentPrefix(profile: PlatformProfile): string {
  return profile.systemNamespace.replace(/-system$/, "");
}

/** Names of the core components' users and roles. */
export function componentNames(profile: PlatformProfile) {
  const p = componentPrefix(profile);
  return {
    scheduler: `system:${p}-scheduler`,
    controllerManager: `system:${p}-controller-manager`,
    proxy: `system:${p}-proxy`,
    aggregator: `system:${p}-aggregator`,
    dns: `system:${p}-dns`,
    dnsServiceAccount: `${p}-dns`,
    schedulerLease: `${p}-scheduler`,
    controllerManagerLease: `${p}-controller-manager`,
    legacyTokenTrackingConfigMap: `${p}-apiserver-legacy-service-account-token-tracking`,
  };
}

export interface Groups {
  core: string;
  apps: string;
  authentication: string;
  authorization: string;
  autoscaling: string;
  batch: string;
  certificates: string;
  coordination: string;
  discovery: string;
  extensions: string;
  policy: string;
  rbac: string;
  storage: string;
  networking: string;
  events: string;
  node: string;
  scheduling: string;
  admissionregistration: string;
  resourceMetrics: string;
  customMetrics: string;
  externalMetrics: string;
}

export function groups(profile: PlatformProfile): Groups {
  return {
    core: profile.group("core"),
    apps: profile.group("apps"),
    authentication: profile.group("authentication"),
    authorization: profile.group("authorization"),
    autoscaling: profile.group("autoscaling"),
    batch: profile.group("batch"),
    certificates: profile.group("certificates"),
    coordination: profile.group("coordination"),
    discovery: profile.group("discovery"),
    // The legacy group of workloads has no domain.
    extensions: "extensions",
    policy: profile.group("policy"),
    rbac: profile.group("rbac"),
    storage: profile.group("storage"),
    networking: profile.group("networking"),
    events: profile.group("events"),
    node: profile.group("node"),
    scheduling: profile.group("scheduling"),
    admissionregistration: profile.group("admissionregistration"),
    resourceMetrics: `metrics.${profile.groupDomain}`,
    customMetrics: `custom.metrics.${profile.groupDomain}`,
    externalMetrics: `external.metrics.${profile.groupDomain}`,
  };
}

export function eventsRule(g: Groups): PolicyRule {
  return rule(["create", "update", "patch"], [g.core, g.events], ["events"]);
}


/** One default ClusterRole: its rules, or the label its aggregation selects. */
export interface RoleSpec {
  name: string;
  rules?: PolicyRule[];
  labels?: Record<string, string>;
  aggregateFrom?: string;
}
