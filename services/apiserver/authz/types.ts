/**
 * The authorization model: attributes of a request, an authorizer's decision,
 * and the interfaces every mode implements. Authorizers are pure with respect to
 * the request: they read attributes and in-memory state, never the request body.
 */
import type { SelectorRequirement } from "../../../shared/api/selectors.ts";

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** A parsed selector of a list, watch or deletecollection request, or why it did not parse. */
export interface SelectorAttributes {
  raw: string;
  requirements: SelectorRequirement[];
  error?: string;
}

/** Everything an authorizer may look at (the platform's `authorizer.Attributes`). */
export interface Attributes {
  user: UserInfo;
  /** API verb for resource requests, lowercase HTTP method otherwise. */
  verb: string;
  isResourceRequest: boolean;
  /** Request path (non-resource requests are matched on it). */
  path: string;
  namespace: string;
  /** "" is the core group. */
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
  /** Set only when selector authorization is on and the request carries one. */
  fieldSelector?: SelectorAttributes;
  labelSelector?: SelectorAttributes;
}

export type DecisionKind = "Allow" | "Deny" | "NoOpinion";

export interface Decision {
  decision: DecisionKind;
  /** Why (shown to the user on denial, logged on allow). */
  reason: string;
  /** An evaluation error that did not stop the decision (reported in reviews). */
  error?: string;
}

export const ALLOW = (reason = ""): Decision => ({ decision: "Allow", reason });
export const DENY = (reason = ""): Decision => ({ decision: "Deny", reason });
export const NO_OPINION = (reason = "", error?: string): Decision => (error ? { decision: "NoOpinion", reason, error } : { decision: "NoOpinion", reason });

export interface Authorizer {
  /** A short name for logs and review reasons (`RBAC`, `Node`, a webhook's name). */
  readonly name: string;
  authorize(attrs: Attributes): Promise<Decision> | Decision;
}

/** One resource rule of a rules review. */
export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

export interface RulesResult {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  /** True when the authorizer cannot list everything it would allow (webhooks, conditional grants). */
  incomplete: boolean;
  errors: string[];
}

/** Authorizers that can list what a user may do in a namespace (SelfSubjectRulesReview). */
export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): RulesResult;
}

export function isRuleResolver(a: unknown): a is RuleResolver {
  return typeof (a as Partial<RuleResolver> | undefined)?.rulesFor === "function";
}

/** Group every authenticated user has, and the one anonymous requests get. */
export const ALL_AUTHENTICATED = "system:authenticated";
export const ALL_UNAUTHENTICATED = "system:unauthenticated";
/** The group that bypasses authorization (bound to cluster-admin by default). */
export const PRIVILEGED_GROUP = "system:masters";
export const NODES_GROUP = "system:nodes";
export const NODE_USER_PREFIX = "system:node:";
export const MONITORING_GROUP = "system:monitoring";
export const SERVICE_ACCOUNT_USER_PREFIX = "system:serviceaccount:";
export const ALL_SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts";

/** `system:serviceaccount:<namespace>:<name>`. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${name}`;
}

export const READ_VERBS: ReadonlySet<string> = new Set(["get", "list", "watch"]);
