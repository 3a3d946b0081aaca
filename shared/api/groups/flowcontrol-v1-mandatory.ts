/**
 * The specs of the mandatory APF objects (the platform's bootstrap
 * configuration, release 1.35): every server keeps them, validation requires
 * their specs to equal these values (the `exempt` priority level's
 * `spec.exempt` excepted), and the ensurer rewrites them whatever their
 * annotations say. Specs are in their defaulted v1 form.
 */

export const FLOW_SCHEMA_EXEMPT = "exempt";
export const FLOW_SCHEMA_CATCH_ALL = "catch-all";
export const PRIORITY_LEVEL_EXEMPT = "exempt";
export const PRIORITY_LEVEL_CATCH_ALL = "catch-all";

/** Well-known groups of the platform's authenticator. */
export const GROUP_MASTERS = "system:masters";
export const GROUP_AUTHENTICATED = "system:authenticated";
export const GROUP_UNAUTHENTICATED = "system:unauthenticated";

type Spec = Record<string, unknown>;

export const groupSubjects = (...names: string[]): Spec[] => names.map((name) => ({ kind: "Group", group: { name } }));

/** One rule matching every resource and non-resource request of the given subjects. */
export function matchEverything(subjects: Spec[]): Spec {
  return {
    subjects,
    resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"] }],
    nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
  };
}

export function flowSchemaSpec(priorityLevel: string, matchingPrecedence: number, distinguisher: "ByUser" | "ByNamespace" | undefined, rules: Spec[]): Spec {
  const spec: Spec = { priorityLevelConfiguration: { name: priorityLevel }, matchingPrecedence };
  if (distinguisher) spec.distinguisherMethod = { type: distinguisher };
  spec.rules = rules;
  return spec;
}

export const MANDATORY_FLOW_SCHEMA_SPECS: Readonly<Record<string, Spec>> = {
  [FLOW_SCHEMA_EXEMPT]: flowSchemaSpec(PRIORITY_LEVEL_EXEMPT, 1, undefined, [matchEverything(groupSubjects(GROUP_MASTERS))]),
  [FLOW_SCHEMA_CATCH_ALL]: flowSchemaSpec(PRIORITY_LEVEL_CATCH_ALL, 10000, "ByUser", [matchEverything(groupSubjects(GROUP_UNAUTHENTICATED, GROUP_AUTHENTICATED))]),
};

export const MANDATORY_PRIORITY_LEVEL_SPECS: Readonly<Record<string, Spec>> = {
  [PRIORITY_LEVEL_EXEMPT]: { type: "Exempt", exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
  [PRIORITY_LEVEL_CATCH_ALL]: { type: "Limited", limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: "Reject" } } },
};
