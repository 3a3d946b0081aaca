/**
 * admissionregistration/v1 validation beyond the schema, as the platform's
 * `ValidateValidatingWebhookConfiguration`, `ValidateValidatingAdmissionPolicy`
 * and `...Binding` do it: webhook names, client configs, rules and their
 * wildcards, review versions, policy cross-field rules. Validators never throw.
 * CEL expressions are not compiled here (that needs the CEL environment).
 */
import { isDNS1123Subdomain, isPathSegmentName, isQualifiedName } from "../../schema/formats.ts";
import type { FieldError } from "../../schema/types.ts";
import { duplicate, forbidden, has, invalid, isDNS1035Label, isObj, listField, objField, required, strField, strList } from "../field-errors.ts";
import { validateWebhookClientConfig } from "../webhook-client.ts";

export const ACCEPTED_ADMISSION_REVIEW_VERSIONS = ["v1", "v1beta1"];

function hasWildcard(items: string[]): boolean {
  return items.includes("*");
}

function validateResources(resources: string[], field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(required(field));
  const wildcardSub = new Set<string>();
  const wildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let plain = false;
  resources.forEach((rs, i) => {
    if (rs === "") {
      errs.push(required(`${field}[${i}]`));
      return;
    }
    if (rs === "*/*") doubleWildcard = true;
    if (rs === "*") singleWildcard = true;
    const slash = rs.indexOf("/");
    if (slash < 0) {
      plain = rs !== "*";
      return;
    }
    const res = rs.slice(0, slash);
    const sub = rs.slice(slash + 1);
    if (wildcardSub.has(res)) errs.push(invalid(`${field}[${i}]`, rs, `if '${res}/*' is present, must not specify ${rs}`));
    if (wildcardRes.has(sub)) errs.push(invalid(`${field}[${i}]`, rs, `if '*/${sub}' is present, must not specify ${rs}`));
    if (sub === "*") wildcardSub.add(res);
    if (res === "*") wildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(invalid(field, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && plain) errs.push(invalid(field, resources, "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

/** A rule with operations (webhook `rules[i]`, policy `resourceRules[i]`). */
function validateRuleWithOperations(rule: Record<string, unknown>, p: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = strList(rule, "operations");
  if (listField(rule, "operations").length === 0) errs.push(required(`${p}.operations`));
  if (ops.length > 1 && hasWildcard(ops)) errs.push(invalid(`${p}.operations`, ops, "if '*' is present, must not specify other operations"));
  const groups = strList(rule, "apiGroups");
  if (listField(rule, "apiGroups").length === 0) errs.push(required(`${p}.apiGroups`));
  if (groups.length > 1 && hasWildcard(groups)) errs.push(invalid(`${p}.apiGroups`, groups, "if '*' is present, must not specify other API groups"));
  const versions = strList(rule, "apiVersions");
  if (listField(rule, "apiVersions").length === 0) errs.push(required(`${p}.apiVersions`));
  if (versions.length > 1 && hasWildcard(versions)) errs.push(invalid(`${p}.apiVersions`, versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === "") errs.push(required(`${p}.apiVersions[${i}]`));
  });
  errs.push(...validateResources(strList(rule, "resources"), `${p}.resources`));
  return errs;
}

function validateNamedRule(rule: Record<string, unknown>, p: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  strList(rule, "resourceNames").forEach((n, i) => {
    for (const m of isPathSegmentName(n)) errs.push(invalid(`${p}.resourceNames[${i}]`, n, m));
    if (seen.has(n)) errs.push(duplicate(`${p}.resourceNames[${i}]`, n));
    seen.add(n);
  });
  return [...errs, ...validateRuleWithOperations(rule, p)];
}

/** Fully qualified webhook name: a DNS subdomain of at least three labels. */
function validateWebhookName(field: string, name: string): FieldError[] {
  const n = name.endsWith(".") ? name.slice(0, -1) : name;
  const msgs = isDNS1123Subdomain(n);
  if (msgs.length > 0) return [invalid(field, n, msgs.join(","))];
  if (n.split(".").length < 3) return [invalid(field, n, "should be a domain with at least three segments separated by dots")];
  return [];
}

function validateAdmissionReviewVersions(webhook: Record<string, unknown>, p: string): FieldError[] {
  if (!Array.isArray(webhook.admissionReviewVersions)) return [];
  const field = `${p}.admissionReviewVersions`;
  const versions = strList(webhook, "admissionReviewVersions");
  if (versions.length === 0) return [required(field, `must specify one of ${ACCEPTED_ADMISSION_REVIEW_VERSIONS.join(", ")}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalid(`${field}[${i}]`, v, "duplicate version"));
      return;
    }
    seen.add(v);
    for (const m of isDNS1035Label(v)) errs.push(invalid(`${field}[${i}]`, v, m));
  });
  if (!versions.some((v) => ACCEPTED_ADMISSION_REVIEW_VERSIONS.includes(v))) {
    errs.push(invalid(field, versions, `must include at least one of ${ACCEPTED_ADMISSION_REVIEW_VERSIONS.join(", ")}`));
  }
  return errs;
}

export function validateWebhookConfiguration(obj: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  listField(obj, "webhooks").forEach((hook, i) => {
    if (!isObj(hook)) return;
    const p = `webhooks[${i}]`;
    if (typeof hook.name === "string") errs.push(...validateWebhookName(`${p}.name`, hook.name));
    errs.push(...validateWebhookClientConfig(`${p}.clientConfig`, objField(hook, "clientConfig")));
    listField(hook, "rules").forEach((r, j) => {
      if (isObj(r)) errs.push(...validateRuleWithOperations(r, `${p}.rules[${j}]`));
    });
    errs.push(...validateAdmissionReviewVersions(hook, p));
  });
  return errs;
}

const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

function validateMatchResources(mr: Record<string, unknown> | undefined, p: string): FieldError[] {
  if (!mr) return [];
  const errs: FieldError[] = [];
  for (const which of ["resourceRules", "excludeResourceRules"]) {
    listField(mr, which).forEach((r, i) => {
      if (isObj(r)) errs.push(...validateNamedRule(r, `${p}.${which}[${i}]`));
    });
  }
  return errs;
}

export function validatePolicy(obj: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  // An absent spec reads as an empty one; the schema reports missing fields only inside a present spec.
  const spec = objField(obj, "spec") ?? {};
  if (!has(obj, "spec")) errs.push(required("spec.matchConstraints"));
  const mc = objField(spec, "matchConstraints");
  if (mc) {
    errs.push(...validateMatchResources(mc, "spec.matchConstraints"));
    if (listField(mc, "resourceRules").length === 0) errs.push(required("spec.matchConstraints.resourceRules"));
  }
  if (listField(spec, "validations").length === 0 && listField(spec, "auditAnnotations").length === 0) {
    errs.push(required("spec.validations", "validations or auditAnnotations must contain at least one item"));
    errs.push(required("spec.auditAnnotations", "validations or auditAnnotations must contain at least one item"));
  }
  const pk = objField(spec, "paramKind");
  if (pk) {
    const apiVersion = strField(pk, "apiVersion");
    const kind = strField(pk, "kind");
    if (apiVersion !== "") {
      const parts = apiVersion.split("/");
      const [groupName, version] = parts.length === 2 ? parts : ["", parts[0]];
      if (parts.length > 2) errs.push(invalid("spec.paramKind.apiVersion", apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
      else {
        if (groupName !== "") for (const m of isDNS1123Subdomain(groupName)) errs.push(invalid("spec.paramKind.apiVersion", groupName, m));
        if (version === "") errs.push(required("spec.paramKind.apiVersion", "version must be specified"));
        else for (const m of isDNS1035Label(version)) errs.push(invalid("spec.paramKind.apiVersion", version, m));
      }
    }
    if (kind !== "") {
      const msgs = isDNS1035Label(kind.toLowerCase());
      if (msgs.length > 0) errs.push(invalid("spec.paramKind.kind", kind, `may have mixed case, but should otherwise match: ${msgs.join(",")}`));
    }
  }
  listField(spec, "validations").forEach((v, i) => {
    if (!isObj(v)) return;
    const expr = strField(v, "expression");
    const message = strField(v, "message");
    if (message.includes("\n")) errs.push(invalid(`spec.validations[${i}].message`, message, "message must not contain line breaks"));
    if (expr.includes("\n") && message === "") errs.push(required(`spec.validations[${i}].message`, "message must be specified if expression contains line breaks"));
  });
  const keys = new Set<string>();
  listField(spec, "auditAnnotations").forEach((a, i) => {
    if (!isObj(a) || typeof a.key !== "string") return;
    for (const m of isQualifiedName(a.key)) errs.push(invalid(`spec.auditAnnotations[${i}].key`, a.key, m));
    if (keys.has(a.key)) errs.push(duplicate(`spec.auditAnnotations[${i}].key`, a.key));
    keys.add(a.key);
  });
  listField(spec, "variables").forEach((v, i) => {
    if (isObj(v) && typeof v.name === "string" && v.name !== "" && !CEL_IDENTIFIER.test(v.name)) {
      errs.push(invalid(`spec.variables[${i}].name`, v.name, "name is not a valid CEL identifier"));
    }
  });
  return errs;
}

export function validateBinding(obj: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objField(obj, "spec") ?? {};
  if (!has(obj, "spec")) errs.push(required("spec.policyName"), required("spec.validationActions"));
  const policyName = strField(spec, "policyName");
  if (policyName !== "") for (const m of isDNS1123Subdomain(policyName)) errs.push(invalid("spec.policyName", policyName, m));
  const pr = objField(spec, "paramRef");
  if (pr) {
    const name = strField(pr, "name");
    const ns = strField(pr, "namespace");
    const hasSelector = has(pr, "selector");
    if (name !== "") {
      for (const m of isPathSegmentName(name)) errs.push(invalid("spec.paramRef.name", name, m));
      if (hasSelector) errs.push(forbidden("spec.paramRef.name", "name and selector are mutually exclusive"));
    }
    if (ns !== "") for (const m of isPathSegmentName(ns)) errs.push(invalid("spec.paramRef.namespace", ns, m));
    if (hasSelector && name !== "") errs.push(forbidden("spec.paramRef.selector", "name and selector are mutually exclusive"));
    if (name === "" && !hasSelector) errs.push(required("spec.paramRef", "one of name or selector must be specified"));
  }
  errs.push(...validateMatchResources(objField(spec, "matchResources"), "spec.matchResources"));
  if (Array.isArray(spec.validationActions)) {
    const actions = strList(spec, "validationActions");
    if (actions.length === 0) errs.push(required("spec.validationActions", "at least one validation action is required"));
    if (actions.includes("Deny") && actions.includes("Warn")) {
      errs.push(
        invalid(
          "spec.validationActions",
          actions,
          "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
        ),
      );
    }
  }
  return errs;
}
