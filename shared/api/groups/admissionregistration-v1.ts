/**
 * admissionregistration/v1: MutatingWebhookConfiguration,
 * ValidatingWebhookConfiguration, ValidatingAdmissionPolicy and
 * ValidatingAdmissionPolicyBinding (all cluster-scoped, category
 * `api-extensions`).
 *
 * Nothing here depends on the naming profile, so the module exports a constant
 * `kinds`. Defaults are the v1 ones (Part 2, versioning): webhooks default
 * `failurePolicy: Fail`, `matchPolicy: Equivalent`, `timeoutSeconds: 10`,
 * empty namespace and object selectors, rule `scope: "*"`, service port 443,
 * and `reinvocationPolicy: Never` for mutating webhooks; `sideEffects` and
 * `admissionReviewVersions` are required. Policies default `failurePolicy:
 * Fail`, and their match resources default like webhooks.
 *
 * Protobuf field numbers are the platform's (admissionregistration/v1
 * generated.proto), with one gap the schema vocabulary cannot express: in
 * protobuf, `RuleWithOperations` nests the rule fields (apiGroups, apiVersions,
 * resources, scope) in a message field `rule = 2`, and
 * `NamedRuleWithOperations` nests operations and the rule in
 * `ruleWithOperations = 2`, while JSON inlines them. Those inlined fields carry
 * no `protoTag` here; see `PROTOBUF_INLINED`.
 *
 * Validation beyond the schema is in admissionregistration-v1-rules.ts.
 */
import { bytes, enumOf, format, int32, int64, list, named, obj, str, tag, withOpts } from "../../schema/build.ts";
import type { KindDefinition, Schema, TableColumn } from "../../schema/types.ts";
import { has, objField, strField } from "../field-errors.ts";
import { ageColumn, formatLabelSelector, listAt, strAt } from "../table-cells.ts";
import { ACCEPTED_ADMISSION_REVIEW_VERSIONS, validateBinding, validatePolicy, validateWebhookConfiguration } from "./admissionregistration-v1-rules.ts";
import { condition, labelSelector, objectKind } from "./meta-v1.ts";

const AR = (name: string, schema: Schema) => named("admissionregistration", "v1", name, schema);
const atomicStrings = (description: string) => list(str(), { listType: "atomic", description });

export const OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
export const SCOPES = ["*", "Cluster", "Namespaced"];
export const MAX_MATCH_CONDITIONS = 64;
export { ACCEPTED_ADMISSION_REVIEW_VERSIONS };

/** Protobuf nesting of JSON-inlined structs (see the module comment), for the protobuf codec. */
export const PROTOBUF_INLINED = {
  RuleWithOperations: { field: "rule", tag: 2, message: "Rule", fields: { apiGroups: 1, apiVersions: 2, resources: 3, scope: 4 } },
  NamedRuleWithOperations: { field: "ruleWithOperations", tag: 2, message: "RuleWithOperations", fields: { operations: 1 } },
} as const;

// ---- shared pieces -------------------------------------------------------------

export const serviceReference = AR(
  "ServiceReference",
  obj(
    {
      namespace: tag(1, str({ description: "Namespace of the service." })),
      name: tag(2, str({ description: "Name of the service." })),
      path: tag(3, str({ description: "URL path sent in every request to the service." })),
      port: tag(4, int32({ default: 443, description: "Service port of the webhook (1-65535)." })),
    },
    { required: ["namespace", "name"] },
  ),
);

export const webhookClientConfig = AR(
  "WebhookClientConfig",
  obj(
    {
      url: tag(3, str({ description: "`https://host[:port]/path` of the webhook; no user, query or fragment. Exactly one of url and service." })),
      service: tag(1, serviceReference),
      caBundle: tag(2, bytes({ description: "PEM CA bundle to verify the webhook's serving certificate; system roots when unset." })),
    },
    { description: "How the API server reaches the webhook." },
  ),
);

/** The fields of `Rule`, inlined in JSON wherever a rule appears. */
const ruleFields: Record<string, Schema> = {
  apiGroups: atomicStrings('API groups; `*` means all and must then be alone. "" is the core group.'),
  apiVersions: atomicStrings("API versions; `*` means all and must then be alone."),
  resources: atomicStrings("Resources (`pods`, `pods/log`, `pods/*`, `*/scale`, `*`, `*/*`)."),
  scope: enumOf(SCOPES, { default: "*", description: "Cluster, Namespaced or `*` (no restriction)." }),
};

const operations = list(enumOf(OPERATIONS), { listType: "atomic", description: "CREATE, UPDATE, DELETE, CONNECT, or `*` alone." });

export const ruleWithOperations = AR(
  "RuleWithOperations",
  obj({ operations: tag(1, operations), ...ruleFields }, { description: "Operations on resources a webhook or policy matches." }),
);

export const namedRuleWithOperations = AR(
  "NamedRuleWithOperations",
  obj(
    { resourceNames: tag(1, atomicStrings("Object names the rule is limited to; empty means all.")), operations, ...ruleFields },
    { mapType: "atomic", description: "A rule limited to named objects." },
  ),
);

export const matchCondition = AR(
  "MatchCondition",
  obj(
    {
      name: tag(1, format("label-key", { description: "Identifier of the condition, a qualified name; unique in its list." })),
      expression: tag(2, str({ description: "A CEL expression over object, oldObject, request and authorizer; must yield a bool." })),
    },
    { required: ["name", "expression"] },
  ),
);

const matchConditions = list(matchCondition, {
  listType: "map",
  mapKeys: ["name"],
  patchStrategy: "merge",
  patchMergeKey: "name",
  maxItems: MAX_MATCH_CONDITIONS,
  description: "All must be true for the request to be sent; an error (none false) follows failurePolicy. At most 64.",
});

const emptySelector = (description: string) => withOpts(labelSelector, { default: {}, description });
const failurePolicy = enumOf(["Ignore", "Fail"], { default: "Fail", description: "What an error calling or evaluating does: Ignore or Fail." });
const matchPolicy = enumOf(["Exact", "Equivalent"], { default: "Equivalent", description: "Exact, or Equivalent (also match the same resource through other group versions)." });

// ---- webhooks ------------------------------------------------------------------

const webhookFields = {
  name: tag(1, str({ description: "Fully qualified name of the webhook (at least three DNS labels); unique in the configuration." })),
  clientConfig: tag(2, webhookClientConfig),
  rules: tag(3, list(ruleWithOperations, { listType: "atomic", description: "The webhook applies when any rule matches." })),
  failurePolicy: tag(4, failurePolicy),
  matchPolicy: tag(9, matchPolicy),
  namespaceSelector: tag(5, emptySelector("Runs the webhook only for objects in matching namespaces; empty matches all.")),
  sideEffects: tag(6, enumOf(["None", "NoneOnDryRun"], { description: "None, or NoneOnDryRun (side effects skipped for dry-run requests)." })),
  timeoutSeconds: tag(7, int32({ default: 10, minimum: 1, maximum: 30, description: "Call timeout in seconds, 1 to 30." })),
  admissionReviewVersions: tag(8, atomicStrings("AdmissionReview versions the webhook accepts, preferred first; must include v1 or v1beta1.")),
};

export const mutatingWebhook = AR(
  "MutatingWebhook",
  obj(
    {
      ...webhookFields,
      objectSelector: tag(11, emptySelector("Runs the webhook only for objects with matching labels; empty matches all.")),
      reinvocationPolicy: tag(10, enumOf(["Never", "IfNeeded"], { default: "Never", description: "IfNeeded calls the webhook again after later mutations." })),
      matchConditions: tag(12, matchConditions),
    },
    { required: ["name", "clientConfig", "sideEffects", "admissionReviewVersions"] },
  ),
);

export const validatingWebhook = AR(
  "ValidatingWebhook",
  obj(
    {
      ...webhookFields,
      objectSelector: tag(10, emptySelector("Runs the webhook only for objects with matching labels; empty matches all.")),
      matchConditions: tag(11, matchConditions),
    },
    { required: ["name", "clientConfig", "sideEffects", "admissionReviewVersions"] },
  ),
);

const webhooksOf = (item: Schema) =>
  tag(2, list(item, { listType: "map", mapKeys: ["name"], patchStrategy: "merge", patchMergeKey: "name", description: "The webhooks, by name." }));

export const mutatingWebhookConfigurationSchema = objectKind({ webhooks: webhooksOf(mutatingWebhook) });
export const validatingWebhookConfigurationSchema = objectKind({ webhooks: webhooksOf(validatingWebhook) });

// ---- policies --------------------------------------------------------------------

export const paramKind = AR(
  "ParamKind",
  obj(
    {
      apiVersion: tag(1, str({ description: "`group/version` of the parameter kind." })),
      kind: tag(2, str({ description: "Kind of the parameter resources." })),
    },
    { required: ["apiVersion", "kind"], mapType: "atomic" },
  ),
);

export const matchResources = AR(
  "MatchResources",
  obj(
    {
      namespaceSelector: tag(1, emptySelector("Matches objects in namespaces with these labels; empty matches all.")),
      objectSelector: tag(2, emptySelector("Matches objects with these labels; empty matches all.")),
      resourceRules: tag(3, list(namedRuleWithOperations, { listType: "atomic", description: "Requests matching any rule are included." })),
      excludeResourceRules: tag(4, list(namedRuleWithOperations, { listType: "atomic", description: "Requests matching any rule are excluded; exclusion wins." })),
      matchPolicy: tag(7, matchPolicy),
    },
    { mapType: "atomic", description: "Which requests a policy or binding applies to." },
  ),
);

export const VALIDATION_REASONS = ["Unauthorized", "Forbidden", "Invalid", "RequestEntityTooLarge"];

export const validation = AR(
  "Validation",
  obj(
    {
      expression: tag(1, str({ description: "A CEL expression that must yield true for the request to pass." })),
      message: tag(2, str({ description: "Message on failure; no line breaks. Required when the expression has line breaks." })),
      reason: tag(3, enumOf(VALIDATION_REASONS, { description: "Status reason of the rejection; Invalid when unset." })),
      messageExpression: tag(4, str({ description: "A CEL expression yielding the failure message; wins over message." })),
    },
    { required: ["expression"] },
  ),
);

export const auditAnnotation = AR(
  "AuditAnnotation",
  obj(
    {
      key: tag(1, str({ description: "Annotation key, a qualified name unique in the policy; the audit key is `<policy>/<key>`." })),
      valueExpression: tag(2, str({ description: "A CEL expression yielding a string or null." })),
    },
    { required: ["key", "valueExpression"] },
  ),
);

export const variable = AR(
  "Variable",
  obj(
    {
      name: tag(1, str({ description: "A CEL identifier, unique in the policy; read as `variables.<name>`." })),
      expression: tag(2, str({ description: "A CEL expression; may use variables declared before it." })),
    },
    { required: ["name", "expression"], mapType: "atomic" },
  ),
);

export const validatingAdmissionPolicySpec = AR(
  "ValidatingAdmissionPolicySpec",
  obj(
    {
      paramKind: tag(1, paramKind),
      matchConstraints: tag(2, withOpts(matchResources, { description: "The requests the policy is meant for; resourceRules are required." })),
      validations: tag(3, list(validation, { listType: "atomic", description: "CEL validations; at least one of validations and auditAnnotations." })),
      failurePolicy: tag(4, failurePolicy),
      auditAnnotations: tag(5, list(auditAnnotation, { listType: "atomic", description: "CEL expressions producing audit annotations." })),
      matchConditions: tag(6, matchConditions),
      variables: tag(
        7,
        list(variable, { listType: "map", mapKeys: ["name"], patchStrategy: "merge", patchMergeKey: "name", description: "Named CEL expressions shared by the others." }),
      ),
    },
    { required: ["matchConstraints"] },
  ),
);

export const expressionWarning = AR(
  "ExpressionWarning",
  obj(
    {
      fieldRef: tag(2, str({ description: "Path of the expression (`spec.validations[0].expression`)." })),
      warning: tag(3, str({ description: "Type-checking result." })),
    },
    { required: ["fieldRef", "warning"] },
  ),
);

export const validatingAdmissionPolicyStatus = AR(
  "ValidatingAdmissionPolicyStatus",
  obj({
    observedGeneration: tag(1, int64()),
    typeChecking: tag(2, AR("TypeChecking", obj({ expressionWarnings: tag(1, list(expressionWarning, { listType: "atomic" })) }))),
    conditions: tag(3, list(condition, { listType: "map", mapKeys: ["type"] })),
  }),
);

export const validatingAdmissionPolicySchema = objectKind({
  spec: tag(2, validatingAdmissionPolicySpec),
  status: tag(3, validatingAdmissionPolicyStatus),
});

export const VALIDATION_ACTIONS = ["Audit", "Deny", "Warn"];

export const paramRef = AR(
  "ParamRef",
  obj(
    {
      name: tag(1, str({ description: "Name of the parameter object; exclusive with selector." })),
      namespace: tag(2, str({ description: "Namespace of the parameters; unset for cluster-scoped kinds." })),
      selector: tag(3, withOpts(labelSelector, { description: "Selects several parameter objects; `{}` selects all. Exclusive with name." })),
      parameterNotFoundAction: tag(4, enumOf(["Allow", "Deny"], { description: "Allow, or Deny (apply failurePolicy) when no parameter matches." })),
    },
    { required: ["parameterNotFoundAction"], mapType: "atomic" },
  ),
);

export const validatingAdmissionPolicyBindingSpec = AR(
  "ValidatingAdmissionPolicyBindingSpec",
  obj(
    {
      policyName: tag(1, str({ description: "Name of the bound ValidatingAdmissionPolicy." })),
      paramRef: tag(2, paramRef),
      matchResources: tag(3, withOpts(matchResources, { description: "Narrows the policy's matchConstraints; unset means all of them." })),
      validationActions: tag(4, list(enumOf(VALIDATION_ACTIONS), { listType: "set", description: "Deny, Warn and/or Audit; not Deny with Warn." })),
    },
    { required: ["policyName", "validationActions"] },
  ),
);

export const validatingAdmissionPolicyBindingSchema = objectKind({ spec: tag(2, validatingAdmissionPolicyBindingSpec) });

// ---- tables ------------------------------------------------------------------------

const webhooksColumn: TableColumn = {
  name: "Webhooks",
  type: "integer",
  description: "Number of webhooks in the configuration.",
  cell: (o) => listAt(o, "webhooks").length,
};

/** `<unset>`, `ns/name`, `*\/name` (namespace from the request) or the selector, as the CLI prints a paramRef. */
export function paramRefCell(binding: Record<string, unknown>): string {
  const pr = objField(objField(binding, "spec"), "paramRef");
  if (!pr) return "<unset>";
  const name = strField(pr, "name");
  if (name !== "") {
    const ns = strField(pr, "namespace");
    return ns !== "" ? `${ns}/${name}` : `*/${name}`;
  }
  if (has(pr, "selector")) return formatLabelSelector(pr.selector);
  return "<unset>";
}

const policyColumns: TableColumn[] = [
  { name: "Validations", type: "integer", description: "Number of validation expressions.", cell: (o) => listAt(o, "spec.validations").length },
  {
    name: "ParamKind",
    type: "string",
    description: "Kind of the parameter resources.",
    cell: (o) => {
      const pk = objField(objField(o, "spec"), "paramKind");
      return pk ? `${strField(pk, "apiVersion")}/${strField(pk, "kind")}` : "<unset>";
    },
  },
  ageColumn,
];

const bindingColumns: TableColumn[] = [
  { name: "PolicyName", type: "string", description: "The bound policy.", cell: (o) => strAt(o, "spec.policyName") },
  { name: "ParamRef", type: "string", description: "The parameter resource.", cell: paramRefCell },
  ageColumn,
];

// ---- kinds ------------------------------------------------------------------------

const base = { group: "admissionregistration" as const, version: "v1", namespaced: false, categories: ["api-extensions"], protobuf: true };

export const kinds: KindDefinition[] = [
  {
    ...base,
    kind: "MutatingWebhookConfiguration",
    plural: "mutatingwebhookconfigurations",
    singular: "mutatingwebhookconfiguration",
    schema: mutatingWebhookConfigurationSchema,
    tableColumns: [webhooksColumn, ageColumn],
    validateKind: validateWebhookConfiguration,
  },
  {
    ...base,
    kind: "ValidatingWebhookConfiguration",
    plural: "validatingwebhookconfigurations",
    singular: "validatingwebhookconfiguration",
    schema: validatingWebhookConfigurationSchema,
    tableColumns: [webhooksColumn, ageColumn],
    validateKind: validateWebhookConfiguration,
  },
  {
    ...base,
    kind: "ValidatingAdmissionPolicy",
    plural: "validatingadmissionpolicies",
    singular: "validatingadmissionpolicy",
    subresources: ["status"],
    schema: validatingAdmissionPolicySchema,
    tableColumns: policyColumns,
    validateKind: validatePolicy,
  },
  {
    ...base,
    kind: "ValidatingAdmissionPolicyBinding",
    plural: "validatingadmissionpolicybindings",
    singular: "validatingadmissionpolicybinding",
    schema: validatingAdmissionPolicyBindingSchema,
    tableColumns: bindingColumns,
    validateKind: validateBinding,
  },
];
