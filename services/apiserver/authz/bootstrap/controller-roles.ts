/**
 * The roles of the controllers the controller manager runs with per-controller
 * credentials (the platform's controller_policy.go), each `system:controller:<name>`.
 */
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import type { PolicyRule } from "../rbac/types.ts";
import { componentNames, CONTROLLER_ROLE_PREFIX, eventsRule, groups, rule, type RoleSpec } from "./rules.ts";

/** Roles of the controllers run by the controller manager with per-controller credentials. */
export function controllerRoleSpecs(profile: PlatformProfile): RoleSpec[] {
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
      "service-cidrs-controller",
      [
        rule(["get", "list", "watch", "patch", "update"], [g.networking], ["servicecidrs"]),
        rule(["patch", "update"], [g.networking], ["servicecidrs/finalizers", "servicecidrs/status"]),
        rule(["get", "list", "watch"], [g.networking], ["ipaddresses"]),
        ev,
      ],
    ],
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
