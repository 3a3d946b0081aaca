/**
 * apps/v1: Deployment, ReplicaSet, StatefulSet, DaemonSet, ControllerRevision.
 * Protobuf field numbers are the platform's (apps/v1 generated.proto); list
 * markers, immutability and defaults follow the platform's Go types and
 * defaulting functions. Conditional defaults and cross-field rules live in
 * apps-v1-rules.ts.
 */
import { anyValue, bool, enumOf, int32, int64, intOrString, list, named, obj, str, tag, time, withOpts } from "../../schema/build.ts";
import type { KindDefinition, Schema, TableColumn } from "../../schema/types.ts";
import { ageColumn, containerImages, containerNames, formatLabelSelector, formatSelectorMap, getPath, listAt, numAt } from "../table-cells.ts";
import { persistentVolumeClaim, podTemplateSpec } from "./core-v1.ts";
import {
  defaultDaemonSet,
  defaultDeployment,
  defaultReplicaSet,
  defaultStatefulSet,
  validateDaemonSet,
  validateDeployment,
  validateReplicaSet,
  validateStatefulSet,
} from "./apps-v1-rules.ts";
import { labelSelector, objectKind } from "./meta-v1.ts";

const A = (name: string, schema: Schema): Schema => named("apps", "v1", name, schema);
const d = (schema: Schema, description: string): Schema => withOpts(schema, { description });

const conditionStatus = (): Schema => enumOf(["True", "False", "Unknown"], { description: "Status of the condition: True, False or Unknown." });
const conditionList = (item: Schema, description: string): Schema =>
  list(item, { listType: "map", mapKeys: ["type"], patchStrategy: "merge", patchMergeKey: "type", description });
const nonNegative = (description: string, opts: { default?: number } = {}): Schema => int32({ minimum: 0, description, ...opts });
const immutableSelector = (description: string): Schema => withOpts(labelSelector, { immutable: true, description });
const template = (description: string): Schema => withOpts(podTemplateSpec, { description });

/** A workload condition with the standard five fields (ReplicaSet, StatefulSet, DaemonSet). */
function workloadCondition(name: string): Schema {
  return A(
    name,
    obj(
      {
        type: tag(1, str({ description: "Type of the condition." })),
        status: tag(2, conditionStatus()),
        lastTransitionTime: tag(3, time({ description: "Last time the condition changed status." })),
        reason: tag(4, str({ description: "Machine-readable reason for the last transition." })),
        message: tag(5, str({ description: "Human-readable details of the last transition." })),
      },
      { required: ["type", "status"], description: `${name.replace(/Condition$/, "")} condition at a point in time.` },
    ),
  );
}

// ---------------------------------------------------------------- Deployment

export const rollingUpdateDeployment = A(
  "RollingUpdateDeployment",
  obj(
    {
      maxUnavailable: tag(1, intOrString({ default: "25%", description: "Pods that may be unavailable during the update: a number or a percentage of desired pods (rounded down)." })),
      maxSurge: tag(2, intOrString({ default: "25%", description: "Pods that may be created above the desired count: a number or a percentage (rounded up)." })),
    },
    { description: "Parameters of a rolling update of a Deployment." },
  ),
);

export const deploymentStrategy = A(
  "DeploymentStrategy",
  obj(
    {
      type: tag(1, enumOf(["Recreate", "RollingUpdate"], { default: "RollingUpdate", description: "Recreate or RollingUpdate (default)." })),
      rollingUpdate: tag(2, d(rollingUpdateDeployment, "Rolling update parameters; only with type RollingUpdate.")),
    },
    { description: "How old pods are replaced with new ones." },
  ),
);

export const deploymentSpec = A(
  "DeploymentSpec",
  obj(
    {
      replicas: tag(1, nonNegative("Desired number of pods.", { default: 1 })),
      selector: tag(2, immutableSelector("Selects the pods of this Deployment; must match the template's labels. Immutable.")),
      template: tag(3, template("Pods to create; restartPolicy may only be Always.")),
      strategy: tag(4, withOpts(deploymentStrategy, { patchStrategy: "retainKeys", description: "Strategy used to replace old pods." })),
      minReadySeconds: tag(5, nonNegative("Seconds a new pod must be ready before it counts as available.")),
      revisionHistoryLimit: tag(6, nonNegative("Old ReplicaSets kept for rollback.", { default: 10 })),
      paused: tag(7, bool({ description: "The Deployment is paused." })),
      progressDeadlineSeconds: tag(9, nonNegative("Seconds without progress before the rollout is reported as failed.", { default: 600 })),
      podReplacementPolicy: tag(10, enumOf(["TerminationStarted", "TerminationComplete"], { description: "When replacement pods are created (alpha)." })),
    },
    { required: ["selector", "template"], description: "Desired state of a Deployment." },
  ),
);

export const deploymentCondition = A(
  "DeploymentCondition",
  obj(
    {
      type: tag(1, str({ description: "Type of the condition (Available, Progressing, ReplicaFailure)." })),
      status: tag(2, conditionStatus()),
      lastUpdateTime: tag(6, time({ description: "Last time the condition was updated." })),
      lastTransitionTime: tag(7, time({ description: "Last time the condition changed status." })),
      reason: tag(4, str({ description: "Machine-readable reason for the last transition." })),
      message: tag(5, str({ description: "Human-readable details of the last transition." })),
    },
    { required: ["type", "status"], description: "Deployment condition at a point in time." },
  ),
);

export const deploymentStatus = A(
  "DeploymentStatus",
  obj(
    {
      observedGeneration: tag(1, int64({ description: "Generation observed by the controller." })),
      replicas: tag(2, int32({ description: "Non-terminating pods targeted by this Deployment." })),
      updatedReplicas: tag(3, int32({ description: "Non-terminating pods with the desired template." })),
      readyReplicas: tag(7, int32({ description: "Non-terminating pods with a Ready condition." })),
      availableReplicas: tag(4, int32({ description: "Available non-terminating pods." })),
      unavailableReplicas: tag(5, int32({ description: "Pods still needed for full availability." })),
      terminatingReplicas: tag(9, int32({ description: "Terminating pods (alpha)." })),
      conditions: tag(6, conditionList(deploymentCondition, "Latest observations of the Deployment's state.")),
      collisionCount: tag(8, int32({ description: "Hash collisions seen when naming the newest ReplicaSet." })),
    },
    { description: "Observed state of a Deployment." },
  ),
);

// ---------------------------------------------------------------- ReplicaSet

export const replicaSetSpec = A(
  "ReplicaSetSpec",
  obj(
    {
      replicas: tag(1, nonNegative("Desired number of pods.", { default: 1 })),
      minReadySeconds: tag(4, nonNegative("Seconds a new pod must be ready before it counts as available.")),
      selector: tag(2, immutableSelector("Selects the pods of this ReplicaSet; must match the template's labels. Immutable.")),
      template: tag(3, template("Pods to create when too few exist.")),
    },
    { required: ["selector"], description: "Desired state of a ReplicaSet." },
  ),
);

export const replicaSetCondition = workloadCondition("ReplicaSetCondition");

export const replicaSetStatus = A(
  "ReplicaSetStatus",
  obj(
    {
      replicas: tag(1, int32({ description: "Most recently observed number of non-terminating pods." })),
      fullyLabeledReplicas: tag(2, int32({ description: "Non-terminating pods whose labels match the template's." })),
      readyReplicas: tag(4, int32({ description: "Non-terminating pods with a Ready condition." })),
      availableReplicas: tag(5, int32({ description: "Available non-terminating pods." })),
      terminatingReplicas: tag(7, int32({ description: "Terminating pods (alpha)." })),
      observedGeneration: tag(3, int64({ description: "Generation observed by the controller." })),
      conditions: tag(6, conditionList(replicaSetCondition, "Latest observations of the ReplicaSet's state.")),
    },
    { required: ["replicas"], description: "Observed state of a ReplicaSet." },
  ),
);

// ---------------------------------------------------------------- StatefulSet

export const rollingUpdateStatefulSetStrategy = A(
  "RollingUpdateStatefulSetStrategy",
  obj(
    {
      partition: tag(1, nonNegative("Ordinal at which the update is partitioned: pods below it keep the old revision.")),
      maxUnavailable: tag(2, intOrString({ description: "Pods that may be unavailable during the update (default 1, MaxUnavailableStatefulSet)." })),
    },
    { description: "Parameters of a rolling update of a StatefulSet." },
  ),
);

export const statefulSetUpdateStrategy = A(
  "StatefulSetUpdateStrategy",
  obj(
    {
      type: tag(1, enumOf(["RollingUpdate", "OnDelete"], { default: "RollingUpdate", description: "RollingUpdate (default) or OnDelete." })),
      rollingUpdate: tag(2, d(rollingUpdateStatefulSetStrategy, "Rolling update parameters; only with type RollingUpdate.")),
    },
    { description: "How the StatefulSet controller updates pods when the template changes." },
  ),
);

const retention = (description: string): Schema => enumOf(["Retain", "Delete"], { default: "Retain", description });

export const statefulSetPersistentVolumeClaimRetentionPolicy = A(
  "StatefulSetPersistentVolumeClaimRetentionPolicy",
  obj(
    {
      whenDeleted: tag(1, retention("What happens to claims from volumeClaimTemplates when the StatefulSet is deleted.")),
      whenScaled: tag(2, retention("What happens to claims of pods removed by a scale-down.")),
    },
    { description: "Lifecycle of claims created from volumeClaimTemplates." },
  ),
);

export const statefulSetOrdinals = A(
  "StatefulSetOrdinals",
  obj({ start: tag(1, nonNegative("Index of the first replica (default 0).")) }, { description: "Numbering of replica indices." }),
);

export const statefulSetSpec = A(
  "StatefulSetSpec",
  obj(
    {
      replicas: tag(1, nonNegative("Desired number of replicas.", { default: 1 })),
      selector: tag(2, immutableSelector("Selects the pods of this StatefulSet; must match the template's labels. Immutable.")),
      template: tag(3, template("Pods to create; each gets a stable identity <name>-<ordinal>.")),
      volumeClaimTemplates: tag(
        4,
        list(persistentVolumeClaim, { listType: "atomic", immutable: true, description: "Claims each pod gets, mounted by name. Immutable." }),
      ),
      serviceName: tag(5, str({ immutable: true, description: "Governing Service giving the pods their network identity. Immutable." })),
      podManagementPolicy: tag(
        6,
        enumOf(["OrderedReady", "Parallel"], { default: "OrderedReady", immutable: true, description: "How pods are created and deleted. Immutable." }),
      ),
      updateStrategy: tag(7, d(statefulSetUpdateStrategy, "How pods are updated when the template changes.")),
      revisionHistoryLimit: tag(8, nonNegative("Revisions kept in the history.", { default: 10 })),
      minReadySeconds: tag(9, nonNegative("Seconds a new pod must be ready before it counts as available.")),
      persistentVolumeClaimRetentionPolicy: tag(10, d(statefulSetPersistentVolumeClaimRetentionPolicy, "Lifecycle of claims from volumeClaimTemplates.")),
      ordinals: tag(11, d(statefulSetOrdinals, "Numbering of replica indices.")),
    },
    { required: ["selector", "template"], description: "Desired state of a StatefulSet." },
  ),
);

export const statefulSetCondition = workloadCondition("StatefulSetCondition");

export const statefulSetStatus = A(
  "StatefulSetStatus",
  obj(
    {
      observedGeneration: tag(1, int64({ description: "Generation observed by the controller." })),
      replicas: tag(2, int32({ description: "Pods created by the controller." })),
      readyReplicas: tag(3, int32({ description: "Pods with a Ready condition." })),
      currentReplicas: tag(4, int32({ description: "Pods at currentRevision." })),
      updatedReplicas: tag(5, int32({ description: "Pods at updateRevision." })),
      currentRevision: tag(6, str({ description: "Revision of the pods [0, currentReplicas)." })),
      updateRevision: tag(7, str({ description: "Revision of the pods [replicas-updatedReplicas, replicas)." })),
      collisionCount: tag(9, int32({ description: "Hash collisions seen when naming the newest ControllerRevision." })),
      conditions: tag(10, conditionList(statefulSetCondition, "Latest observations of the StatefulSet's state.")),
      availableReplicas: tag(11, int32({ description: "Available pods." })),
    },
    { required: ["replicas"], description: "Observed state of a StatefulSet." },
  ),
);

// ---------------------------------------------------------------- DaemonSet

export const rollingUpdateDaemonSet = A(
  "RollingUpdateDaemonSet",
  obj(
    {
      maxUnavailable: tag(1, intOrString({ default: 1, description: "Daemon pods that may be unavailable during the update (rounded up)." })),
      maxSurge: tag(2, intOrString({ default: 0, description: "Nodes that may run an updated pod next to the old one during the update." })),
    },
    { description: "Parameters of a rolling update of a DaemonSet." },
  ),
);

export const daemonSetUpdateStrategy = A(
  "DaemonSetUpdateStrategy",
  obj(
    {
      type: tag(1, enumOf(["RollingUpdate", "OnDelete"], { default: "RollingUpdate", description: "RollingUpdate (default) or OnDelete." })),
      rollingUpdate: tag(2, d(rollingUpdateDaemonSet, "Rolling update parameters; only with type RollingUpdate.")),
    },
    { description: "How daemon pods are replaced." },
  ),
);

export const daemonSetSpec = A(
  "DaemonSetSpec",
  obj(
    {
      selector: tag(1, immutableSelector("Selects the daemon pods; must match the template's labels. Immutable.")),
      template: tag(2, template("The pod run on every matching node; restartPolicy may only be Always.")),
      updateStrategy: tag(3, d(daemonSetUpdateStrategy, "How daemon pods are replaced.")),
      minReadySeconds: tag(4, nonNegative("Seconds a new pod must be ready before it counts as available.")),
      revisionHistoryLimit: tag(6, nonNegative("Revisions kept in the history.", { default: 10 })),
    },
    { required: ["selector", "template"], description: "Desired state of a DaemonSet." },
  ),
);

export const daemonSetCondition = workloadCondition("DaemonSetCondition");

export const daemonSetStatus = A(
  "DaemonSetStatus",
  obj(
    {
      currentNumberScheduled: tag(1, int32({ description: "Nodes running a daemon pod that should run one." })),
      numberMisscheduled: tag(2, int32({ description: "Nodes running a daemon pod that should not." })),
      desiredNumberScheduled: tag(3, int32({ description: "Nodes that should run the daemon pod." })),
      numberReady: tag(4, int32({ description: "Nodes whose daemon pod is Ready." })),
      observedGeneration: tag(5, int64({ description: "Generation observed by the controller." })),
      updatedNumberScheduled: tag(6, int32({ description: "Nodes running the updated daemon pod." })),
      numberAvailable: tag(7, int32({ description: "Nodes whose daemon pod is available." })),
      numberUnavailable: tag(8, int32({ description: "Nodes whose daemon pod is not available." })),
      collisionCount: tag(9, int32({ description: "Hash collisions seen when naming the newest ControllerRevision." })),
      conditions: tag(10, conditionList(daemonSetCondition, "Latest observations of the DaemonSet's state.")),
    },
    {
      required: ["currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady"],
      description: "Observed state of a DaemonSet.",
    },
  ),
);

// ---------------------------------------------------------------- table cells

const ps = (o: Record<string, unknown>): unknown => getPath(o, "spec.template.spec");
const containersCol: TableColumn = { name: "Containers", type: "string", priority: 1, description: "Names of each container in the template.", cell: (o) => containerNames(ps(o)) };
const imagesCol: TableColumn = { name: "Images", type: "string", priority: 1, description: "Images referenced by each container in the template.", cell: (o) => containerImages(ps(o)) };
const selectorCol = (description: string): TableColumn => ({
  name: "Selector",
  type: "string",
  priority: 1,
  description,
  cell: (o) => formatLabelSelector(getPath(o, "spec.selector")),
});
const int = (name: string, path: string, description: string): TableColumn => ({ name, type: "integer", description, cell: (o) => numAt(o, path) });

/** The owner marked as controller, printed `kind.group/name` in lower case (`daemonset.apps/fluentd`). */
function controllerOf(o: Record<string, unknown>): string {
  const ref = listAt(o, "metadata.ownerReferences").find((r) => getPath(r, "controller") === true);
  if (!ref) return "<none>";
  const apiVersion = String(getPath(ref, "apiVersion") ?? "");
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  const kind = String(getPath(ref, "kind") ?? "");
  const gk = group ? `${kind}.${group}` : kind;
  return `${gk.toLowerCase()}/${String(getPath(ref, "name") ?? "")}`;
}

// ---------------------------------------------------------------- kinds

export const deployment = A("Deployment", objectKind({ spec: tag(2, deploymentSpec), status: tag(3, deploymentStatus) }));
export const replicaSet = A("ReplicaSet", objectKind({ spec: tag(2, replicaSetSpec), status: tag(3, replicaSetStatus) }));
export const statefulSet = A("StatefulSet", objectKind({ spec: tag(2, statefulSetSpec), status: tag(3, statefulSetStatus) }));
export const daemonSet = A("DaemonSet", objectKind({ spec: tag(2, daemonSetSpec), status: tag(3, daemonSetStatus) }));
export const controllerRevision = A(
  "ControllerRevision",
  objectKind(
    {
      data: tag(2, anyValue({ type: "object", immutable: true, description: "Serialized state of this revision. Immutable." })),
      revision: tag(3, int64({ description: "Revision number of the state in data." })),
    },
    { required: ["revision"] },
  ),
);

const scale = { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".status.selector" };

export const kinds: KindDefinition[] = [
  {
    group: "apps",
    version: "v1",
    kind: "Deployment",
    plural: "deployments",
    singular: "deployment",
    namespaced: true,
    shortNames: ["deploy"],
    categories: ["all"],
    subresources: ["status", "scale"],
    scale,
    schema: deployment,
    protobuf: true,
    defaulter: defaultDeployment,
    validateKind: validateDeployment,
    tableColumns: [
      { name: "Ready", type: "string", description: "Number of the pod with ready state", cell: (o) => `${numAt(o, "status.readyReplicas")}/${numAt(o, "spec.replicas")}` },
      { name: "Up-to-date", type: "string", description: "Pods with the desired template.", cell: (o) => numAt(o, "status.updatedReplicas") },
      { name: "Available", type: "string", description: "Available pods.", cell: (o) => numAt(o, "status.availableReplicas") },
      ageColumn,
      containersCol,
      imagesCol,
      {
        name: "Selector",
        type: "string",
        priority: 1,
        description: "Label selector of the pods.",
        cell: (o) => {
          const s = formatLabelSelector(getPath(o, "spec.selector"));
          return s === "<none>" ? "" : s;
        },
      },
    ],
  },
  {
    group: "apps",
    version: "v1",
    kind: "ReplicaSet",
    plural: "replicasets",
    singular: "replicaset",
    namespaced: true,
    shortNames: ["rs"],
    categories: ["all"],
    subresources: ["status", "scale"],
    scale,
    schema: replicaSet,
    protobuf: true,
    selectableFields: ["status.replicas"],
    defaulter: defaultReplicaSet,
    validateKind: validateReplicaSet,
    tableColumns: [
      int("Desired", "spec.replicas", "Desired number of pods."),
      int("Current", "status.replicas", "Observed number of pods."),
      int("Ready", "status.readyReplicas", "Pods with a Ready condition."),
      ageColumn,
      containersCol,
      imagesCol,
      selectorCol("Label selector of the pods."),
    ],
  },
  {
    group: "apps",
    version: "v1",
    kind: "StatefulSet",
    plural: "statefulsets",
    singular: "statefulset",
    namespaced: true,
    shortNames: ["sts"],
    categories: ["all"],
    subresources: ["status", "scale"],
    scale,
    schema: statefulSet,
    protobuf: true,
    defaulter: defaultStatefulSet,
    validateKind: validateStatefulSet,
    tableColumns: [
      { name: "Ready", type: "string", description: "Number of the pod with ready state", cell: (o) => `${numAt(o, "status.readyReplicas")}/${numAt(o, "spec.replicas")}` },
      ageColumn,
      containersCol,
      imagesCol,
    ],
  },
  {
    group: "apps",
    version: "v1",
    kind: "DaemonSet",
    plural: "daemonsets",
    singular: "daemonset",
    namespaced: true,
    shortNames: ["ds"],
    categories: ["all"],
    subresources: ["status"],
    schema: daemonSet,
    protobuf: true,
    defaulter: defaultDaemonSet,
    validateKind: validateDaemonSet,
    tableColumns: [
      int("Desired", "status.desiredNumberScheduled", "Nodes that should run the daemon pod."),
      int("Current", "status.currentNumberScheduled", "Nodes running the daemon pod."),
      int("Ready", "status.numberReady", "Nodes whose daemon pod is Ready."),
      int("Up-to-date", "status.updatedNumberScheduled", "Nodes running the updated daemon pod."),
      int("Available", "status.numberAvailable", "Nodes whose daemon pod is available."),
      { name: "Node Selector", type: "string", description: "Node selector of the pod template.", cell: (o) => formatSelectorMap(getPath(o, "spec.template.spec.nodeSelector")) },
      ageColumn,
      containersCol,
      imagesCol,
      selectorCol("Label selector of the daemon pods."),
    ],
  },
  {
    group: "apps",
    version: "v1",
    kind: "ControllerRevision",
    plural: "controllerrevisions",
    singular: "controllerrevision",
    namespaced: true,
    schema: controllerRevision,
    protobuf: true,
    tableColumns: [
      { name: "Controller", type: "string", description: "Controller of the object", cell: controllerOf },
      { name: "Revision", type: "string", description: "Revision of the state in data.", cell: (o) => numAt(o, "revision") },
      ageColumn,
    ],
  },
];
