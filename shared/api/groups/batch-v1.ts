/**
 * batch/v1: Job and CronJob. Protobuf field numbers are the platform's
 * (batch/v1 generated.proto). Job defaults are applied by the Job's kind
 * defaulter only (as the platform does): a CronJob's `jobTemplate` is not
 * defaulted until a Job is created from it. Rules live in batch-v1-rules.ts.
 */
import { bool, enumOf, int32, int64, list, named, obj, str, tag, time, withOpts } from "../../schema/build.ts";
import type { KindDefinition, Schema, TableColumn } from "../../schema/types.ts";
import { ageColumn, containerImages, containerNames, formatLabelSelector, getPath, humanDuration, listAt, numAt, since } from "../table-cells.ts";
import { objectReference, podTemplateSpec } from "./core-v1.ts";
import { defaultCronJob, defaultJob, validateCronJob, validateJob } from "./batch-v1-rules.ts";
import { labelSelector, objectKind, objectMeta } from "./meta-v1.ts";

const B = (name: string, schema: Schema): Schema => named("batch", "v1", name, schema);
const d = (schema: Schema, description: string): Schema => withOpts(schema, { description });
const nonNegative = (description: string, opts: { default?: number } = {}): Schema => int32({ minimum: 0, description, ...opts });

/** Marks the named top-level properties of an object schema immutable (the definition name is kept). */
function immutableFields(schema: Schema, fields: string[]): Schema {
  const properties: Record<string, Schema> = {};
  for (const [k, v] of Object.entries(schema.properties ?? {})) properties[k] = fields.includes(k) ? { ...v, immutable: true } : v;
  return { ...schema, properties };
}

export const podFailurePolicyOnExitCodesRequirement = B(
  "PodFailurePolicyOnExitCodesRequirement",
  obj(
    {
      containerName: tag(1, str({ description: "Restricts the check to this container; all containers when unset." })),
      operator: tag(2, enumOf(["In", "NotIn"], { description: "Relation between the exit codes and values." })),
      values: tag(3, list(int32(), { listType: "set", maxItems: 255, description: "Exit codes, ordered and without duplicates." })),
    },
    { required: ["operator", "values"], description: "Requirement on the container exit codes of a failed pod." },
  ),
);

export const podFailurePolicyOnPodConditionsPattern = B(
  "PodFailurePolicyOnPodConditionsPattern",
  obj(
    {
      type: tag(1, str({ description: "Pod condition type to match." })),
      status: tag(2, enumOf(["True", "False", "Unknown"], { description: "Pod condition status to match (defaults to True in Jobs)." })),
    },
    { required: ["type"], description: "Pattern matching a pod condition." },
  ),
);

export const podFailurePolicyRule = B(
  "PodFailurePolicyRule",
  obj(
    {
      action: tag(1, enumOf(["FailJob", "FailIndex", "Ignore", "Count"], { description: "Action taken when the rule matches." })),
      onExitCodes: tag(2, d(podFailurePolicyOnExitCodesRequirement, "Requirement on container exit codes.")),
      onPodConditions: tag(3, list(podFailurePolicyOnPodConditionsPattern, { listType: "atomic", maxItems: 20, description: "Pod condition patterns; any match satisfies the rule." })),
    },
    { required: ["action"], description: "How a pod failure is handled when the requirements hold." },
  ),
);

export const podFailurePolicy = B(
  "PodFailurePolicy",
  obj(
    { rules: tag(1, list(podFailurePolicyRule, { listType: "atomic", maxItems: 20, description: "Rules evaluated in order; the first match applies." })) },
    { required: ["rules"], description: "How failed pods count towards the backoff limit." },
  ),
);

export const successPolicyRule = B(
  "SuccessPolicyRule",
  obj(
    {
      succeededIndexes: tag(1, str({ description: "Indexes that must succeed, as intervals (`1,3-5,7`)." })),
      succeededCount: tag(2, int32({ description: "Minimal number of succeeded indexes." })),
    },
    { description: "A rule declaring the Job succeeded." },
  ),
);

export const successPolicy = B(
  "SuccessPolicy",
  obj(
    { rules: tag(1, list(successPolicyRule, { listType: "atomic", maxItems: 20, description: "Alternative rules; the first met declares success." })) },
    { required: ["rules"], description: "When an Indexed Job can be declared succeeded." },
  ),
);

/** JobSpec as it appears in a CronJob's template: no immutability (the template may change). */
export const jobSpec = B(
  "JobSpec",
  obj(
    {
      parallelism: tag(1, nonNegative("Maximum number of pods running at once.")),
      completions: tag(2, nonNegative("Number of successfully finished pods needed.")),
      activeDeadlineSeconds: tag(3, int64({ minimum: 0, description: "Seconds the Job may be active before it is terminated." })),
      podFailurePolicy: tag(11, d(podFailurePolicy, "How failed pods are handled. Immutable.")),
      successPolicy: tag(16, d(successPolicy, "When the Job is declared succeeded. Immutable.")),
      backoffLimit: tag(7, nonNegative("Retries before the Job is marked failed (default 6).")),
      backoffLimitPerIndex: tag(12, nonNegative("Retries per index of an Indexed Job. Immutable.")),
      maxFailedIndexes: tag(13, nonNegative("Failed indexes before the whole Job fails.")),
      selector: tag(4, withOpts(labelSelector, { description: "Selects the Job's pods; normally generated by the system." })),
      manualSelector: tag(5, bool({ description: "The user, not the system, chooses labels and selector." })),
      template: tag(6, withOpts(podTemplateSpec, { description: "Pods to run; restartPolicy must be OnFailure or Never." })),
      ttlSecondsAfterFinished: tag(8, nonNegative("Seconds after finishing when the Job may be deleted.")),
      completionMode: tag(9, enumOf(["NonIndexed", "Indexed"], { description: "How completions are tracked (default NonIndexed)." })),
      suspend: tag(10, bool({ description: "Whether the controller should create pods (default false)." })),
      podReplacementPolicy: tag(14, enumOf(["TerminatingOrFailed", "Failed"], { description: "When replacement pods are created." })),
      managedBy: tag(15, str({ maxLength: 63, description: "Controller that manages the Job (domain-prefixed path). Immutable." })),
    },
    { required: ["template"], description: "Desired behaviour of a Job." },
  ),
);

/** JobSpec of a Job: selector, template and the per-index fields are immutable. */
export const jobSpecOfJob = immutableFields(jobSpec, [
  "selector",
  "template",
  "completionMode",
  "podFailurePolicy",
  "successPolicy",
  "backoffLimitPerIndex",
  "managedBy",
]);

export const jobCondition = B(
  "JobCondition",
  obj(
    {
      type: tag(1, str({ description: "Type of the condition (Complete, Failed, Suspended, FailureTarget, SuccessCriteriaMet)." })),
      status: tag(2, enumOf(["True", "False", "Unknown"], { description: "Status of the condition." })),
      lastProbeTime: tag(3, time({ description: "Last time the condition was checked." })),
      lastTransitionTime: tag(4, time({ description: "Last time the condition changed status." })),
      reason: tag(5, str({ description: "Machine-readable reason for the last transition." })),
      message: tag(6, str({ description: "Human-readable details of the last transition." })),
    },
    { required: ["type", "status"], description: "Job condition at a point in time." },
  ),
);

export const uncountedTerminatedPods = B(
  "UncountedTerminatedPods",
  obj(
    {
      succeeded: tag(1, list(str(), { listType: "set", description: "UIDs of succeeded pods not yet counted." })),
      failed: tag(2, list(str(), { listType: "set", description: "UIDs of failed pods not yet counted." })),
    },
    { description: "Terminated pods not yet reflected in the counters." },
  ),
);

export const jobStatus = B(
  "JobStatus",
  obj(
    {
      conditions: tag(
        1,
        list(jobCondition, { listType: "atomic", patchStrategy: "merge", patchMergeKey: "type", description: "Latest observations of the Job's state." }),
      ),
      startTime: tag(2, time({ description: "When the controller started processing the Job." })),
      completionTime: tag(3, time({ description: "When the Job completed successfully." })),
      active: tag(4, int32({ description: "Pending and running pods that are not terminating." })),
      succeeded: tag(5, int32({ description: "Pods that reached phase Succeeded." })),
      failed: tag(6, int32({ description: "Pods that reached phase Failed." })),
      terminating: tag(11, int32({ description: "Pods that are terminating." })),
      completedIndexes: tag(7, str({ description: "Completed indexes of an Indexed Job (`1,3-5,7`)." })),
      failedIndexes: tag(10, str({ description: "Failed indexes when backoffLimitPerIndex is set." })),
      uncountedTerminatedPods: tag(8, d(uncountedTerminatedPods, "Terminated pods not yet counted.")),
      ready: tag(9, int32({ description: "Active pods with a Ready condition." })),
    },
    { description: "Observed state of a Job." },
  ),
);

export const jobTemplateSpec = B(
  "JobTemplateSpec",
  obj(
    { metadata: tag(1, withOpts(objectMeta, { description: "Metadata of the Jobs created from this template." })), spec: tag(2, jobSpec) },
    { description: "Template of the Jobs a CronJob creates." },
  ),
);

export const cronJobSpec = B(
  "CronJobSpec",
  obj(
    {
      schedule: tag(1, str({ description: "Schedule in cron format." })),
      timeZone: tag(8, str({ description: "IANA time zone of the schedule; the controller's zone when unset." })),
      startingDeadlineSeconds: tag(2, int64({ minimum: 0, description: "Deadline for starting a Job that missed its time." })),
      concurrencyPolicy: tag(3, enumOf(["Allow", "Forbid", "Replace"], { default: "Allow", description: "How concurrent runs are treated." })),
      suspend: tag(4, bool({ default: false, description: "Suspends subsequent runs." })),
      jobTemplate: tag(5, d(jobTemplateSpec, "The Job created at each run.")),
      successfulJobsHistoryLimit: tag(6, nonNegative("Successful finished Jobs kept.", { default: 3 })),
      failedJobsHistoryLimit: tag(7, nonNegative("Failed finished Jobs kept.", { default: 1 })),
    },
    { required: ["schedule", "jobTemplate"], description: "Schedule and template of a CronJob." },
  ),
);

export const cronJobStatus = B(
  "CronJobStatus",
  obj(
    {
      active: tag(1, list(objectReference, { listType: "atomic", description: "Currently running Jobs." })),
      lastScheduleTime: tag(4, time({ description: "Last time a Job was scheduled." })),
      lastSuccessfulTime: tag(5, time({ description: "Last time a Job completed successfully." })),
    },
    { description: "Observed state of a CronJob." },
  ),
);

export const job = B("Job", objectKind({ spec: tag(2, jobSpecOfJob), status: tag(3, jobStatus) }));
export const cronJob = B("CronJob", objectKind({ spec: tag(2, cronJobSpec), status: tag(3, cronJobStatus) }));

// ---------------------------------------------------------------- table cells

function conditionTrue(o: Record<string, unknown>, type: string): boolean {
  const c = listAt(o, "status.conditions").find((x) => getPath(x, "type") === type);
  return c !== undefined && getPath(c, "status") === "True";
}

function jobStatusCell(o: Record<string, unknown>): string {
  if (conditionTrue(o, "Complete")) return "Complete";
  if (conditionTrue(o, "Failed")) return "Failed";
  if (getPath(o, "metadata.deletionTimestamp")) return "Terminating";
  if (conditionTrue(o, "Suspended")) return "Suspended";
  if (conditionTrue(o, "FailureTarget")) return "FailureTarget";
  return "Running";
}

function jobCompletions(o: Record<string, unknown>): string {
  const succeeded = numAt(o, "status.succeeded");
  const completions = getPath(o, "spec.completions");
  if (typeof completions === "number") return `${succeeded}/${completions}`;
  const parallelism = numAt(o, "spec.parallelism");
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(o: Record<string, unknown>, now = Date.now()): string {
  const start = getPath(o, "status.startTime");
  if (typeof start !== "string") return "";
  const end = getPath(o, "status.completionTime");
  return typeof end === "string" ? humanDuration(Date.parse(end) - Date.parse(start)) : since(start, now);
}

function boolPtr(v: unknown): string {
  return v === true ? "True" : v === false ? "False" : "<unset>";
}

const templateCols = (specPath: string, selectorPath: string): TableColumn[] => [
  { name: "Containers", type: "string", priority: 1, description: "Names of each container in the template.", cell: (o) => containerNames(getPath(o, specPath)) },
  { name: "Images", type: "string", priority: 1, description: "Images referenced by each container in the template.", cell: (o) => containerImages(getPath(o, specPath)) },
  { name: "Selector", type: "string", priority: 1, description: "Label selector of the pods.", cell: (o) => formatLabelSelector(getPath(o, selectorPath)) },
];

export const kinds: KindDefinition[] = [
  {
    group: "batch",
    version: "v1",
    kind: "Job",
    plural: "jobs",
    singular: "job",
    namespaced: true,
    categories: ["all"],
    subresources: ["status"],
    schema: job,
    protobuf: true,
    // The platform's field label is `status.successful`; it selects on `status.succeeded`.
    selectableFields: ["status.successful"],
    defaulter: defaultJob,
    validateKind: validateJob,
    tableColumns: [
      { name: "Status", type: "string", description: "Status of the job.", cell: jobStatusCell },
      { name: "Completions", type: "string", description: "Succeeded pods out of the desired completions.", cell: jobCompletions },
      { name: "Duration", type: "string", description: "Time required to complete the job.", cell: (o) => jobDuration(o) },
      ageColumn,
      ...templateCols("spec.template.spec", "spec.selector"),
    ],
  },
  {
    group: "batch",
    version: "v1",
    kind: "CronJob",
    plural: "cronjobs",
    singular: "cronjob",
    namespaced: true,
    shortNames: ["cj"],
    categories: ["all"],
    subresources: ["status"],
    schema: cronJob,
    protobuf: true,
    defaulter: defaultCronJob,
    validateKind: validateCronJob,
    tableColumns: [
      { name: "Schedule", type: "string", description: "Schedule in cron format.", cell: (o) => getPath(o, "spec.schedule") ?? "" },
      { name: "Timezone", type: "string", description: "Time zone of the schedule.", cell: (o) => getPath(o, "spec.timeZone") ?? "<none>" },
      { name: "Suspend", type: "boolean", description: "Whether subsequent runs are suspended.", cell: (o) => boolPtr(getPath(o, "spec.suspend")) },
      { name: "Active", type: "integer", description: "Currently running Jobs.", cell: (o) => listAt(o, "status.active").length },
      {
        name: "Last Schedule",
        type: "string",
        description: "Last time a Job was scheduled.",
        cell: (o) => (getPath(o, "status.lastScheduleTime") ? since(getPath(o, "status.lastScheduleTime")) : "<none>"),
      },
      ageColumn,
      ...templateCols("spec.jobTemplate.spec.template.spec", "spec.jobTemplate.spec.selector"),
    ],
  },
];
