/**
 * The default ClusterRoles and ClusterRoleBindings (the platform's bootstrap
 * policy), assembled from the data tables under bootstrap/ (rules.ts: verbs, groups
 * and component names; cluster-roles.ts; controller-roles.ts; bindings.ts) and labelled `<labels.bootstrapping>=rbac-defaults` and annotated
 * `<annotations.rbacAutoupdate>: "true"`. Rules follow the platform's published
 * bootstrap policy; group names come from the profile, and component names
 * carry the profile's component prefix (`kube-scheduler` in the kubernetes
 * profile, `plat-scheduler` in the plat one).
 *
 * `cluster-status` is named by the specification as the user-facing role meant
 * for cluster-wide bindings, without its rules. Ours is read-only: the state of
 * the cluster's infrastructure (nodes, namespaces, volumes, storage and runtime
 * classes, leases of node heartbeats) and the health and version paths. It
 * grants nothing inside workloads (no pods, secrets or config maps) and no
 * metrics (that is `system:monitoring`).
 *
 * Left out on purpose:
 * - roles whose rules name certificate signers (`approve`/`sign` on `signers`):
 *   signer names are domain-qualified and the profile has no name for them yet;
 * - roles behind feature gates that are off by default, and the namespaced
 *   roles of the system namespaces.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { clusterRoleBindingSpecs } from "./bootstrap/bindings.ts";
import { clusterRoleSpecs } from "./bootstrap/cluster-roles.ts";
import { controllerRoleSpecs } from "./bootstrap/controller-roles.ts";
import type { ClusterRole, RoleBinding } from "./rbac/types.ts";

export { nodeRules } from "./bootstrap/cluster-roles.ts";
export { componentNames, componentPrefix, CONTROLLER_ROLE_PREFIX } from "./bootstrap/rules.ts";

export const BOOTSTRAP_LABEL_VALUE = "rbac-defaults";

function defaultMetadata(profile: PlatformProfile, name: string, labels?: Record<string, string>) {
  return {
    name,
    labels: { ...(labels ?? {}), [profile.labels.bootstrapping]: BOOTSTRAP_LABEL_VALUE },
    annotations: { [profile.annotations.rbacAutoupdate]: "true" },
  };
}

/** The default ClusterRoles as API objects (aggregated roles have no rules: the controller fills them). */
export function defaultClusterRoles(profile: PlatformProfile): Array<ClusterRole & { apiVersion: string; kind: string }> {
  const apiVersion = profile.apiVersion("rbac", "v1");
  return [...clusterRoleSpecs(profile), ...controllerRoleSpecs(profile)].map((s) => {
    const role: ClusterRole & { apiVersion: string; kind: string } = { apiVersion, kind: "ClusterRole", metadata: defaultMetadata(profile, s.name, s.labels) };
    if (s.aggregateFrom) role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [s.aggregateFrom]: "true" } }] };
    role.rules = s.rules ? s.rules.map((r) => structuredClone(r)) : [];
    return role;
  });
}

/** The default ClusterRoleBindings, including one per controller role to its service account in the system namespace. */
export function defaultClusterRoleBindings(profile: PlatformProfile): Array<RoleBinding & { apiVersion: string; kind: string }> {
  const rbac = profile.group("rbac");
  const apiVersion = profile.apiVersion("rbac", "v1");
  return clusterRoleBindingSpecs(profile).map((b) => ({
    apiVersion,
    kind: "ClusterRoleBinding",
    metadata: defaultMetadata(profile, b.name),
    roleRef: { apiGroup: rbac, kind: "ClusterRole", name: b.role },
    subjects: b.subjects,
  }));
}
