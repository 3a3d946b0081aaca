/**
 * Validation and defaulting helpers shared by the workload groups (apps,
 * batch, policy, autoscaling): label selectors, int-or-percent values, pod
 * templates of controllers. Pure functions over decoded JSON; each returns
 * field errors with full paths and the platform's messages.
 */
import { fieldErrors } from "../../schema/field-errors.ts";
import { isLabelValue, isQualifiedName, regexError } from "../../schema/formats.ts";
import type { FieldError } from "../../schema/types.ts";
import { getPath } from "../table-cells.ts";
import { defaultPodTemplate, validatePodSpecRules } from "./core-v1.ts";

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The object at `key` of `parent`, created empty when absent (defaulters). */
export function ensureObj(parent: Obj, key: string): Obj {
  const cur = parent[key];
  if (isObj(cur)) return cur;
  const created: Obj = {};
  parent[key] = created;
  return created;
}

/** Sets `parent[key] = value` when the key is absent or null. */
export function setDefault(parent: Obj, key: string, value: unknown): void {
  if (parent[key] === undefined || parent[key] === null) parent[key] = value;
}

/** An object at a dotted path, or undefined. */
export function objAtPath(obj: unknown, path: string): Obj | undefined {
  const v = getPath(obj, path);
  return isObj(v) ? v : undefined;
}

const PERCENT_FMT = "[0-9]+%";
const PERCENT_MSG = "a valid percent string must be a numeric string followed by an ending '%'";
const percentRe = new RegExp(`^${PERCENT_FMT}$`);

/** The number inside an int-or-percent value (`25%` → 25, `3` → 3); undefined when malformed. */
export function intOrPercentValue(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "string" && percentRe.test(v)) return Number(v.slice(0, -1));
  return undefined;
}

/** `ValidatePositiveIntOrPercent`: a non-negative integer or a percent string. */
export function validateIntOrPercent(v: unknown, path: string): FieldError[] {
  if (v === undefined || v === null) return [];
  if (typeof v === "string") {
    return percentRe.test(v) ? [] : [fieldErrors.invalid(path, v, regexError(PERCENT_MSG, PERCENT_FMT, "1%", "93%"))];
  }
  if (typeof v === "number" && v < 0) return [fieldErrors.invalid(path, v, "must be greater than or equal to 0")];
  return [];
}

/** `IsNotMoreThan100Percent`. */
export function notMoreThan100Percent(v: unknown, path: string): FieldError[] {
  if (typeof v !== "string" || !percentRe.test(v)) return [];
  return Number(v.slice(0, -1)) > 100 ? [fieldErrors.invalid(path, v, "must not be greater than 100%")] : [];
}

/** True when a label selector has neither matchLabels nor matchExpressions. */
export function isEmptySelector(sel: unknown): boolean {
  if (!isObj(sel)) return true;
  const ml = isObj(sel.matchLabels) ? Object.keys(sel.matchLabels).length : 0;
  const me = Array.isArray(sel.matchExpressions) ? sel.matchExpressions.length : 0;
  return ml + me === 0;
}

/** Whether a label selector selects a label set (an empty selector selects everything). */
export function selectorMatches(sel: unknown, labels: unknown): boolean {
  const l: Record<string, unknown> = isObj(labels) ? labels : {};
  if (!isObj(sel)) return false;
  const has = (k: string) => Object.prototype.hasOwnProperty.call(l, k);
  if (isObj(sel.matchLabels)) {
    for (const [k, v] of Object.entries(sel.matchLabels)) if (!has(k) || l[k] !== v) return false;
  }
  for (const e of Array.isArray(sel.matchExpressions) ? sel.matchExpressions : []) {
    if (!isObj(e) || typeof e.key !== "string") return false;
    const values = Array.isArray(e.values) ? e.values : [];
    switch (e.operator) {
      case "In":
        if (!has(e.key) || !values.includes(l[e.key])) return false;
        break;
      case "NotIn":
        if (has(e.key) && values.includes(l[e.key])) return false;
        break;
      case "Exists":
        if (!has(e.key)) return false;
        break;
      case "DoesNotExist":
        if (has(e.key)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** `ValidateLabelSelector`: keys, values, and operator/values agreement. */
export function validateLabelSelector(sel: unknown, path: string): FieldError[] {
  if (!isObj(sel)) return [];
  const errs: FieldError[] = [];
  if (isObj(sel.matchLabels)) {
    for (const [k, v] of Object.entries(sel.matchLabels)) {
      for (const msg of isQualifiedName(k)) errs.push(fieldErrors.invalid(`${path}.matchLabels`, k, msg));
      if (typeof v === "string") for (const msg of isLabelValue(v)) errs.push(fieldErrors.invalid(`${path}.matchLabels`, v, msg));
    }
  }
  const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  exprs.forEach((e, i) => {
    if (!isObj(e)) return;
    const p = `${path}.matchExpressions[${i}]`;
    const values = Array.isArray(e.values) ? e.values : [];
    if ((e.operator === "In" || e.operator === "NotIn") && values.length === 0) {
      errs.push(fieldErrors.required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    }
    if ((e.operator === "Exists" || e.operator === "DoesNotExist") && values.length > 0) {
      errs.push(fieldErrors.forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    }
    if (typeof e.key === "string") for (const msg of isQualifiedName(e.key)) errs.push(fieldErrors.invalid(`${p}.key`, e.key, msg));
  });
  return errs;
}

export interface TemplateRules {
  /** Lower-case kind name used in `empty selector is invalid for <kind>`; omit when an empty selector is allowed. */
  nonEmptySelectorFor?: string;
  /** Allowed `template.spec.restartPolicy` values. */
  restartPolicies: string[];
  /** Whether an absent restartPolicy is accepted (it defaults to `Always` in core). */
  restartPolicyOptional: boolean;
  /** Whether `template.spec.activeDeadlineSeconds` is forbidden (replica controllers). */
  forbidActiveDeadline?: boolean;
}

/**
 * The checks a controller spec makes on its selector and pod template
 * (`ValidatePodTemplateSpecForReplicaSet` and friends): the selector is valid
 * and non-empty, it selects the template's labels, and the template's restart
 * policy suits the controller. `specPath` is the path of the spec.
 */
export function validateSelectorAndTemplate(spec: Obj, specPath: string, rules: TemplateRules): FieldError[] {
  const errs: FieldError[] = [];
  const sel = spec.selector;
  if (isObj(sel)) {
    errs.push(...validateLabelSelector(sel, `${specPath}.selector`));
    if (rules.nonEmptySelectorFor && isEmptySelector(sel)) {
      errs.push(fieldErrors.invalid(`${specPath}.selector`, sel, `empty selector is invalid for ${rules.nonEmptySelectorFor}`));
    }
  }
  const template = spec.template;
  if (!isObj(template)) return errs;
  const labels = objAtPath(template, "metadata.labels");
  if (isObj(sel) && !isEmptySelector(sel) && !selectorMatches(sel, labels)) {
    errs.push(fieldErrors.invalid(`${specPath}.template.metadata.labels`, labels ?? {}, "`selector` does not match template `labels`"));
  }
  const podSpec = objAtPath(template, "spec");
  if (podSpec) {
    const rp = podSpec.restartPolicy;
    const absent = rp === undefined || rp === "";
    if ((absent && !rules.restartPolicyOptional) || (!absent && !rules.restartPolicies.includes(String(rp)))) {
      errs.push(fieldErrors.notSupported(`${specPath}.template.spec.restartPolicy`, rp ?? "", rules.restartPolicies));
    }
    if (rules.forbidActiveDeadline && podSpec.activeDeadlineSeconds !== undefined) {
      errs.push(
        fieldErrors.invalid(
          `${specPath}.template.spec.activeDeadlineSeconds`,
          podSpec.activeDeadlineSeconds,
          "activeDeadlineSeconds in ReplicaSet is not Supported",
        ),
      );
    }
  }
  return errs;
}

// ---------------------------------------------------------------- ports

/** `IsValidPortNum`: 1..65535. */
export function portNumErrors(n: number): string[] {
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? [] : ["must be between 1 and 65535, inclusive"];
}

/** `IsValidPortName`: an IANA service name (at most 15 characters, lower case, a letter, single hyphens). */
export function portNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push("must be no more than 15 characters");
  if (!/^[-a-z0-9]+$/.test(name)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(name)) errs.push("must contain at least one letter (a-z)");
  if (name.includes("--")) errs.push("must not contain consecutive hyphens");
  if (name.startsWith("-") || name.endsWith("-")) errs.push("must not begin or end with a hyphen");
  return errs;
}

// ---------------------------------------------------------------- pod templates

/** Core pod-spec defaulting of the template at a dotted path (`spec.template`), when present. */
export function defaultTemplateAt(obj: Obj, path: string): void {
  defaultPodTemplate(getPath(obj, path));
}

/**
 * Core pod-spec rules of a pod template whose path is `path` (`spec.template`).
 * Names in `claimVolumes` count as volumes (a StatefulSet's
 * volumeClaimTemplates are mounted by name without a volume in the template).
 */
export function validateTemplateAt(template: unknown, path: string, claimVolumes: string[] = []): FieldError[] {
  const spec = isObj(template) ? template.spec : undefined;
  if (!isObj(spec)) return [];
  if (claimVolumes.length === 0) return validatePodSpecRules(spec, `${path}.spec`);
  const volumes = Array.isArray(spec.volumes) ? spec.volumes : [];
  const claims = claimVolumes.map((name) => ({ name, persistentVolumeClaim: { claimName: name } }));
  return validatePodSpecRules({ ...spec, volumes: [...volumes, ...claims] }, `${path}.spec`);
}
