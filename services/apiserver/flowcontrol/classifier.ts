/**
 * Classification of a request (the platform's APF matching rules):
 *  - FlowSchemas are tried in order (matchingPrecedence, then name); the first
 *    whose rules match wins;
 *  - a rule matches when one of its subjects matches the user and one of its
 *    resource or non-resource rules matches the request;
 *  - subjects: User by name or `*`; Group by membership or `*`; ServiceAccount
 *    by the user name `system:serviceaccount:<namespace>:<name>`, name `*` for
 *    any service account of the namespace;
 *  - resource rules: verb, API group and resource (`resource/subresource` for a
 *    subresource) each listed or `*`; a request with a namespace needs it (or
 *    `*`) in `namespaces`, one without needs `clusterScope`;
 *  - non-resource rules: verb, and a path that is listed, `*`, or starts with
 *    the prefix of an entry ending in `*` (`/healthz/*` matches `/healthz/etcd`);
 *  - the flow distinguisher is the user name (ByUser), the namespace
 *    (ByNamespace) or "".
 * Pure: configuration and request in, classification out. When nothing matches
 * (which the mandatory catch-all schema prevents) the catch-all level answers.
 */
import { FLOW_SCHEMA_CATCH_ALL, PRIORITY_LEVEL_CATCH_ALL } from "../../../shared/api/groups/flowcontrol-v1-mandatory.ts";
import type {
  Classification,
  Classifier,
  FlowControlConfig,
  FlowControlRequest,
  FlowControlConfigSource,
  FlowSchemaSubject,
  FlowSchemaView,
  NonResourcePolicyRule,
  PolicyRulesWithSubjects,
  PriorityLevelView,
  ResourcePolicyRule,
} from "./contract.ts";

const ALL = "*";
const SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:";

const listed = (value: string, values: readonly string[]): boolean => values.includes(ALL) || values.includes(value);

export function subjectMatches(subject: FlowSchemaSubject, user: FlowControlRequest["user"]): boolean {
  switch (subject.kind) {
    case "User":
      return subject.user.name === ALL || subject.user.name === user.name;
    case "Group":
      return subject.group.name === ALL || user.groups.includes(subject.group.name);
    case "ServiceAccount": {
      const { namespace, name } = subject.serviceAccount;
      if (!user.name.startsWith(SERVICE_ACCOUNT_PREFIX)) return false;
      const [ns, sa, ...rest] = user.name.slice(SERVICE_ACCOUNT_PREFIX.length).split(":");
      if (rest.length > 0 || !ns || !sa || ns !== namespace) return false;
      return name === ALL || name === sa;
    }
  }
}

export function resourceRuleMatches(rule: ResourcePolicyRule, req: FlowControlRequest): boolean {
  if (!listed(req.verb, rule.verbs) || !listed(req.apiGroup, rule.apiGroups)) return false;
  const resource = req.subresource ? `${req.resource}/${req.subresource}` : req.resource;
  if (!listed(resource, rule.resources)) return false;
  return req.namespace === "" ? rule.clusterScope === true : listed(req.namespace, rule.namespaces ?? []);
}

export function nonResourceURLMatches(path: string, urls: readonly string[]): boolean {
  for (const u of urls) if (u === ALL || u === path || (u.endsWith(ALL) && path.startsWith(u.slice(0, -1)))) return true;
  return false;
}

export function nonResourceRuleMatches(rule: NonResourcePolicyRule, req: FlowControlRequest): boolean {
  return listed(req.verb, rule.verbs) && nonResourceURLMatches(req.path, rule.nonResourceURLs);
}

// Loops, not `some` with a callback: classification runs on every request, and a callback
// would be a closure made per rule tried.
export function rulesMatch(rules: PolicyRulesWithSubjects, req: FlowControlRequest): boolean {
  let subjectMatched = false;
  for (const s of rules.subjects) {
    if (subjectMatches(s, req.user)) {
      subjectMatched = true;
      break;
    }
  }
  if (!subjectMatched) return false;
  if (req.isResourceRequest) {
    for (const r of rules.resourceRules ?? []) if (resourceRuleMatches(r, req)) return true;
  } else {
    for (const r of rules.nonResourceRules ?? []) if (nonResourceRuleMatches(r, req)) return true;
  }
  return false;
}

export function flowSchemaMatches(fs: FlowSchemaView, req: FlowControlRequest): boolean {
  for (const r of fs.rules) if (rulesMatch(r, req)) return true;
  return false;
}

export function flowDistinguisher(fs: FlowSchemaView, req: FlowControlRequest): string {
  switch (fs.distinguisherMethod) {
    case "ByUser":
      return req.user.name;
    case "ByNamespace":
      return req.namespace;
    default:
      return "";
  }
}

/** The level `catch-all` has when even its object is absent (the mandatory spec). */
const CATCH_ALL_LEVEL: PriorityLevelView = { name: PRIORITY_LEVEL_CATCH_ALL, uid: "", type: "Limited", nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: "Reject" } };

/** Priority levels by name, built once per configuration (classification runs on every request). */
const levelIndex = new WeakMap<FlowControlConfig, ReadonlyMap<string, PriorityLevelView>>();

function levelsOf(config: FlowControlConfig): ReadonlyMap<string, PriorityLevelView> {
  let levels = levelIndex.get(config);
  if (!levels) {
    levels = new Map(config.priorityLevels.map((pl) => [pl.name, pl]));
    levelIndex.set(config, levels);
  }
  return levels;
}

export function classify(config: FlowControlConfig, req: FlowControlRequest): Classification {
  const levels = levelsOf(config);
  for (const fs of config.flowSchemas) {
    const level = levels.get(fs.priorityLevelName);
    if (!level || !flowSchemaMatches(fs, req)) continue;
    return { flowSchema: { name: fs.name, uid: fs.uid, matchingPrecedence: fs.matchingPrecedence }, priorityLevel: level, flowDistinguisher: flowDistinguisher(fs, req) };
  }
  return { flowSchema: { name: FLOW_SCHEMA_CATCH_ALL, uid: "", matchingPrecedence: 10000 }, priorityLevel: levels.get(PRIORITY_LEVEL_CATCH_ALL) ?? CATCH_ALL_LEVEL, flowDistinguisher: req.user.name };
}

/** A Classifier over the source's current configuration. */
export function classifierOf(source: FlowControlConfigSource): Classifier {
  return (req) => classify(source.current(), req);
}
