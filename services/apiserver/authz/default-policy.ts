/**
 * The default ClusterRoles and ClusterRoleBindings (the platform's bootstrap
 * policy), labelled `<labels.bootstrapping>=rbac-defaults` and annotated
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
import { ALL_AUTHENTICATED, ALL_SERVICE_ACCOUNTS_GROUP, ALL_UNAUTHENTICATED, MONITORING_GROUP, PRIVILEGED_GROUP } from "./types.ts";
import type { ClusterRole, PolicyRule, RoleBinding, Subject } from "./rbac/types.ts";

export const BOOTSTRAP_LABEL_VALUE = "rbac-defaults";
export const CONTROLLER_ROLE_PREFIX = "system:controller:";

const READ = ["get", "list", "watch"];
const WRITE = ["create", "update", "patch", "delete", "deletecollection"];
const READ_WRITE = [...READ, ...WRITE];
const READ_UPDATE = ["get", "list", "watch", "update", "patch"];

function rule(verbs: string[], groups: string[], resources: string[], names?: string[]): PolicyRule {
  const r: PolicyRule = { verbs: [...verbs], apiGroups: [...groups], resources: [...resources] };
  if (names && names.length > 0) r.resourceNames = [...names];
  return r;
}

function urls(verbs: string[], paths: string[]): PolicyRule {
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

interface Groups {
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

function groups(profile: PlatformProfile): Groups {
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

function eventsRule(g: Groups): PolicyRule {
  return rule(["create", "update", "patch"], [g.core, g.events], ["events"]);
}

/** The node agents' static rules (the `system:node` role, and the Node authorizer's non-graph grants). */
export function nodeRules(profile: PlatformProfile): PolicyRule[] {
  const g = groups(profile);
  return [
    rule(["create"], [g.authentication], ["tokenreviews"]),
    rule(["create"], [g.authorization], ["subjectaccessreviews", "localsubjectaccessreviews"]),
    rule(READ, [g.core], ["services"]),
    rule(["create", "get", "list", "watch"], [g.core], ["nodes"]),
    rule(["update", "patch"], [g.core], ["nodes/status"]),
    rule(["update", "patch"], [g.core], ["nodes"]),
    rule(["create", "update", "patch"], [g.core], ["events"]),
    rule(READ, [g.core], ["pods"]),
    rule(["create", "delete"], [g.core], ["pods"]),
    rule(["update", "patch"], [g.core], ["pods/status"]),
    rule(["create"], [g.core], ["pods/eviction"]),
    rule(["get", "list", "watch"], [g.core], ["secrets", "configmaps"]),
    rule(["get"], [g.core], ["persistentvolumeclaims", "persistentvolumes"]),
    rule(["get"], [g.core], ["endpoints"]),
    rule(["create", "get", "list", "watch"], [g.certificates], ["certificatesigningrequests"]),
    rule(["get", "create", "update", "patch", "delete"], [g.coordination], ["leases"]),
    rule(["get"], [g.storage], ["volumeattachments"]),
    rule(["create"], [g.core], ["serviceaccounts/token"]),
    rule(["get", "update", "patch"], [g.core], ["persistentvolumeclaims/status"]),
    rule(["get", "watch", "list"], [g.storage], ["csidrivers"]),
    rule(["get", "create", "update", "patch", "delete"], [g.storage], ["csinodes"]),
    rule(["get", "list", "watch"], [g.node], ["runtimeclasses"]),
  ];
}

/** Read-only view of cluster-scoped infrastructure and server health: the `cluster-status` role. */
function clusterStatusRules(g: Groups): PolicyRule[] {
  return [
    rule(READ, [g.core], ["nodes", "nodes/status", "namespaces", "namespaces/status", "persistentvolumes", "persistentvolumes/status", "componentstatuses"]),
    rule(READ, [g.storage], ["storageclasses", "csinodes", "csidrivers", "volumeattachments"]),
    rule(READ, [g.node], ["runtimeclasses"]),
    rule(READ, [g.scheduling], ["priorityclasses"]),
    rule(READ, [g.coordination], ["leases"]),
    urls(["get"], ["/healthz", "/healthz/*", "/livez", "/livez/*", "/readyz", "/readyz/*", "/version", "/version/"]),
  ];
}

interface RoleSpec {
  name: string;
  rules?: PolicyRule[];
  labels?: Record<string, string>;
  aggregateFrom?: string;
}

function clusterRoleSpecs(profile: PlatformProfile): RoleSpec[] {
  const g = groups(profile);
  const c = componentNames(profile);
  const L = profile.labels;
  return [
    { name: "cluster-admin", rules: [rule(["*"], ["*"], ["*"]), urls(["*"], ["*"])] },
    {
      name: "system:discovery",
      rules: [urls(["get"], ["/livez", "/readyz", "/healthz", "/version", "/version/", "/openapi", "/openapi/*", "/api", "/api/*", "/apis", "/apis/*"])],
    },
    {
      name: "system:monitoring",
      rules: [urls(["get"], ["/metrics", "/metrics/slis", "/livez", "/readyz", "/healthz", "/livez/*", "/readyz/*", "/healthz/*"])],
    },
    {
      name: "system:basic-user",
      rules: [rule(["create"], [g.authorization], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]), rule(["create"], [g.authentication], ["selfsubjectreviews"])],
    },
    { name: "cluster-status", rules: clusterStatusRules(g) },
    { name: "system:public-info-viewer", rules: [urls(["get"], ["/livez", "/readyz", "/healthz", "/version", "/version/"])] },
    { name: "admin", aggregateFrom: L.aggregateToAdmin },
    { name: "edit", labels: { [L.aggregateToAdmin]: "true" }, aggregateFrom: L.aggregateToEdit },
    { name: "view", labels: { [L.aggregateToEdit]: "true" }, aggregateFrom: L.aggregateToView },
    {
      name: "system:aggregate-to-admin",
      labels: { [L.aggregateToAdmin]: "true" },
      rules: [rule(["create"], [g.authorization], ["localsubjectaccessreviews"]), rule(READ_WRITE, [g.rbac], ["roles", "rolebindings"])],
    },
    {
      name: "system:aggregate-to-edit",
      labels: { [L.aggregateToEdit]: "true" },
      rules: [
        rule(READ, [g.core], ["pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy"]),
        rule(["impersonate"], [g.core], ["serviceaccounts"]),
        rule(WRITE, [g.core], ["pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"]),
        rule(["create"], [g.core], ["pods/eviction"]),
        rule(WRITE, [g.core], [
          "replicationcontrollers",
          "replicationcontrollers/scale",
          "serviceaccounts",
          "services",
          "services/proxy",
          "persistentvolumeclaims",
          "configmaps",
          "secrets",
          "events",
        ]),
        rule(["create"], [g.core], ["serviceaccounts/token"]),
        rule(WRITE, [g.apps], ["statefulsets", "statefulsets/scale", "daemonsets", "deployments", "deployments/scale", "deployments/rollback", "replicasets", "replicasets/scale"]),
        rule(WRITE, [g.autoscaling], ["horizontalpodautoscalers"]),
        rule(WRITE, [g.batch], ["jobs", "cronjobs"]),
        rule(WRITE, [g.extensions], [
          "daemonsets",
          "deployments",
          "deployments/scale",
          "deployments/rollback",
          "ingresses",
          "replicasets",
          "replicasets/scale",
          "replicationcontrollers/scale",
          "networkpolicies",
        ]),
        rule(WRITE, [g.policy], ["poddisruptionbudgets"]),
        rule(WRITE, [g.networking], ["networkpolicies", "ingresses"]),
      ],
    },
    {
      name: "system:aggregate-to-view",
      labels: { [L.aggregateToView]: "true" },
      rules: [
        rule(READ, [g.core], [
          "pods",
          "replicationcontrollers",
          "replicationcontrollers/scale",
          "serviceaccounts",
          "services",
          "services/status",
          "endpoints",
          "persistentvolumeclaims",
          "persistentvolumeclaims/status",
          "configmaps",
        ]),
        rule(READ, [g.core], ["limitranges", "resourcequotas", "bindings", "events", "pods/status", "resourcequotas/status", "namespaces/status", "replicationcontrollers/status", "pods/log"]),
        rule(READ, [g.core], ["namespaces"]),
        rule(READ, [g.discovery], ["endpointslices"]),
        rule(READ, [g.apps], [
          "controllerrevisions",
          "statefulsets",
          "statefulsets/status",
          "statefulsets/scale",
          "daemonsets",
          "daemonsets/status",
          "deployments",
          "deployments/status",
          "deployments/scale",
          "replicasets",
          "replicasets/status",
          "replicasets/scale",
        ]),
        rule(READ, [g.autoscaling], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
        rule(READ, [g.batch], ["jobs", "cronjobs", "cronjobs/status", "jobs/status"]),
        rule(READ, [g.extensions], [
          "daemonsets",
          "daemonsets/status",
          "deployments",
          "deployments/scale",
          "deployments/status",
          "ingresses",
          "ingresses/status",
          "replicasets",
          "replicasets/scale",
          "replicasets/status",
          "replicationcontrollers/scale",
          "networkpolicies",
        ]),
        rule(READ, [g.policy], ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
        rule(READ, [g.networking], ["networkpolicies", "ingresses", "ingresses/status"]),
      ],
    },
    { name: "system:heapster", rules: [rule(READ, [g.core], ["events", "pods", "nodes", "namespaces"]), rule(READ, [g.extensions], ["deployments"])] },
    { name: "system:node", rules: nodeRules(profile) },
    {
      name: "system:node-problem-detector",
      rules: [rule(["get"], [g.core], ["nodes"]), rule(["patch"], [g.core], ["nodes/status"]), eventsRule(g)],
    },
    {
      name: "system:kubelet-api-admin",
      rules: [rule(["get", "list", "watch"], [g.core], ["nodes"]), rule(["proxy"], [g.core], ["nodes"]), rule(["*"], [g.core], ["nodes/proxy", "nodes/metrics", "nodes/stats", "nodes/log"])],
    },
    { name: "system:node-bootstrapper", rules: [rule(["create", "get", "list", "watch"], [g.certificates], ["certificatesigningrequests"])] },
    { name: "system:auth-delegator", rules: [rule(["create"], [g.authentication], ["tokenreviews"]), rule(["create"], [g.authorization], ["subjectaccessreviews"])] },
    { name: c.aggregator, rules: [rule(READ, [g.core], ["services", "endpoints"])] },
    {
      name: c.controllerManager,
      rules: [
        eventsRule(g),
        rule(["create"], [g.coordination], ["leases"]),
        rule(["get", "update"], [g.coordination], ["leases"], [c.controllerManagerLease]),
        rule(["create"], [g.core], ["secrets", "serviceaccounts"]),
        rule(["delete"], [g.core], ["secrets"]),
        rule(["get"], [g.core], ["namespaces", "secrets", "serviceaccounts", "configmaps"]),
        rule(["update"], [g.core], ["secrets", "serviceaccounts"]),
        rule(["create"], [g.authentication], ["tokenreviews"]),
        rule(["create"], [g.authorization], ["subjectaccessreviews"]),
        rule(["list", "watch"], ["*"], ["*"]),
        rule(["create"], [g.core], ["serviceaccounts/token"]),
      ],
    },
    { name: c.dns, rules: [rule(["list", "watch"], [g.core], ["endpoints", "services"])] },
    {
      name: "system:persistent-volume-provisioner",
      rules: [
        rule(["get", "list", "watch", "create", "delete"], [g.core], ["persistentvolumes"]),
        rule(["get", "list", "watch", "update"], [g.core], ["persistentvolumeclaims"]),
        rule(READ, [g.storage], ["storageclasses"]),
        rule(["watch"], [g.core], ["events"]),
        eventsRule(g),
      ],
    },
    {
      name: `system:${g.certificates}:certificatesigningrequests:nodeclient`,
      rules: [rule(["create"], [g.certificates], ["certificatesigningrequests/nodeclient"])],
    },
    {
      name: `system:${g.certificates}:certificatesigningrequests:selfnodeclient`,
      rules: [rule(["create"], [g.certificates], ["certificatesigningrequests/selfnodeclient"])],
    },
    {
      name: "system:volume-scheduler",
      rules: [rule(READ_UPDATE, [g.core], ["persistentvolumes"]), rule(READ, [g.storage], ["storageclasses"]), rule(READ_UPDATE, [g.core], ["persistentvolumeclaims"])],
    },
    {
      name: "system:service-account-issuer-discovery",
      rules: [urls(["get"], ["/.well-known/openid-configuration", "/.well-known/openid-configuration/", "/openid/v1/jwks", "/openid/v1/jwks/"])],
    },
    {
      name: "system:node-proxier",
      rules: [
        rule(["list", "watch"], [g.core], ["services", "endpoints"]),
        rule(["get", "list", "watch"], [g.core], ["nodes"]),
        eventsRule(g),
        rule(["list", "watch"], [g.discovery], ["endpointslices"]),
      ],
    },
    {
      name: c.scheduler,
      rules: [
        eventsRule(g),
        rule(["create"], [g.coordination], ["leases"]),
        rule(["get", "update"], [g.coordination], ["leases"], [c.schedulerLease]),
        rule(READ, [g.core], ["nodes"]),
        rule(["get", "list", "watch", "delete"], [g.core], ["pods"]),
        rule(["create"], [g.core], ["pods/binding", "bindings"]),
        rule(["patch", "update"], [g.core], ["pods/status"]),
        rule(READ, [g.core], ["services", "replicationcontrollers"]),
        rule(READ, [g.apps, g.extensions], ["replicasets"]),
        rule(READ, [g.apps], ["statefulsets"]),
        rule(READ, [g.policy], ["poddisruptionbudgets"]),
        rule(READ, [g.core], ["persistentvolumeclaims", "persistentvolumes"]),
        rule(["create"], [g.authentication], ["tokenreviews"]),
        rule(["create"], [g.authorization], ["subjectaccessreviews"]),
        rule(READ, [g.storage], ["csinodes"]),
        rule(READ, [g.core], ["namespaces"]),
        rule(READ, [g.storage], ["csidrivers"]),
        rule(READ, [g.storage], ["csistoragecapacities"]),
      ],
    },
  ];
}

/** Roles of the controllers run by the controller manager with per-controller credentials. */
function controllerRoleSpecs(profile: PlatformProfile): RoleSpec[] {
  const g = groups(profile);
  const c = componentNames(profile);
  const ev = eventsRule(g);
  const roles: Array<[string, PolicyRule[]]> = [
    [
      "attachdetach-controller",
      [
        rule(["list", "watch"], [g.core], ["persistentvolumes", "persistentvolumeclaims"]),
        rule(["get", "list", "watch"], [g.core], ["nodes"]),
        rule(["patch", "update"], [g.core], ["nodes/status"]),
        rule(["list", "watch"], [g.core], ["pods"]),
        ev,
        rule(["get", "create", "delete", "list", "watch"], [g.storage], ["volumeattachments"]),
        rule(["get", "watch", "list"], [g.storage], ["csidrivers"]),
        rule(["get", "watch", "list"], [g.storage], ["csinodes"]),
      ],
    ],
    ["clusterrole-aggregation-controller", [rule(["escalate", "get", "list", "watch", "update", "patch"], [g.rbac], ["clusterroles"])]],
    [
      "cronjob-controller",
      [
        rule(["get", "list", "watch", "update"], [g.batch], ["cronjobs"]),
        rule(["get", "list", "watch", "create", "update", "delete", "patch"], [g.batch], ["jobs"]),
        rule(["update"], [g.batch], ["cronjobs/status"]),
        rule(["update"], [g.batch], ["cronjobs/finalizers"]),
        rule(["list", "watch", "delete"], [g.core], ["pods"]),
        ev,
      ],
    ],
    [
      "daemon-set-controller",
      [
        rule(["get", "list", "watch"], [g.extensions, g.apps], ["daemonsets"]),
        rule(["update"], [g.extensions, g.apps], ["daemonsets/status"]),
        rule(["update"], [g.extensions, g.apps], ["daemonsets/finalizers"]),
        rule(["list", "watch"], [g.core], ["nodes"]),
        rule(["list", "watch", "create", "delete", "patch"], [g.core], ["pods"]),
        rule(["create"], [g.core], ["pods/binding"]),
        rule(["get", "list", "watch", "create", "delete", "update", "patch"], [g.apps], ["controllerrevisions"]),
        ev,
      ],
    ],
    [
      "deployment-controller",
      [
        rule(["get", "list", "watch", "update"], [g.extensions, g.apps], ["deployments"]),
        rule(["update"], [g.extensions, g.apps], ["deployments/status"]),
        rule(["update"], [g.extensions, g.apps], ["deployments/finalizers"]),
        rule(["get", "list", "watch", "create", "update", "patch", "delete"], [g.apps, g.extensions], ["replicasets"]),
        rule(["get", "list", "watch", "update"], [g.core], ["pods"]),
        ev,
      ],
    ],
    [
      "disruption-controller",
      [
        rule(["get", "list", "watch"], [g.extensions, g.apps], ["deployments"]),
        rule(["get", "list", "watch"], [g.apps, g.extensions], ["replicasets"]),
        rule(["get", "list", "watch"], [g.core], ["replicationcontrollers"]),
        rule(["get", "list", "watch"], [g.policy], ["poddisruptionbudgets"]),
        rule(["get", "list", "watch"], [g.apps], ["statefulsets"]),
        rule(["update"], [g.policy], ["poddisruptionbudgets/status"]),
        rule(["patch", "update"], [g.core], ["pods/status"]),
        rule(["get"], ["*"], ["*/scale"]),
        ev,
      ],
    ],
    [
      "endpoint-controller",
      [
        rule(["get", "list", "watch"], [g.core], ["services", "pods"]),
        rule(["get", "list", "watch", "create", "update", "delete"], [g.core], ["endpoints"]),
        rule(["create"], [g.core], ["endpoints/restricted"]),
        ev,
      ],
    ],
    [
      "endpointslice-controller",
      [
        rule(["get", "list", "watch"], [g.core], ["services", "pods", "nodes"]),
        rule(["update"], [g.core], ["services/finalizers"]),
        rule(["get", "list", "watch", "create", "update", "delete"], [g.discovery], ["endpointslices"]),
        rule(["create"], [g.discovery], ["endpointslices/restricted"]),
        ev,
      ],
    ],
    [
      "endpointslicemirroring-controller",
      [
        rule(["get", "list", "watch"], [g.core], ["services", "endpoints"]),
        rule(["update"], [g.core], ["services/finalizers"]),
        rule(["update"], [g.core], ["endpoints/finalizers"]),
        rule(["get", "list", "watch", "create", "update", "delete"], [g.discovery], ["endpointslices"]),
        rule(["create"], [g.discovery], ["endpointslices/restricted"]),
        ev,
      ],
    ],
    [
      "expand-controller",
      [
        rule(["get", "list", "watch", "update", "patch"], [g.core], ["persistentvolumes"]),
        rule(["update", "patch"], [g.core], ["persistentvolumeclaims/status"]),
        rule(["get", "list", "watch"], [g.core], ["persistentvolumeclaims"]),
        ev,
      ],
    ],
    [
      "ephemeral-volume-controller",
      [
        rule(["get", "list", "watch"], [g.core], ["pods"]),
        rule(["update"], [g.core], ["pods/finalizers"]),
        rule(["get", "list", "watch", "create"], [g.core], ["persistentvolumeclaims"]),
        ev,
      ],
    ],
    ["generic-garbage-collector", [rule(["get", "list", "watch", "patch", "update", "delete"], ["*"], ["*"]), ev]],
    [
      "horizontal-pod-autoscaler",
      [
        rule(["get", "list", "watch"], [g.autoscaling], ["horizontalpodautoscalers"]),
        rule(["update"], [g.autoscaling], ["horizontalpodautoscalers/status"]),
        rule(["get", "update"], ["*"], ["*/scale"]),
        rule(["list", "watch"], [g.core], ["pods"]),
        rule(["list", "watch"], [g.resourceMetrics], ["pods"]),
        rule(["get", "list", "watch"], [g.customMetrics], ["*"]),
        rule(["get", "list", "watch"], [g.externalMetrics], ["*"]),
        ev,
      ],
    ],
    [
      "job-controller",
      [
        rule(["get", "list", "watch", "update", "patch"], [g.batch], ["jobs"]),
        rule(["update"], [g.batch], ["jobs/status"]),
        rule(["update"], [g.batch], ["jobs/finalizers"]),
        rule(["list", "watch", "create", "delete", "patch"], [g.core], ["pods"]),
        ev,
      ],
    ],
    [
      "namespace-controller",
      [
        rule(["get", "list", "watch", "delete"], [g.core], ["namespaces"]),
        rule(["update"], [g.core], ["namespaces/finalize", "namespaces/status"]),
        rule(["get", "list", "watch", "delete", "deletecollection"], ["*"], ["*"]),
      ],
    ],
    [
      "node-controller",
      [
        rule(["get", "list", "watch", "update", "delete", "patch"], [g.core], ["nodes"]),
        rule(["patch", "update"], [g.core], ["nodes/status"]),
        rule(["patch", "update"], [g.core], ["pods/status"]),
        rule(["list", "watch", "get", "delete"], [g.core], ["pods"]),
        rule(["get", "list", "watch"], [g.coordination], ["leases"]),
        ev,
      ],
    ],
    [
      "persistent-volume-binder",
      [
        rule(["get", "list", "watch", "update", "create", "delete"], [g.core], ["persistentvolumes"]),
        rule(["update"], [g.core], ["persistentvolumes/status"]),
        rule(["get", "list", "watch", "update"], [g.core], ["persistentvolumeclaims"]),
        rule(["update"], [g.core], ["persistentvolumeclaims/status"]),
        rule(["list", "watch", "get", "create", "delete"], [g.core], ["pods"]),
        rule(["get", "list", "watch"], [g.storage], ["storageclasses"]),
        rule(["list", "watch"], [g.core], ["nodes"]),
        ev,
        rule(["watch"], [g.core], ["events"]),
      ],
    ],
    [
      "pod-garbage-collector",
      [rule(["list", "watch", "delete"], [g.core], ["pods"]), rule(["get", "list", "watch"], [g.core], ["nodes"]), rule(["patch"], [g.core], ["pods/status"])],
    ],
    [
      "replicaset-controller",
      [
        rule(["get", "list", "watch", "update"], [g.apps, g.extensions], ["replicasets"]),
        rule(["update"], [g.apps, g.extensions], ["replicasets/status"]),
        rule(["update"], [g.apps, g.extensions], ["replicasets/finalizers"]),
        rule(["list", "watch", "patch", "create", "delete"], [g.core], ["pods"]),
        ev,
      ],
    ],
    [
      "replication-controller",
      [
        rule(["get", "list", "watch", "update"], [g.core], ["replicationcontrollers"]),
        rule(["update"], [g.core], ["replicationcontrollers/status"]),
        rule(["update"], [g.core], ["replicationcontrollers/finalizers"]),
        rule(["list", "watch", "patch", "create", "delete"], [g.core], ["pods"]),
        ev,
      ],
    ],
    ["resourcequota-controller", [rule(["list", "watch"], ["*"], ["*"]), rule(["update"], [g.core], ["resourcequotas/status"]), ev]],
    ["route-controller", [rule(["list", "watch"], [g.core], ["nodes"]), rule(["patch"], [g.core], ["nodes/status"]), ev]],
    ["service-account-controller", [rule(["create"], [g.core], ["serviceaccounts"]), ev]],
    [
      "service-controller",
      [rule(["get", "list", "watch"], [g.core], ["services"]), rule(["patch", "update"], [g.core], ["services/status"]), rule(["list", "watch"], [g.core], ["nodes"]), ev],
    ],
    [
      "statefulset-controller",
      [
        rule(["list", "watch"], [g.core], ["pods"]),
        rule(["get", "list", "watch"], [g.apps], ["statefulsets"]),
        rule(["update"], [g.apps], ["statefulsets/status"]),
        rule(["update"], [g.apps], ["statefulsets/finalizers"]),
        rule(["get", "create", "delete", "update", "patch"], [g.core], ["pods"]),
        rule(["get", "create", "delete", "update", "patch", "list", "watch"], [g.apps], ["controllerrevisions"]),
        rule(["get", "create", "list", "watch"], [g.core], ["persistentvolumeclaims"]),
        rule(["update", "delete"], [g.core], ["persistentvolumeclaims"]),
        rule(["update"], [g.core], ["pods/finalizers"]),
        ev,
      ],
    ],
    ["ttl-controller", [rule(["update", "patch", "list", "watch"], [g.core], ["nodes"]), ev]],
    [
      "certificate-controller",
      [
        rule(["get", "list", "watch", "delete"], [g.certificates], ["certificatesigningrequests"]),
        rule(["update"], [g.certificates], ["certificatesigningrequests/status", "certificatesigningrequests/approval"]),
        rule(["create"], [g.authorization], ["subjectaccessreviews"]),
        ev,
      ],
    ],
    [
      "pvc-protection-controller",
      [
        rule(["get", "list", "watch", "update"], [g.core], ["persistentvolumeclaims"]),
        rule(["update"], [g.core], ["persistentvolumeclaims/status"]),
        rule(["list", "watch", "get"], [g.core], ["pods"]),
        ev,
      ],
    ],
    ["pv-protection-controller", [rule(["get", "list", "watch", "update"], [g.core], ["persistentvolumes"]), ev]],
    ["ttl-after-finished-controller", [rule(["get", "list", "watch", "delete"], [g.batch], ["jobs"]), ev]],
    ["root-ca-cert-publisher", [rule(["create", "update"], [g.core], ["configmaps"]), ev]],
    [
      "validatingadmissionpolicy-status-controller",
      [
        rule(["get", "list", "watch"], [g.admissionregistration], ["validatingadmissionpolicies"]),
        rule(["get", "patch", "update"], [g.admissionregistration], ["validatingadmissionpolicies/status"]),
        ev,
      ],
    ],
    [
      "legacy-service-account-token-cleaner",
      [rule(["get"], [g.core], ["configmaps"], [c.legacyTokenTrackingConfigMap]), rule(["patch", "delete"], [g.core], ["secrets"])],
    ],
  ];
  return roles.map(([name, rules]) => ({ name: CONTROLLER_ROLE_PREFIX + name, rules }));
}

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

function binding(profile: PlatformProfile, name: string, roleName: string, subjects: Subject[]): RoleBinding & { apiVersion: string; kind: string } {
  const rbac = profile.group("rbac");
  return {
    apiVersion: profile.apiVersion("rbac", "v1"),
    kind: "ClusterRoleBinding",
    metadata: defaultMetadata(profile, name),
    roleRef: { apiGroup: rbac, kind: "ClusterRole", name: roleName },
    subjects,
  };
}

/** The default ClusterRoleBindings, including one per controller role to its service account in the system namespace. */
export function defaultClusterRoleBindings(profile: PlatformProfile): Array<RoleBinding & { apiVersion: string; kind: string }> {
  const rbac = profile.group("rbac");
  const c = componentNames(profile);
  const group = (name: string): Subject => ({ kind: "Group", apiGroup: rbac, name });
  const user = (name: string): Subject => ({ kind: "User", apiGroup: rbac, name });
  const sa = (namespace: string, name: string): Subject => ({ kind: "ServiceAccount", name, namespace });
  const out = [
    binding(profile, "cluster-admin", "cluster-admin", [group(PRIVILEGED_GROUP)]),
    binding(profile, "system:monitoring", "system:monitoring", [group(MONITORING_GROUP)]),
    binding(profile, "system:discovery", "system:discovery", [group(ALL_AUTHENTICATED)]),
    binding(profile, "system:basic-user", "system:basic-user", [group(ALL_AUTHENTICATED)]),
    binding(profile, "system:public-info-viewer", "system:public-info-viewer", [group(ALL_AUTHENTICATED), group(ALL_UNAUTHENTICATED)]),
    binding(profile, "system:node-proxier", "system:node-proxier", [user(c.proxy)]),
    binding(profile, c.controllerManager, c.controllerManager, [user(c.controllerManager)]),
    binding(profile, c.dns, c.dns, [sa(profile.systemNamespace, c.dnsServiceAccount)]),
    binding(profile, c.scheduler, c.scheduler, [user(c.scheduler)]),
    binding(profile, "system:volume-scheduler", "system:volume-scheduler", [user(c.scheduler)]),
    // Kept without subjects: node agents are authorized by the Node authorizer.
    binding(profile, "system:node", "system:node", []),
    binding(profile, "system:service-account-issuer-discovery", "system:service-account-issuer-discovery", [group(ALL_SERVICE_ACCOUNTS_GROUP)]),
  ];
  for (const role of controllerRoleSpecs(profile)) {
    out.push(binding(profile, role.name, role.name, [sa(profile.systemNamespace, role.name.slice(CONTROLLER_ROLE_PREFIX.length))]));
  }
  return out;
}

