/**
 * The APF objects every replica keeps (the platform's bootstrap configuration,
 * release 1.35): the mandatory `exempt` and `catch-all` FlowSchemas and
 * priority levels, and the suggested ones (system, node-high, leader-election,
 * workload-high, workload-low, global-default and the FlowSchemas that use them).
 * Each carries `<annotations.apfAutoupdateSpec>: "true"`, as the platform's do.
 * Component users and the system namespace come from the naming profile
 * (`system:kube-scheduler` / `kube-system` in the kubernetes profile).
 */
import {
  flowSchemaSpec,
  GROUP_AUTHENTICATED,
  GROUP_UNAUTHENTICATED,
  groupSubjects,
  MANDATORY_FLOW_SCHEMA_SPECS,
  MANDATORY_PRIORITY_LEVEL_SPECS,
  matchEverything,
} from "../../../shared/api/groups/flowcontrol-v1-mandatory.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { componentNames, componentPrefix } from "../authz/bootstrap/rules.ts";
import type { JsonObject } from "../storage/object.ts";

const GROUP_NODES = "system:nodes";
const GROUP_SERVICE_ACCOUNTS = "system:serviceaccounts";

export interface BootstrapObject {
  kind: "FlowSchema" | "PriorityLevelConfiguration";
  name: string;
  spec: JsonObject;
  mandatory: boolean;
}

const users = (...names: string[]): JsonObject[] => names.map((name) => ({ kind: "User", user: { name } }));
const serviceAccounts = (namespace: string, ...names: string[]): JsonObject[] => names.map((name) => ({ kind: "ServiceAccount", serviceAccount: { namespace, name } }));

function resourceRule(verbs: string[], apiGroups: string[], resources: string[], namespaces: string[], clusterScope: boolean): JsonObject {
  return clusterScope ? { verbs, apiGroups, resources, clusterScope, namespaces } : { verbs, apiGroups, resources, namespaces };
}

function limited(shares: number, lendablePercent: number, queues: number, handSize: number, queueLengthLimit = 50): JsonObject {
  return { type: "Limited", limited: { nominalConcurrencyShares: shares, lendablePercent, limitResponse: { type: "Queue", queuing: { queues, handSize, queueLengthLimit } } } };
}

function suggestedPriorityLevels(): Array<[string, JsonObject]> {
  return [
    ["system", limited(30, 33, 64, 6)],
    ["node-high", limited(40, 25, 64, 6)],
    ["leader-election", limited(10, 0, 16, 4)],
    ["workload-high", limited(40, 50, 128, 6)],
    ["workload-low", limited(100, 90, 128, 6)],
    ["global-default", limited(20, 50, 128, 6)],
  ];
}

function suggestedFlowSchemas(profile: PlatformProfile): Array<[string, JsonObject]> {
  const core = profile.group("core");
  const coordination = profile.group("coordination");
  const system = profile.systemNamespace;
  const names = componentNames(profile);
  const prefix = componentPrefix(profile);
  const systemServiceAccounts = serviceAccounts(system, "*");
  const getCreateUpdate = ["get", "create", "update"];
  const leases = resourceRule(getCreateUpdate, [coordination], ["leases"], ["*"], false);
  return [
    ["probes", flowSchemaSpec("exempt", 2, undefined, [{ subjects: groupSubjects(GROUP_UNAUTHENTICATED, GROUP_AUTHENTICATED), nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/readyz", "/livez"] }] }])],
    ["system-leader-election", flowSchemaSpec("leader-election", 100, "ByUser", [{ subjects: [...users(names.controllerManager, names.scheduler), ...systemServiceAccounts], resourceRules: [leases] }])],
    [
      "endpoint-controller",
      flowSchemaSpec("workload-high", 150, "ByUser", [
        {
          subjects: [...users(names.controllerManager), ...serviceAccounts(system, "endpoint-controller", "endpointslicemirroring-controller")],
          resourceRules: [resourceRule(getCreateUpdate, [core], ["endpoints"], ["*"], false)],
        },
      ]),
    ],
    ["workload-leader-election", flowSchemaSpec("leader-election", 200, "ByUser", [{ subjects: systemServiceAccounts, resourceRules: [resourceRule(getCreateUpdate, [core], ["endpoints", "configmaps"], ["*"], false), leases] }])],
    [
      "system-node-high",
      flowSchemaSpec("node-high", 400, "ByUser", [
        {
          subjects: groupSubjects(GROUP_NODES),
          resourceRules: [resourceRule(["*"], [core], ["nodes", "nodes/status"], ["*"], true), resourceRule(["*"], [coordination], ["leases"], ["*"], false)],
        },
      ]),
    ],
    ["system-nodes", flowSchemaSpec("system", 500, "ByUser", [matchEverything(groupSubjects(GROUP_NODES))])],
    [`${prefix}-controller-manager`, flowSchemaSpec("workload-high", 800, "ByNamespace", [matchEverything(users(names.controllerManager))])],
    [`${prefix}-scheduler`, flowSchemaSpec("workload-high", 800, "ByNamespace", [matchEverything(users(names.scheduler))])],
    [`${system}-service-accounts`, flowSchemaSpec("workload-high", 900, "ByNamespace", [matchEverything(systemServiceAccounts)])],
    ["service-accounts", flowSchemaSpec("workload-low", 9000, "ByUser", [matchEverything(groupSubjects(GROUP_SERVICE_ACCOUNTS))])],
    ["global-default", flowSchemaSpec("global-default", 9900, "ByUser", [matchEverything(groupSubjects(GROUP_UNAUTHENTICATED, GROUP_AUTHENTICATED))])],
  ];
}

/** Every bootstrap object: priority levels first (FlowSchemas refer to them), mandatory before suggested. */
export function bootstrapObjects(profile: PlatformProfile): BootstrapObject[] {
  const out: BootstrapObject[] = [];
  const add = (kind: BootstrapObject["kind"], entries: Array<[string, JsonObject]>, mandatory: boolean) => {
    for (const [name, spec] of entries) out.push({ kind, name, spec: structuredClone(spec), mandatory });
  };
  add("PriorityLevelConfiguration", Object.entries(MANDATORY_PRIORITY_LEVEL_SPECS), true);
  add("PriorityLevelConfiguration", suggestedPriorityLevels(), false);
  add("FlowSchema", Object.entries(MANDATORY_FLOW_SCHEMA_SPECS), true);
  add("FlowSchema", suggestedFlowSchemas(profile), false);
  return out;
}
