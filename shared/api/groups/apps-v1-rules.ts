/**
 * apps/v1 defaulting that depends on other fields, and cross-field
 * validation, as the platform's `SetDefaults_*` and `Validate*Spec` do it.
 * Defaulters mutate in place and are idempotent; validators never throw.
 */
import { fieldErrors } from "../../schema/field-errors.ts";
import type { FieldError } from "../../schema/types.ts";
import {
  ensureObj,
  intOrPercentValue,
  isObj,
  notMoreThan100Percent,
  defaultTemplateAt,
  setDefault,
  validateIntOrPercent,
  validateSelectorAndTemplate,
  validateTemplateAt,
  type Obj,
} from "./workload-rules.ts";

const ALWAYS_ONLY = { restartPolicies: ["Always"], restartPolicyOptional: true, forbidActiveDeadline: true };

// ---------------------------------------------------------------- defaulting

export function defaultDeployment(obj: Obj): void {
  const spec = ensureObj(obj, "spec");
  setDefault(spec, "replicas", 1);
  const strategy = ensureObj(spec, "strategy");
  setDefault(strategy, "type", "RollingUpdate");
  if (strategy.type === "RollingUpdate") {
    const ru = ensureObj(strategy, "rollingUpdate");
    setDefault(ru, "maxUnavailable", "25%");
    setDefault(ru, "maxSurge", "25%");
  }
  setDefault(spec, "revisionHistoryLimit", 10);
  setDefault(spec, "progressDeadlineSeconds", 600);
  defaultTemplateAt(obj, "spec.template");
}

export function defaultReplicaSet(obj: Obj): void {
  setDefault(ensureObj(obj, "spec"), "replicas", 1);
  defaultTemplateAt(obj, "spec.template");
}

export function defaultStatefulSet(obj: Obj): void {
  const spec = ensureObj(obj, "spec");
  if (!spec.podManagementPolicy) spec.podManagementPolicy = "OrderedReady";
  const strategy = ensureObj(spec, "updateStrategy");
  if (!strategy.type) {
    strategy.type = "RollingUpdate";
    ensureObj(strategy, "rollingUpdate");
  }
  // Like the platform: an explicit RollingUpdate without parameters stays without them.
  if (strategy.type === "RollingUpdate" && isObj(strategy.rollingUpdate)) {
    setDefault(strategy.rollingUpdate, "partition", 0);
    // MaxUnavailableStatefulSet is beta (on by default) in release 1.35.
    setDefault(strategy.rollingUpdate, "maxUnavailable", 1);
  }
  const retention = ensureObj(spec, "persistentVolumeClaimRetentionPolicy");
  if (!retention.whenDeleted) retention.whenDeleted = "Retain";
  if (!retention.whenScaled) retention.whenScaled = "Retain";
  setDefault(spec, "replicas", 1);
  setDefault(spec, "revisionHistoryLimit", 10);
  defaultTemplateAt(obj, "spec.template");
}

export function defaultDaemonSet(obj: Obj): void {
  const spec = ensureObj(obj, "spec");
  const strategy = ensureObj(spec, "updateStrategy");
  if (!strategy.type) strategy.type = "RollingUpdate";
  if (strategy.type === "RollingUpdate") {
    const ru = ensureObj(strategy, "rollingUpdate");
    setDefault(ru, "maxUnavailable", 1);
    setDefault(ru, "maxSurge", 0);
  }
  setDefault(spec, "revisionHistoryLimit", 10);
  defaultTemplateAt(obj, "spec.template");
}

// ---------------------------------------------------------------- validation

function specOf(obj: Obj): Obj {
  return isObj(obj.spec) ? obj.spec : {};
}

export function validateDeployment(obj: Obj): FieldError[] {
  const spec = specOf(obj);
  const errs = [...validateSelectorAndTemplate(spec, "spec", { nonEmptySelectorFor: "deployment", ...ALWAYS_ONLY }), ...validateTemplateAt(spec.template, "spec.template")];
  const strategy = isObj(spec.strategy) ? spec.strategy : undefined;
  if (strategy?.type === "Recreate" && strategy.rollingUpdate !== undefined) {
    errs.push(fieldErrors.forbidden("spec.strategy.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'"));
  }
  if (strategy?.type === "RollingUpdate") {
    if (!isObj(strategy.rollingUpdate)) {
      errs.push(fieldErrors.required("spec.strategy.rollingUpdate", "this should be defaulted and never be nil"));
    } else {
      const ru = strategy.rollingUpdate;
      const p = "spec.strategy.rollingUpdate";
      errs.push(...validateIntOrPercent(ru.maxUnavailable, `${p}.maxUnavailable`), ...validateIntOrPercent(ru.maxSurge, `${p}.maxSurge`));
      if ((intOrPercentValue(ru.maxUnavailable) ?? 0) === 0 && (intOrPercentValue(ru.maxSurge) ?? 0) === 0) {
        errs.push(fieldErrors.invalid(`${p}.maxUnavailable`, ru.maxUnavailable ?? 0, "may not be 0 when `maxSurge` is 0"));
      }
      errs.push(...notMoreThan100Percent(ru.maxUnavailable, `${p}.maxUnavailable`));
    }
  }
  const pds = spec.progressDeadlineSeconds;
  const mrs = typeof spec.minReadySeconds === "number" ? spec.minReadySeconds : 0;
  if (typeof pds === "number" && pds <= mrs) {
    errs.push(fieldErrors.invalid("spec.progressDeadlineSeconds", pds, "must be greater than minReadySeconds"));
  }
  return errs;
}

export function validateReplicaSet(obj: Obj): FieldError[] {
  // The platform's message names deployments here too.
  const spec = specOf(obj);
  return [...validateSelectorAndTemplate(spec, "spec", { nonEmptySelectorFor: "deployment", ...ALWAYS_ONLY }), ...validateTemplateAt(spec.template, "spec.template")];
}

export function validateStatefulSet(obj: Obj): FieldError[] {
  const spec = specOf(obj);
  const claims = (Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates : []).map((c) => (isObj(c) && isObj(c.metadata) ? String(c.metadata.name ?? "") : ""));
  const errs = [
    ...validateSelectorAndTemplate(spec, "spec", { nonEmptySelectorFor: "statefulset", ...ALWAYS_ONLY }),
    ...validateTemplateAt(spec.template, "spec.template", claims.filter((n) => n !== "")),
  ];
  const strategy = isObj(spec.updateStrategy) ? spec.updateStrategy : undefined;
  if (strategy?.type === "OnDelete" && strategy.rollingUpdate !== undefined) {
    errs.push(fieldErrors.invalid("spec.updateStrategy.rollingUpdate", strategy.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"));
  }
  if (strategy && isObj(strategy.rollingUpdate) && strategy.rollingUpdate.maxUnavailable !== undefined) {
    const p = "spec.updateStrategy.rollingUpdate.maxUnavailable";
    const mu = strategy.rollingUpdate.maxUnavailable;
    errs.push(...validateIntOrPercent(mu, p), ...notMoreThan100Percent(mu, p));
    if (intOrPercentValue(mu) === 0) errs.push(fieldErrors.invalid(p, mu, "must be greater than 0"));
  }
  return errs;
}

export function validateDaemonSet(obj: Obj): FieldError[] {
  const spec = specOf(obj);
  const errs = [...validateSelectorAndTemplate(spec, "spec", { nonEmptySelectorFor: "daemonset", ...ALWAYS_ONLY }), ...validateTemplateAt(spec.template, "spec.template")];
  const strategy = isObj(spec.updateStrategy) ? spec.updateStrategy : undefined;
  if (strategy?.type === "RollingUpdate") {
    if (!isObj(strategy.rollingUpdate)) {
      errs.push(fieldErrors.required("spec.updateStrategy.rollingUpdate"));
      return errs;
    }
    const ru = strategy.rollingUpdate;
    const p = "spec.updateStrategy.rollingUpdate";
    errs.push(...validateIntOrPercent(ru.maxUnavailable, `${p}.maxUnavailable`), ...validateIntOrPercent(ru.maxSurge, `${p}.maxSurge`));
    errs.push(...notMoreThan100Percent(ru.maxUnavailable, `${p}.maxUnavailable`), ...notMoreThan100Percent(ru.maxSurge, `${p}.maxSurge`));
    const hasUnavailable = (intOrPercentValue(ru.maxUnavailable) ?? 0) !== 0;
    const hasSurge = (intOrPercentValue(ru.maxSurge) ?? 0) !== 0;
    if (hasUnavailable && hasSurge) errs.push(fieldErrors.invalid(`${p}.maxSurge`, ru.maxSurge, "may not be set when maxUnavailable is non-zero"));
    if (!hasUnavailable && !hasSurge) errs.push(fieldErrors.required(`${p}.maxUnavailable`, "cannot be 0 when maxSurge is 0"));
  }
  return errs;
}
