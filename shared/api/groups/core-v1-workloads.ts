/**
 * core/v1 workload kinds: Pod (with its table cells), PodTemplate, Binding
 * and ReplicationController.
 */
import { int32, int64, list, mapOf, obj, str, tag, time } from "../../schema/build.ts";
import { fieldErrors } from "../../schema/field-errors.ts";
import type { FieldError, KindDefinition, TableColumn } from "../../schema/types.ts";
import { ageColumn, containerImages, containerNames, formatSelectorMap, getPath, listAt, numAt, objAt, orNone, since, strAt } from "../table-cells.ts";
import { objectKind } from "./meta-v1.ts";
import { C, conditionStatus, objectReference } from "./core-v1-common.ts";
import { defaultPod, defaultPodTemplate, immutablePodSpec, podSpec, podStatus, podTemplateSpec, validatePodSpecRules } from "./core-v1-pod.ts";

type Obj = Record<string, unknown>;

// ---- Pod ----

function isRestartableInit(c: unknown): boolean {
  return strAt(c, "restartPolicy") === "Always";
}

function hasCondition(pod: Obj, type: string, status: string, reason?: string): boolean {
  return listAt(pod, "status.conditions").some(
    (c) => strAt(c, "type") === type && strAt(c, "status") === status && (reason === undefined || strAt(c, "reason") === reason),
  );
}

interface PodSummary {
  ready: string;
  status: string;
  restarts: string;
}

function terminatedReason(t: Obj): string {
  const r = strAt(t, "reason");
  if (r) return r;
  const signal = numAt(t, "signal");
  return signal !== 0 ? `Signal:${signal}` : `ExitCode:${numAt(t, "exitCode")}`;
}

/** READY, STATUS and RESTARTS of a pod as the CLI computes them. */
export function summarizePod(pod: Obj, now: number = Date.now()): PodSummary {
  const initSpecs = listAt(pod, "spec.initContainers");
  const sidecars = new Set(initSpecs.filter(isRestartableInit).map((c) => strAt(c, "name")));
  let total = listAt(pod, "spec.containers").length + sidecars.size;
  if (total === 0) total = listAt(pod, "spec.containers").length;
  let readyCount = 0;
  let restarts = 0;
  let lastRestart = 0;
  const noteRestart = (cs: unknown) => {
    const finished = strAt(cs, "lastState.terminated.finishedAt");
    if (finished) lastRestart = Math.max(lastRestart, Date.parse(finished) || 0);
  };

  let reason = strAt(pod, "status.reason") || strAt(pod, "status.phase");
  if (hasCondition(pod, "PodScheduled", "False", "SchedulingGated")) reason = "SchedulingGated";

  let initializing = false;
  let sidecarRestarts = 0;
  let sidecarLastRestart = 0;
  const initStatuses = listAt(pod, "status.initContainerStatuses");
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i];
    restarts += numAt(cs, "restartCount");
    noteRestart(cs);
    const name = strAt(cs, "name");
    if (sidecars.has(name)) {
      sidecarRestarts += numAt(cs, "restartCount");
      sidecarLastRestart = lastRestart;
      if (getPath(cs, "started") === true && getPath(cs, "ready") === true) readyCount++;
    }
    const term = objAt(cs, "state.terminated");
    const waitingReason = strAt(cs, "state.waiting.reason");
    if (Object.keys(term).length > 0 && numAt(term, "exitCode") === 0) continue;
    if (sidecars.has(name) && getPath(cs, "started") === true) continue;
    if (Object.keys(term).length > 0) reason = `Init:${terminatedReason(term)}`;
    else if (waitingReason && waitingReason !== "PodInitializing") reason = `Init:${waitingReason}`;
    else reason = `Init:${i}/${initSpecs.length}`;
    initializing = true;
    break;
  }

  if (!initializing || hasCondition(pod, "Initialized", "True")) {
    restarts = sidecarRestarts;
    lastRestart = sidecarLastRestart;
    let hasRunning = false;
    const statuses = listAt(pod, "status.containerStatuses");
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i];
      restarts += numAt(cs, "restartCount");
      noteRestart(cs);
      const waitingReason = strAt(cs, "state.waiting.reason");
      const term = objAt(cs, "state.terminated");
      if (waitingReason) reason = waitingReason;
      else if (Object.keys(term).length > 0) reason = terminatedReason(term);
      else if (getPath(cs, "ready") === true && Object.keys(objAt(cs, "state.running")).length > 0) {
        hasRunning = true;
        readyCount++;
      }
    }
    if (reason === "Completed" && hasRunning) reason = hasCondition(pod, "Ready", "True") ? "Running" : "NotReady";
  }

  const phase = strAt(pod, "status.phase");
  if (strAt(pod, "metadata.deletionTimestamp")) {
    if (strAt(pod, "status.reason") === "NodeLost") reason = "Unknown";
    else if (phase !== "Succeeded" && phase !== "Failed") reason = "Terminating";
  }

  let restartText = String(restarts);
  if (restarts !== 0 && lastRestart > 0) restartText += ` (${since(new Date(lastRestart).toISOString(), now)} ago)`;
  return { ready: `${readyCount}/${total}`, status: reason, restarts: restartText };
}

function readinessGates(pod: Obj): string {
  const gates = listAt(pod, "spec.readinessGates");
  if (gates.length === 0) return "<none>";
  const trueCount = gates.filter((g) => hasCondition(pod, strAt(g, "conditionType"), "True")).length;
  return `${trueCount}/${gates.length}`;
}

export const podColumns: TableColumn[] = [
  { name: "Ready", type: "string", description: "Ready containers out of all containers.", cell: (o) => summarizePod(o).ready },
  { name: "Status", type: "string", description: "Aggregated pod status.", cell: (o) => summarizePod(o).status },
  { name: "Restarts", type: "string", description: "Container restarts and the time since the last one.", cell: (o) => summarizePod(o).restarts },
  ageColumn,
  { name: "IP", type: "string", priority: 1, description: "Pod IP.", cell: (o) => orNone(strAt(o, "status.podIP")) },
  { name: "Node", type: "string", priority: 1, description: "Node the pod runs on.", cell: (o) => orNone(strAt(o, "spec.nodeName")) },
  { name: "Nominated Node", type: "string", priority: 1, description: "Node nominated by preemption.", cell: (o) => orNone(strAt(o, "status.nominatedNodeName")) },
  { name: "Readiness Gates", type: "string", priority: 1, description: "Readiness gates that are True.", cell: readinessGates },
];

function validatePod(pod: Obj): FieldError[] {
  return validatePodSpecRules(pod.spec, "spec");
}

export const podKind: KindDefinition = {
  group: "core",
  version: "v1",
  kind: "Pod",
  plural: "pods",
  singular: "pod",
  namespaced: true,
  shortNames: ["po"],
  categories: ["all"],
  subresources: ["status", "binding", "eviction", "log", "exec", "attach", "portforward", "proxy", "ephemeralcontainers", "resize"],
  schema: C("Pod", objectKind({ spec: tag(2, immutablePodSpec(podSpec)), status: tag(3, podStatus) })),
  tableColumns: podColumns,
  protobuf: true,
  allowUnconditionalUpdate: true,
  selectableFields: [
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
  ],
  defaulter: defaultPod,
  validateKind: validatePod,
};

// ---- PodTemplate ----

export const podTemplateKind: KindDefinition = {
  group: "core",
  version: "v1",
  kind: "PodTemplate",
  plural: "podtemplates",
  singular: "podtemplate",
  namespaced: true,
  schema: C("PodTemplate", objectKind({ template: tag(2, podTemplateSpec) })),
  tableColumns: [
    { name: "Containers", type: "string", description: "Container names.", cell: (o) => containerNames(getPath(o, "template.spec")) },
    { name: "Images", type: "string", description: "Container images.", cell: (o) => containerImages(getPath(o, "template.spec")) },
    { name: "Pod Labels", type: "string", description: "Labels of the template.", cell: (o) => formatSelectorMap(getPath(o, "template.metadata.labels")) },
  ],
  protobuf: true,
  allowUnconditionalUpdate: true,
  defaulter: (o) => defaultPodTemplate(o.template),
  validateKind: (o) => validatePodSpecRules(getPath(o, "template.spec"), "template.spec"),
};

// ---- Binding ----

export const bindingKind: KindDefinition = {
  group: "core",
  version: "v1",
  kind: "Binding",
  plural: "bindings",
  singular: "binding",
  namespaced: true,
  verbs: ["create"],
  virtual: true,
  schema: C("Binding", objectKind({ target: tag(2, objectReference) }, { required: ["target"] })),
  protobuf: true,
};

// ---- ReplicationController ----

export const replicationControllerCondition = C(
  "ReplicationControllerCondition",
  obj(
    { type: tag(1, str()), status: tag(2, conditionStatus()), lastTransitionTime: tag(3, time()), reason: tag(4, str()), message: tag(5, str()) },
    { required: ["type", "status"] },
  ),
);

export const replicationControllerSpec = C(
  "ReplicationControllerSpec",
  obj(
    {
      replicas: tag(1, int32({ default: 1, minimum: 0, description: "Desired number of pods." })),
      minReadySeconds: tag(4, int32({ default: 0, minimum: 0, description: "Seconds a pod must be ready to count as available." })),
      selector: tag(2, mapOf(str(), { mapType: "atomic", description: "Labels of the managed pods; the template's labels when empty." })),
      template: tag(3, podTemplateSpec),
    },
    { description: "Desired state of a replication controller." },
  ),
);

export const replicationControllerStatus = C(
  "ReplicationControllerStatus",
  obj(
    {
      replicas: tag(1, int32({ minimum: 0 })),
      fullyLabeledReplicas: tag(2, int32({ minimum: 0 })),
      readyReplicas: tag(4, int32({ minimum: 0 })),
      availableReplicas: tag(5, int32({ minimum: 0 })),
      observedGeneration: tag(3, int64()),
      conditions: tag(6, list(replicationControllerCondition, { listType: "map", mapKeys: ["type"], patchStrategy: "merge", patchMergeKey: "type" })),
    },
    { required: ["replicas"], description: "Observed state of a replication controller." },
  ),
);

function defaultReplicationController(rc: Obj): void {
  const spec = rc.spec;
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) return;
  const s = spec as Obj;
  defaultPodTemplate(s.template);
  const templateLabels = getPath(s, "template.metadata.labels");
  const hasLabels = (v: unknown) => typeof v === "object" && v !== null && Object.keys(v).length > 0;
  if (hasLabels(templateLabels)) {
    if (!hasLabels(s.selector)) s.selector = { ...(templateLabels as Obj) };
    const meta = (rc.metadata ??= {}) as Obj;
    if (!hasLabels(meta.labels)) meta.labels = { ...(templateLabels as Obj) };
  }
}

/** Template rules, restart policy Always, and a selector that matches the template's labels. */
function validateReplicationController(rc: Obj): FieldError[] {
  const template = getPath(rc, "spec.template");
  if (template === undefined) return [];
  const errs = validatePodSpecRules(getPath(template, "spec"), "spec.template.spec");
  const restart = strAt(template, "spec.restartPolicy");
  if (restart !== "" && restart !== "Always") errs.push(fieldErrors.notSupported("spec.template.spec.restartPolicy", restart, ["Always"]));
  const selector = objAt(rc, "spec.selector");
  const labels = objAt(template, "metadata.labels");
  if (Object.keys(selector).length > 0 && !Object.entries(selector).every(([k, v]) => labels[k] === v)) {
    errs.push(fieldErrors.invalid("spec.template.metadata.labels", labels, "`selector` does not match template `labels`"));
  }
  return errs;
}

export const replicationControllerKind: KindDefinition = {
  group: "core",
  version: "v1",
  kind: "ReplicationController",
  plural: "replicationcontrollers",
  singular: "replicationcontroller",
  namespaced: true,
  shortNames: ["rc"],
  categories: ["all"],
  subresources: ["status", "scale"],
  scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".spec.selector" },
  schema: C("ReplicationController", objectKind({ spec: tag(2, replicationControllerSpec), status: tag(3, replicationControllerStatus) })),
  tableColumns: [
    { name: "Desired", type: "integer", description: "Desired replicas.", cell: (o) => numAt(o, "spec.replicas") },
    { name: "Current", type: "integer", description: "Current replicas.", cell: (o) => numAt(o, "status.replicas") },
    { name: "Ready", type: "integer", description: "Ready replicas.", cell: (o) => numAt(o, "status.readyReplicas") },
    ageColumn,
    { name: "Containers", type: "string", priority: 1, description: "Container names.", cell: (o) => containerNames(getPath(o, "spec.template.spec")) },
    { name: "Images", type: "string", priority: 1, description: "Container images.", cell: (o) => containerImages(getPath(o, "spec.template.spec")) },
    { name: "Selector", type: "string", priority: 1, description: "Pod selector.", cell: (o) => formatSelectorMap(getPath(o, "spec.selector")) },
  ],
  protobuf: true,
  allowUnconditionalUpdate: true,
  selectableFields: ["status.replicas"],
  defaulter: defaultReplicationController,
  validateKind: validateReplicationController,
};
