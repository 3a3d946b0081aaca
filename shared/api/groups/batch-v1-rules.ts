/**
 * batch/v1 defaulting and cross-field validation (the platform's
 * `SetDefaults_Job`, `SetDefaults_CronJob`, `ValidateJob`, `ValidateCronJob`),
 * including the standard five-field cron schedule syntax with descriptors.
 */
import { fieldErrors } from "../../schema/field-errors.ts";
import type { FieldError } from "../../schema/types.ts";
import { defaultTemplateAt, ensureObj, isObj, objAtPath, setDefault, validateSelectorAndTemplate, validateTemplateAt, type Obj } from "./workload-rules.ts";

const INT32_MAX = 2147483647;
/** Job names get an 11-character suffix, so CronJob names are limited to 52. */
export const CRONJOB_NAME_MAX_LENGTH = 52;

// ---------------------------------------------------------------- defaulting

export function defaultJob(obj: Obj): void {
  const spec = ensureObj(obj, "spec");
  if (spec.completions == null && spec.parallelism == null) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  setDefault(spec, "parallelism", 1);
  setDefault(spec, "backoffLimit", spec.backoffLimitPerIndex != null ? INT32_MAX : 6);
  const templateLabels = objAtPath(spec, "template.metadata.labels");
  const meta = ensureObj(obj, "metadata");
  if (templateLabels && (!isObj(meta.labels) || Object.keys(meta.labels).length === 0)) meta.labels = { ...templateLabels };
  setDefault(spec, "completionMode", "NonIndexed");
  setDefault(spec, "suspend", false);
  const pfp = objAtPath(spec, "podFailurePolicy");
  if (pfp && Array.isArray(pfp.rules)) {
    for (const rule of pfp.rules) {
      if (!isObj(rule) || !Array.isArray(rule.onPodConditions)) continue;
      for (const pattern of rule.onPodConditions) if (isObj(pattern) && !pattern.status) pattern.status = "True";
    }
  }
  setDefault(spec, "podReplacementPolicy", pfp ? "Failed" : "TerminatingOrFailed");
  defaultTemplateAt(obj, "spec.template");
}

export function defaultCronJob(obj: Obj): void {
  const spec = ensureObj(obj, "spec");
  if (!spec.concurrencyPolicy) spec.concurrencyPolicy = "Allow";
  setDefault(spec, "suspend", false);
  setDefault(spec, "successfulJobsHistoryLimit", 3);
  setDefault(spec, "failedJobsHistoryLimit", 1);
  // The template's pod spec gets core defaults; the Job defaults wait until a Job is created.
  defaultTemplateAt(obj, "spec.jobTemplate.spec.template");
}

// ---------------------------------------------------------------- Job

const JOB_RESTART = { restartPolicies: ["OnFailure", "Never"], restartPolicyOptional: false };

/** Rules of a JobSpec at `path` (a Job's `spec` or a CronJob's `spec.jobTemplate.spec`). */
function validateJobSpec(spec: Obj, path: string): FieldError[] {
  const errs = [...validateSelectorAndTemplate(spec, path, JOB_RESTART), ...validateTemplateAt(spec.template, `${path}.template`)];
  const indexed = spec.completionMode === "Indexed";
  if (indexed && spec.completions == null) errs.push(fieldErrors.required(`${path}.completions`, "when completion mode is Indexed"));
  if (spec.backoffLimitPerIndex != null && !indexed) errs.push(fieldErrors.forbidden(`${path}.backoffLimitPerIndex`, "requires indexed completion mode"));
  if (spec.maxFailedIndexes != null && spec.backoffLimitPerIndex == null) {
    errs.push(fieldErrors.forbidden(`${path}.maxFailedIndexes`, "cannot set maxFailedIndexes when backoffLimitPerIndex is nil"));
  }
  if (spec.successPolicy != null && !indexed) errs.push(fieldErrors.invalid(`${path}.successPolicy`, spec.successPolicy, "requires indexed completion mode"));
  if (spec.podFailurePolicy != null) {
    const rp = objAtPath(spec, "template.spec")?.restartPolicy;
    if (rp !== undefined && rp !== "Never") {
      errs.push(fieldErrors.invalid(`${path}.template.spec.restartPolicy`, rp, 'only "Never" is supported when podFailurePolicy is specified'));
    }
    if (spec.podReplacementPolicy !== undefined && spec.podReplacementPolicy !== "Failed") {
      errs.push(fieldErrors.notSupported(`${path}.podReplacementPolicy`, spec.podReplacementPolicy, ["Failed"]));
    }
  }
  return errs;
}

export function validateJob(obj: Obj): FieldError[] {
  return validateJobSpec(isObj(obj.spec) ? obj.spec : {}, "spec");
}

// ---------------------------------------------------------------- CronJob

export function validateCronJob(obj: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const name = objAtPath(obj, "metadata")?.name;
  if (typeof name === "string" && name.length > CRONJOB_NAME_MAX_LENGTH) {
    errs.push(fieldErrors.invalid("metadata.name", name, `must be no more than ${CRONJOB_NAME_MAX_LENGTH} characters`));
  }
  const spec = isObj(obj.spec) ? obj.spec : {};
  if (typeof spec.schedule === "string") {
    if (spec.schedule === "") errs.push(fieldErrors.required("spec.schedule"));
    else if (spec.schedule.includes("TZ")) {
      errs.push(fieldErrors.invalid("spec.schedule", spec.schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"));
    } else {
      const problem = cronScheduleError(spec.schedule);
      if (problem) errs.push(fieldErrors.invalid("spec.schedule", spec.schedule, problem));
    }
  }
  if (typeof spec.timeZone === "string") {
    const problem = timeZoneError(spec.timeZone);
    if (problem) errs.push(fieldErrors.invalid("spec.timeZone", spec.timeZone, problem));
  }
  const jobSpec = objAtPath(spec, "jobTemplate.spec");
  if (jobSpec) errs.push(...validateJobSpec(jobSpec, "spec.jobTemplate.spec"));
  return errs;
}

/** `validateTimeZone`: an explicit IANA zone name the runtime knows. */
export function timeZoneError(tz: string): string | undefined {
  if (tz === "") return "timeZone must be nil or non-empty string";
  for (const part of tz.split("/")) {
    if (part === "." || part === ".." || part.startsWith("-") || !/^[A-Za-z._+\-0-9]+$/.test(part)) {
      return `unknown time zone ${tz}`;
    }
  }
  if (tz.toLowerCase() === "local") return "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones";
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return undefined;
  } catch {
    return `unknown time zone ${tz}`;
  }
}

const DESCRIPTORS = new Set(["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]);
const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
const DAYS = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

interface CronField {
  min: number;
  max: number;
  names?: string[];
  namesFrom?: number;
}
const FIELDS: CronField[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS, namesFrom: 1 },
  { min: 0, max: 6, names: DAYS, namesFrom: 0 },
];

/** The error of the standard cron parser for a schedule, or undefined when it parses. */
export function cronScheduleError(schedule: string): string | undefined {
  const s = schedule.trim();
  if (s.startsWith("@")) {
    if (DESCRIPTORS.has(s)) return undefined;
    if (s.startsWith("@every ")) return /^@every\s+(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(s) ? undefined : `failed to parse duration ${s}`;
    return `unrecognized descriptor: ${s}`;
  }
  const parts = s.split(/\s+/).filter((p) => p !== "");
  if (parts.length !== 5) return `expected exactly 5 fields, found ${parts.length}: [${parts.join(" ")}]`;
  for (let i = 0; i < 5; i++) {
    for (const range of parts[i].split(",")) {
      const problem = cronRangeError(range, FIELDS[i]);
      if (problem) return problem;
    }
  }
  return undefined;
}

function cronValue(text: string, f: CronField): number | string {
  const named = f.names?.indexOf(text.toUpperCase()) ?? -1;
  if (named >= 0) return named + (f.namesFrom ?? 0);
  if (!/^\d+$/.test(text)) return `failed to parse int from ${text}: strconv.Atoi: parsing "${text}": invalid syntax`;
  return Number(text);
}

function cronRangeError(range: string, f: CronField): string | undefined {
  const [body, step, extra] = range.split("/");
  if (extra !== undefined) return `too many slashes: ${range}`;
  let lo = f.min;
  let hi = f.max;
  if (body !== "*" && body !== "?") {
    const [a, b, more] = body.split("-");
    if (more !== undefined) return `too many hyphens: ${range}`;
    const start = cronValue(a, f);
    if (typeof start === "string") return start;
    lo = start;
    hi = start;
    if (b !== undefined) {
      const end = cronValue(b, f);
      if (typeof end === "string") return end;
      hi = end;
    }
  }
  if (step !== undefined) {
    const st = cronValue(step, { min: 0, max: 0 });
    if (typeof st === "string") return st;
    if (st === 0) return `step of range should be a positive number: ${range}`;
  }
  if (lo < f.min) return `beginning of range (${lo}) below minimum (${f.min}): ${range}`;
  if (hi > f.max) return `end of range (${hi}) above maximum (${f.max}): ${range}`;
  if (lo > hi) return `beginning of range (${lo}) beyond end of range (${hi}): ${range}`;
  return undefined;
}
