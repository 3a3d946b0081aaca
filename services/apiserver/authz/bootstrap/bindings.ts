/**
 * The default cluster role bindings (the platform's policy.go and controller_policy.go):
 * one row per binding (its name, the ClusterRole it grants and its subjects), then one
 * binding per controller role to the controller's service account in the system namespace.
 */
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import type { Subject } from "../rbac/types.ts";
import { ALL_AUTHENTICATED, ALL_SERVICE_ACCOUNTS_GROUP, ALL_UNAUTHENTICATED, MONITORING_GROUP, PRIVILEGED_GROUP } from "../types.ts";
import { controllerRoleSpecs } from "./controller-roles.ts";
import { componentNames, CONTROLLER_ROLE_PREFIX } from "./rules.ts";

export interface BindingSpec {
  name: string;
  role: string;
  subjects: Subject[];
}

export function clusterRoleBindingSpecs(profile: PlatformProfile): BindingSpec[] {
  const rbac = profile.group("rbac");
  const c = componentNames(profile);
  const group = (name: string): Subject => ({ kind: "Group", apiGroup: rbac, name });
  const user = (name: string): Subject => ({ kind: "User", apiGroup: rbac, name });
  const sa = (name: string): Subject => ({ kind: "ServiceAccount", name, namespace: profile.systemNamespace });
  const rows: Array<[name: string, role: string, subjects: Subject[]]> = [
    ["cluster-admin", "cluster-admin", [group(PRIVILEGED_GROUP)]],
    ["system:monitoring", "system:monitoring", [group(MONITORING_GROUP)]],
    ["system:discovery", "system:discovery", [group(ALL_AUTHENTICATED)]],
    ["system:basic-user", "system:basic-user", [group(ALL_AUTHENTICATED)]],
    ["system:public-info-viewer", "system:public-info-viewer", [group(ALL_AUTHENTICATED), group(ALL_UNAUTHENTICATED)]],
    ["system:node-proxier", "system:node-proxier", [user(c.proxy)]],
    [c.controllerManager, c.controllerManager, [user(c.controllerManager)]],
    [c.dns, c.dns, [sa(c.dnsServiceAccount)]],
    [c.scheduler, c.scheduler, [user(c.scheduler)]],
    ["system:volume-scheduler", "system:volume-scheduler", [user(c.scheduler)]],
    // Kept without subjects: node agents are authorized by the Node authorizer.
    ["system:node", "system:node", []],
    ["system:service-account-issuer-discovery", "system:service-account-issuer-discovery", [group(ALL_SERVICE_ACCOUNTS_GROUP)]],
  ];
  for (const role of controllerRoleSpecs(profile)) rows.push([role.name, role.name, [sa(role.name.slice(CONTROLLER_ROLE_PREFIX.length))]]);
  return rows.map(([name, role, subjects]) => ({ name, role, subjects }));
}
