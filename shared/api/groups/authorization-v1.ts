/**
 * authorization/v1: SubjectAccessReview, LocalSubjectAccessReview (namespaced),
 * SelfSubjectAccessReview and SelfSubjectRulesReview. All four are virtual:
 * create only, answered in `status`, never stored, no list kind.
 *
 * Nothing here depends on the naming profile, so the module exports a constant
 * `kinds`. Protobuf field numbers are the platform's (authorization/v1
 * generated.proto). In v1 the group list is `spec.groups` (`group` in v1beta1).
 */
import { bool, enumOf, list, mapOf, named, obj, str, tag, withOpts } from "../../schema/build.ts";
import type { FieldError, KindDefinition, Schema } from "../../schema/types.ts";
import { forbidden, has, invalid, isObj, listField, objField, required, strField } from "../field-errors.ts";
import { labelSelectorRequirement, objectKind } from "./meta-v1.ts";

const Z = (name: string, schema: Schema) => named("authorization", "v1", name, schema);
const atomicStrings = (description: string) => list(str(), { listType: "atomic", description });

export const SELECTOR_OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist"];

export const fieldSelectorRequirement = Z(
  "FieldSelectorRequirement",
  obj(
    {
      key: tag(1, str({ description: "The field the requirement applies to." })),
      operator: tag(2, enumOf(SELECTOR_OPERATORS, { description: "In, NotIn, Exists or DoesNotExist." })),
      values: tag(3, atomicStrings("Values for In and NotIn; empty for Exists and DoesNotExist.")),
    },
    { required: ["key", "operator"] },
  ),
);

export const fieldSelectorAttributes = Z(
  "FieldSelectorAttributes",
  obj({
    rawSelector: tag(1, str({ description: "The selector as a query string; webhooks should prefer `requirements`." })),
    requirements: tag(2, list(fieldSelectorRequirement, { listType: "atomic", description: "The parsed selector; all must hold." })),
  }),
);

export const labelSelectorAttributes = Z(
  "LabelSelectorAttributes",
  obj({
    rawSelector: tag(1, str({ description: "The selector as a query string; webhooks should prefer `requirements`." })),
    requirements: tag(2, list(labelSelectorRequirement, { listType: "atomic", description: "The parsed selector; all must hold." })),
  }),
);

export const resourceAttributes = Z(
  "ResourceAttributes",
  obj(
    {
      namespace: tag(1, str({ description: 'Namespace of the action; "" means all namespaces (or a cluster-scoped resource).' })),
      verb: tag(2, str({ description: "API verb (`get`, `list`, `create`...); `*` means all." })),
      group: tag(3, str({ description: "API group; `*` means all." })),
      version: tag(4, str({ description: "API version; `*` means all." })),
      resource: tag(5, str({ description: "Resource type; `*` means all." })),
      subresource: tag(6, str({ description: 'Subresource; "" means none.' })),
      name: tag(7, str({ description: 'Object name; "" means all.' })),
      fieldSelector: tag(8, fieldSelectorAttributes),
      labelSelector: tag(9, labelSelectorAttributes),
    },
    { description: "Attributes of a resource request." },
  ),
);

export const nonResourceAttributes = Z(
  "NonResourceAttributes",
  obj(
    {
      path: tag(1, str({ description: "URL path of the request." })),
      verb: tag(2, str({ description: "Lower-case HTTP verb (`get`, `post`...)." })),
    },
    { description: "Attributes of a non-resource request." },
  ),
);

export const subjectAccessReviewSpec = Z(
  "SubjectAccessReviewSpec",
  obj(
    {
      resourceAttributes: tag(1, resourceAttributes),
      nonResourceAttributes: tag(2, nonResourceAttributes),
      user: tag(3, str({ description: "The user to check." })),
      groups: tag(4, atomicStrings("The groups to check.")),
      extra: tag(5, mapOf(list(str(), { listType: "atomic" }), { description: "Extra user attributes, as the authenticator gives them." })),
      uid: tag(6, str({ description: "UID of the user." })),
    },
    { description: "Exactly one of resourceAttributes and nonResourceAttributes." },
  ),
);

export const selfSubjectAccessReviewSpec = Z(
  "SelfSubjectAccessReviewSpec",
  obj(
    { resourceAttributes: tag(1, resourceAttributes), nonResourceAttributes: tag(2, nonResourceAttributes) },
    { description: "Exactly one of resourceAttributes and nonResourceAttributes." },
  ),
);

export const selfSubjectRulesReviewSpec = Z(
  "SelfSubjectRulesReviewSpec",
  obj({ namespace: tag(1, str({ description: "Namespace to evaluate rules for." })) }),
);

export const subjectAccessReviewStatus = Z(
  "SubjectAccessReviewStatus",
  obj(
    {
      allowed: tag(1, bool({ description: "The action would be allowed." })),
      denied: tag(4, bool({ description: "The action would be denied; both false means no opinion. Never true with allowed." })),
      reason: tag(2, str({ description: "Why the request was allowed or denied." })),
      evaluationError: tag(3, str({ description: "An error met while checking; the decision may still stand." })),
    },
    { required: ["allowed"] },
  ),
);

export const resourceRule = Z(
  "ResourceRule",
  obj(
    {
      verbs: tag(1, atomicStrings("Verbs allowed; `*` means all.")),
      apiGroups: tag(2, atomicStrings("API groups; `*` means all.")),
      resources: tag(3, atomicStrings("Resources; `*` means all, `*/foo` subresource foo of all.")),
      resourceNames: tag(4, atomicStrings("Object names; empty means all.")),
    },
    { required: ["verbs"] },
  ),
);

export const nonResourceRule = Z(
  "NonResourceRule",
  obj(
    {
      verbs: tag(1, atomicStrings("Verbs allowed; `*` means all.")),
      nonResourceURLs: tag(2, atomicStrings("Paths; a final `*` is a suffix wildcard.")),
    },
    { required: ["verbs"] },
  ),
);

export const subjectRulesReviewStatus = Z(
  "SubjectRulesReviewStatus",
  obj(
    {
      resourceRules: tag(1, list(resourceRule, { listType: "atomic", description: "Allowed actions on resources; may be incomplete." })),
      nonResourceRules: tag(2, list(nonResourceRule, { listType: "atomic", description: "Allowed actions on non-resource URLs; may be incomplete." })),
      incomplete: tag(3, bool({ description: "Some authorizer could not enumerate its rules." })),
      evaluationError: tag(4, str({ description: "An error met while enumerating rules." })),
    },
    { required: ["resourceRules", "nonResourceRules", "incomplete"] },
  ),
);

const sarStatus = tag(3, withOpts(subjectAccessReviewStatus, { readOnly: true }));

export const subjectAccessReviewSchema = objectKind({ spec: tag(2, subjectAccessReviewSpec), status: sarStatus }, { required: ["spec"] });
export const localSubjectAccessReviewSchema = subjectAccessReviewSchema;
export const selfSubjectAccessReviewSchema = objectKind({ spec: tag(2, selfSubjectAccessReviewSpec), status: sarStatus }, { required: ["spec"] });
export const selfSubjectRulesReviewSchema = objectKind(
  { spec: tag(2, selfSubjectRulesReviewSpec), status: tag(3, withOpts(subjectRulesReviewStatus, { readOnly: true })) },
  { required: ["spec"] },
);

// ---- validation beyond the schema -----------------------------------------

/** Metadata of a review must be empty (except managedFields, and namespace where allowed). */
function validateEmptyMeta(obj: Record<string, unknown>, allowNamespace: boolean): FieldError[] {
  const meta = objField(obj, "metadata");
  if (!meta) return [];
  const extra = Object.keys(meta).filter((k) => k !== "managedFields" && !(allowNamespace && k === "namespace") && meta[k] !== null);
  if (extra.length === 0) return [];
  return [invalid("metadata", meta, allowNamespace ? "must be empty except for namespace" : "must be empty")];
}

function validateRequirements(reqs: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  reqs.forEach((r, i) => {
    if (!isObj(r)) return;
    const values = listField(r, "values");
    if ((r.operator === "In" || r.operator === "NotIn") && values.length === 0) {
      errs.push(required(`${path}[${i}].values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    }
    if ((r.operator === "Exists" || r.operator === "DoesNotExist") && values.length > 0) {
      errs.push(forbidden(`${path}[${i}].values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    }
  });
  return errs;
}

function validateSelectors(spec: Record<string, unknown> | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const ra = objField(spec, "resourceAttributes");
  for (const which of ["fieldSelector", "labelSelector"]) {
    const sel = objField(ra, which);
    if (!sel) continue;
    const p = `spec.resourceAttributes.${which}`;
    const raw = strField(sel, "rawSelector");
    const reqs = listField(sel, "requirements");
    if (raw !== "" && reqs.length > 0) errs.push(invalid(`${p}.rawSelector`, raw, "may not specified at the same time as requirements"));
    errs.push(...validateRequirements(reqs, `${p}.requirements`));
  }
  return errs;
}

function validateAttributesChoice(spec: Record<string, unknown> | undefined): FieldError[] {
  const hasResource = has(spec, "resourceAttributes");
  const hasNonResource = has(spec, "nonResourceAttributes");
  if (hasResource && hasNonResource) {
    return [invalid("spec.nonResourceAttributes", spec?.nonResourceAttributes, "cannot be specified in combination with resourceAttributes")];
  }
  if (!hasResource && !hasNonResource) {
    return [invalid("spec.resourceAttributes", null, "exactly one of nonResourceAttributes or resourceAttributes must be specified")];
  }
  return [];
}

function validateSubjectAccessReview(obj: Record<string, unknown>): FieldError[] {
  const spec = objField(obj, "spec");
  const errs = [...validateAttributesChoice(spec), ...validateSelectors(spec)];
  if (strField(spec, "user") === "" && listField(spec, "groups").length === 0) {
    errs.push(invalid("spec.user", strField(spec, "user"), "at least one of user or group must be specified"));
  }
  return [...errs, ...validateEmptyMeta(obj, false)];
}

function validateLocalSubjectAccessReview(obj: Record<string, unknown>): FieldError[] {
  const spec = objField(obj, "spec");
  const errs = [...validateAttributesChoice(spec), ...validateSelectors(spec)];
  if (strField(spec, "user") === "" && listField(spec, "groups").length === 0) {
    errs.push(invalid("spec.user", strField(spec, "user"), "at least one of user or group must be specified"));
  }
  errs.push(...validateEmptyMeta(obj, true));
  const ra = objField(spec, "resourceAttributes");
  const ns = strField(objField(obj, "metadata"), "namespace");
  if (ra && strField(ra, "namespace") !== ns) {
    errs.push(invalid("spec.resourceAttributes.namespace", strField(ra, "namespace"), "must match metadata.namespace"));
  }
  if (has(spec, "nonResourceAttributes")) {
    errs.push(invalid("spec.nonResourceAttributes", spec?.nonResourceAttributes, "disallowed on this kind of request"));
  }
  return errs;
}

function validateSelfSubjectAccessReview(obj: Record<string, unknown>): FieldError[] {
  const spec = objField(obj, "spec");
  return [...validateAttributesChoice(spec), ...validateSelectors(spec), ...validateEmptyMeta(obj, false)];
}

const review = { group: "authorization" as const, version: "v1", virtual: true, verbs: ["create"], protobuf: true };

export const kinds: KindDefinition[] = [
  {
    ...review,
    kind: "SubjectAccessReview",
    plural: "subjectaccessreviews",
    singular: "subjectaccessreview",
    namespaced: false,
    schema: subjectAccessReviewSchema,
    validateKind: validateSubjectAccessReview,
  },
  {
    ...review,
    kind: "LocalSubjectAccessReview",
    plural: "localsubjectaccessreviews",
    singular: "localsubjectaccessreview",
    namespaced: true,
    schema: localSubjectAccessReviewSchema,
    validateKind: validateLocalSubjectAccessReview,
  },
  {
    ...review,
    kind: "SelfSubjectAccessReview",
    plural: "selfsubjectaccessreviews",
    singular: "selfsubjectaccessreview",
    namespaced: false,
    schema: selfSubjectAccessReviewSchema,
    validateKind: validateSelfSubjectAccessReview,
  },
  {
    ...review,
    kind: "SelfSubjectRulesReview",
    plural: "selfsubjectrulesreviews",
    singular: "selfsubjectrulesreview",
    namespaced: false,
    schema: selfSubjectRulesReviewSchema,
  },
];
