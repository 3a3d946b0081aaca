/**
 * The default cluster roles of people and components (the platform's policy.go):
 * the node agents' rules, the user-facing roles (cluster-admin, admin/edit/view and
 * their aggregation, cluster-status) and the discovery, monitoring and basic-user roles.
 */
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import type { PolicyRule } from "../rbac/types.ts";
import { componentNames, eventsRule, groups, READ, READ_UPDATE, READ_WRITE, rule, urls, WRITE, type Groups, type RoleSpec } from "./rules.ts";

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


export function clusterRoleSpecs(profile: PlatformProfile): RoleSpec[] {
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

