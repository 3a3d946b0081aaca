/**
 * flowcontrol.apiserver/v1: FlowSchema and PriorityLevelConfiguration, the
 * configuration of API Priority and Fairness. Both kinds are cluster-scoped and
 * have a status subresource. Protobuf field numbers are the platform's
 * (flowcontrol/v1 generated.proto); table columns are those `kubectl get`
 * prints. Defaulting and validation (with the platform's messages) live in
 * flowcontrol-v1-rules.ts; the fixed specs of the mandatory objects in
 * flowcontrol-v1-mandatory.ts.
 */
import { bool, int32, list, named, obj, str, tag, time } from "../../schema/build.ts";
import type { KindDefinition, Schema, TableColumn } from "../../schema/types.ts";
import { ageColumn, getPath, listAt, strAt } from "../table-cells.ts";
import { objectKind } from "./meta-v1.ts";
import { defaultFlowSchema, defaultPriorityLevel, validateFlowSchema, validatePriorityLevel } from "./flowcontrol-v1-rules.ts";

const F = (name: string, schema: Schema): Schema => named("flowcontrol", "v1", name, schema);
const set = (description: string): Schema => list(str(), { listType: "set", description });

export const userSubject = F("UserSubject", obj({ name: tag(1, str({ description: 'The user name that matches, or "*" for all users.' })) }, { required: ["name"] }));
export const groupSubject = F("GroupSubject", obj({ name: tag(1, str({ description: 'The group that matches, or "*" for all groups.' })) }, { required: ["name"] }));
export const serviceAccountSubject = F(
  "ServiceAccountSubject",
  obj(
    {
      namespace: tag(1, str({ description: "Namespace of the matching service accounts." })),
      name: tag(2, str({ description: 'Name of the matching service accounts, or "*" for any name.' })),
    },
    { required: ["namespace", "name"] },
  ),
);

export const subject = F(
  "Subject",
  obj(
    {
      kind: tag(1, str({ description: "User, Group or ServiceAccount: which of the other fields is set." })),
      user: tag(2, userSubject),
      group: tag(3, groupSubject),
      serviceAccount: tag(4, serviceAccountSubject),
    },
    { required: ["kind"], description: "The originator of a request, by user, group or service account." },
  ),
);

export const resourcePolicyRule = F(
  "ResourcePolicyRule",
  obj(
    {
      verbs: tag(1, set('Matching verbs; "*" matches all and must then be the only entry.')),
      apiGroups: tag(2, set('Matching API groups; "*" matches all and must then be the only entry.')),
      resources: tag(3, set('Matching resources (`services`, `nodes/status`); "*" matches all and must then be the only entry.')),
      clusterScope: tag(4, bool({ description: "Whether requests without a namespace (cluster-scoped or across all namespaces) match." })),
      namespaces: tag(5, set('Matching target namespaces; "*" matches any namespace but not requests without one.')),
    },
    { required: ["verbs", "apiGroups", "resources"], description: "Matches resource requests by verb and target resource." },
  ),
);

export const nonResourcePolicyRule = F(
  "NonResourcePolicyRule",
  obj(
    {
      verbs: tag(1, set('Matching verbs; "*" matches all and must then be the only entry.')),
      nonResourceURLs: tag(6, set('Matching paths: exact, "*" for all, or a prefix ending in "/*".')),
    },
    { required: ["verbs", "nonResourceURLs"], description: "Matches non-resource requests by verb and path." },
  ),
);

export const policyRulesWithSubjects = F(
  "PolicyRulesWithSubjects",
  obj(
    {
      subjects: tag(1, list(subject, { listType: "atomic", description: "Who the rules apply to; at least one." })),
      resourceRules: tag(2, list(resourcePolicyRule, { listType: "atomic", description: "Matching resource requests." })),
      nonResourceRules: tag(3, list(nonResourcePolicyRule, { listType: "atomic", description: "Matching non-resource requests." })),
    },
    { required: ["subjects"], description: "Matches a request when a subject and a resource or non-resource rule match." },
  ),
);

export const flowSchemaSpec = F(
  "FlowSchemaSpec",
  obj(
    {
      priorityLevelConfiguration: tag(1, F("PriorityLevelConfigurationReference", obj({ name: tag(1, str({ description: "Name of the priority level." })) }, { required: ["name"] }))),
      matchingPrecedence: tag(2, int32({ description: "Lower values are matched first; 1 to 10000, 1000 when unset." })),
      distinguisherMethod: tag(3, F("FlowDistinguisherMethod", obj({ type: tag(1, str({ description: "ByUser or ByNamespace." })) }, { required: ["type"] }))),
      rules: tag(4, list(policyRulesWithSubjects, { listType: "atomic", description: "The schema matches a request when any rule does." })),
    },
    { required: ["priorityLevelConfiguration"], description: "Which requests a FlowSchema matches and where they go." },
  ),
);

/** FlowSchemaCondition and PriorityLevelConfigurationCondition share one shape. */
const conditionFields = {
  type: tag(1, str({ description: "Type of the condition." })),
  status: tag(2, str({ description: "True, False or Unknown." })),
  lastTransitionTime: tag(3, time()),
  reason: tag(4, str({ description: "CamelCase reason of the last transition." })),
  message: tag(5, str({ description: "Human-readable details of the last transition." })),
};
const conditions = (condition: Schema): Schema => obj({ conditions: tag(1, list(condition, { listType: "map", mapKeys: ["type"], patchStrategy: "merge", patchMergeKey: "type" })) });

export const flowSchemaStatus = F("FlowSchemaStatus", conditions(F("FlowSchemaCondition", obj(conditionFields))));
export const flowSchema = F("FlowSchema", objectKind({ spec: tag(2, flowSchemaSpec), status: tag(3, flowSchemaStatus) }));

export const queuingConfiguration = F(
  "QueuingConfiguration",
  obj({
    queues: tag(1, int32({ description: "Number of queues (default 64)." })),
    handSize: tag(2, int32({ description: "Queues dealt to each flow by shuffle sharding (default 8)." })),
    queueLengthLimit: tag(3, int32({ description: "Requests waiting in one queue at most (default 50)." })),
  }),
);

export const limitResponse = F(
  "LimitResponse",
  obj({ type: tag(1, str({ description: "Queue or Reject." })), queuing: tag(2, queuingConfiguration) }, { required: ["type"] }),
);

export const limitedPriorityLevelConfiguration = F(
  "LimitedPriorityLevelConfiguration",
  obj({
    nominalConcurrencyShares: tag(1, int32({ description: "Share of the server's concurrency limit; 30 when unset (an explicit 0 stays 0)." })),
    limitResponse: tag(2, limitResponse),
    lendablePercent: tag(3, int32({ description: "Percent of the nominal limit other levels may borrow (0 to 100, default 0)." })),
    borrowingLimitPercent: tag(4, int32({ description: "Limit on borrowing, in percent of the nominal limit; unset means no limit." })),
  }),
);

export const exemptPriorityLevelConfiguration = F(
  "ExemptPriorityLevelConfiguration",
  obj({
    nominalConcurrencyShares: tag(1, int32({ description: "Share of the server's concurrency limit (default 0)." })),
    lendablePercent: tag(2, int32({ description: "Percent of the nominal limit other levels may borrow (0 to 100, default 0)." })),
  }),
);

export const priorityLevelConfigurationSpec = F(
  "PriorityLevelConfigurationSpec",
  obj(
    {
      type: tag(1, str({ description: "Exempt or Limited." })),
      limited: tag(2, limitedPriorityLevelConfiguration),
      exempt: tag(3, exemptPriorityLevelConfiguration),
    },
    { required: ["type"] },
  ),
);

export const priorityLevelConfigurationStatus = F("PriorityLevelConfigurationStatus", conditions(F("PriorityLevelConfigurationCondition", obj(conditionFields))));
export const priorityLevelConfiguration = F("PriorityLevelConfiguration", objectKind({ spec: tag(2, priorityLevelConfigurationSpec), status: tag(3, priorityLevelConfigurationStatus) }));

/** `<none>` where the platform's printer has no value. */
const orNone = (v: unknown): unknown => (v === undefined ? "<none>" : v);

const flowSchemaColumns: TableColumn[] = [
  { name: "PriorityLevel", type: "string", description: "Name of the priority level.", cell: (o) => strAt(o, "spec.priorityLevelConfiguration.name") },
  { name: "MatchingPrecedence", type: "string", description: "Lower values are matched first.", cell: (o) => getPath(o, "spec.matchingPrecedence") ?? 0 },
  { name: "DistinguisherMethod", type: "string", description: "How flows are told apart.", cell: (o) => strAt(o, "spec.distinguisherMethod.type") || "<none>" },
  ageColumn,
  {
    name: "MissingPL",
    type: "string",
    description: "references a broken or non-existent PriorityLevelConfiguration",
    cell: (o) => {
      const dangling = listAt(o, "status.conditions").find((c) => strAt(c, "type") === "Dangling");
      return dangling ? strAt(dangling, "status") : "?";
    },
  },
];

const priorityLevelColumns: TableColumn[] = [
  { name: "Type", type: "string", description: "Exempt or Limited.", cell: (o) => strAt(o, "spec.type") },
  { name: "NominalConcurrencyShares", type: "string", description: "Share of the server's concurrency limit.", cell: (o) => (getPath(o, "spec.limited") === undefined ? "<none>" : orNone(getPath(o, "spec.limited.nominalConcurrencyShares"))) },
  { name: "Queues", type: "string", description: "Number of queues.", cell: (o) => orNone(getPath(o, "spec.limited.limitResponse.queuing.queues")) },
  { name: "HandSize", type: "string", description: "Queues dealt to each flow.", cell: (o) => orNone(getPath(o, "spec.limited.limitResponse.queuing.handSize")) },
  { name: "QueueLengthLimit", type: "string", description: "Requests waiting in one queue at most.", cell: (o) => orNone(getPath(o, "spec.limited.limitResponse.queuing.queueLengthLimit")) },
  ageColumn,
];

/** The platform's printer lists FlowSchemas by matchingPrecedence, then name. */
function byPrecedence(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const pa = Number(getPath(a, "spec.matchingPrecedence") ?? 0);
  const pb = Number(getPath(b, "spec.matchingPrecedence") ?? 0);
  const na = strAt(a, "metadata.name");
  const nb = strAt(b, "metadata.name");
  return pa - pb || (na < nb ? -1 : na > nb ? 1 : 0);
}

const base = { group: "flowcontrol" as const, version: "v1", namespaced: false, protobuf: true, subresources: ["status" as const] };

export const kinds: KindDefinition[] = [
  {
    ...base,
    kind: "FlowSchema",
    plural: "flowschemas",
    singular: "flowschema",
    schema: flowSchema,
    defaulter: defaultFlowSchema,
    validateKind: validateFlowSchema,
    tableColumns: flowSchemaColumns,
    tableRowOrder: byPrecedence,
  },
  {
    ...base,
    kind: "PriorityLevelConfiguration",
    plural: "prioritylevelconfigurations",
    singular: "prioritylevelconfiguration",
    schema: priorityLevelConfiguration,
    defaulter: defaultPriorityLevel,
    validateKind: validatePriorityLevel,
    tableColumns: priorityLevelColumns,
  },
];
