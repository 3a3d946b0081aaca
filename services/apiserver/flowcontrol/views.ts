/**
 * The defaulted views of FlowSchema and PriorityLevelConfiguration objects the
 * dispatch half works with (contract.ts), and the configuration a replica
 * enforces built from the stored objects:
 *  - FlowSchemas sorted by matchingPrecedence, then name;
 *  - FlowSchemas whose priority level does not exist (Dangling) left out, as the
 *    platform ignores them;
 *  - a missing mandatory object (exempt, catch-all) stands in with its fixed
 *    spec and an empty uid, so classification always finds `catch-all`.
 * Pure: objects in, views out.
 */
import { defaultFlowSchema, defaultPriorityLevel } from "../../../shared/api/groups/flowcontrol-v1-rules.ts";
import { MANDATORY_FLOW_SCHEMA_SPECS, MANDATORY_PRIORITY_LEVEL_SPECS } from "../../../shared/api/groups/flowcontrol-v1-mandatory.ts";
import type { JsonObject } from "../storage/object.ts";
import type {
  DistinguisherType,
  FlowControlConfig,
  FlowSchemaSubject,
  FlowSchemaView,
  NonResourcePolicyRule,
  PolicyRulesWithSubjects,
  PriorityLevelView,
  ResourcePolicyRule,
} from "./contract.ts";

type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const num = (v: unknown): number => (typeof v === "number" ? v : 0);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);

function subjectOf(s: Obj): FlowSchemaSubject | undefined {
  switch (s.kind) {
    case "User":
      return { kind: "User", user: { name: str(obj(s.user).name) } };
    case "Group":
      return { kind: "Group", group: { name: str(obj(s.group).name) } };
    case "ServiceAccount": {
      const sa = obj(s.serviceAccount);
      return { kind: "ServiceAccount", serviceAccount: { namespace: str(sa.namespace), name: str(sa.name) } };
    }
    default:
      return undefined;
  }
}

function resourceRuleOf(r: Obj): ResourcePolicyRule {
  return { verbs: strings(r.verbs), apiGroups: strings(r.apiGroups), resources: strings(r.resources), clusterScope: r.clusterScope === true, namespaces: strings(r.namespaces) };
}

function nonResourceRuleOf(r: Obj): NonResourcePolicyRule {
  return { verbs: strings(r.verbs), nonResourceURLs: strings(r.nonResourceURLs) };
}

function rulesOf(spec: Obj): PolicyRulesWithSubjects[] {
  return list(spec.rules).map((rule) => ({
    subjects: list(rule.subjects)
      .map(subjectOf)
      .filter((s): s is FlowSchemaSubject => s !== undefined),
    resourceRules: list(rule.resourceRules).map(resourceRuleOf),
    nonResourceRules: list(rule.nonResourceRules).map(nonResourceRuleOf),
  }));
}

function defaulted(o: JsonObject, fill: (o: Obj) => void): { name: string; uid: string; spec: Obj } {
  const copy = structuredClone({ metadata: o.metadata, spec: o.spec }) as Obj;
  fill(copy);
  const m = obj(copy.metadata);
  return { name: str(m.name), uid: str(m.uid), spec: obj(copy.spec) };
}

export function flowSchemaView(o: JsonObject): FlowSchemaView {
  const { name, uid, spec } = defaulted(o, defaultFlowSchema);
  const method = str(obj(spec.distinguisherMethod).type);
  const view: FlowSchemaView = { name, uid, priorityLevelName: str(obj(spec.priorityLevelConfiguration).name), matchingPrecedence: num(spec.matchingPrecedence), rules: rulesOf(spec) };
  if (method === "ByUser" || method === "ByNamespace") view.distinguisherMethod = method as DistinguisherType;
  return view;
}

export function priorityLevelView(o: JsonObject): PriorityLevelView {
  const { name, uid, spec } = defaulted(o, defaultPriorityLevel);
  if (spec.type === "Exempt") {
    const exempt = obj(spec.exempt);
    return { name, uid, type: "Exempt", nominalConcurrencyShares: num(exempt.nominalConcurrencyShares), lendablePercent: num(exempt.lendablePercent) };
  }
  const limited = obj(spec.limited);
  const response = obj(limited.limitResponse);
  const queuing = obj(response.queuing);
  const view: PriorityLevelView = {
    name,
    uid,
    type: "Limited",
    nominalConcurrencyShares: num(limited.nominalConcurrencyShares),
    lendablePercent: num(limited.lendablePercent),
    limitResponse: response.type === "Reject" ? { type: "Reject" } : { type: "Queue", queuing: { queues: num(queuing.queues), handSize: num(queuing.handSize), queueLengthLimit: num(queuing.queueLengthLimit) } },
  };
  if (typeof limited.borrowingLimitPercent === "number") view.borrowingLimitPercent = limited.borrowingLimitPercent;
  return view;
}

/** Precedence, then name: the platform's matching order. */
export function byPrecedence(a: FlowSchemaView, b: FlowSchemaView): number {
  return a.matchingPrecedence - b.matchingPrecedence || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

const standIn = (name: string, spec: Obj): JsonObject => ({ metadata: { name, uid: "" }, spec: structuredClone(spec) });

/** The configuration enforced for these stored objects. */
export function buildConfig(flowSchemas: Iterable<JsonObject>, priorityLevels: Iterable<JsonObject>): FlowControlConfig {
  const levels = new Map<string, PriorityLevelView>();
  for (const o of priorityLevels) {
    const v = priorityLevelView(o);
    levels.set(v.name, v);
  }
  for (const [name, spec] of Object.entries(MANDATORY_PRIORITY_LEVEL_SPECS)) if (!levels.has(name)) levels.set(name, priorityLevelView(standIn(name, spec)));
  const schemas = new Map<string, FlowSchemaView>();
  for (const o of flowSchemas) {
    const v = flowSchemaView(o);
    schemas.set(v.name, v);
  }
  for (const [name, spec] of Object.entries(MANDATORY_FLOW_SCHEMA_SPECS)) if (!schemas.has(name)) schemas.set(name, flowSchemaView(standIn(name, spec)));
  const enforced = [...schemas.values()].filter((fs) => levels.has(fs.priorityLevelName)).sort(byPrecedence);
  return { flowSchemas: enforced, priorityLevels: [...levels.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) };
}
