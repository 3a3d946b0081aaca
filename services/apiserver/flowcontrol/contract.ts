/**
 * The contract between the two halves of API Priority and Fairness:
 * - configuration (FlowSchema / PriorityLevelConfiguration objects as served by
 *   flowcontrol.apiserver/v1, their defaulting, the mandatory and suggested
 *   objects kept by each replica, and classification of a request), and
 * - dispatch (seats per priority level from the server's concurrency limit,
 *   borrowing and lending, shuffle-sharded fair queues, 429 on rejection, the
 *   response headers, the apiserver_flowcontrol_* metrics and the debug dumps).
 * The types are the defaulted v1 shapes a replica works with; the served schema
 * lives in shared/api/groups/flowcontrol-v1.ts.
 */

export type DistinguisherType = "ByUser" | "ByNamespace";

export type FlowSchemaSubject =
  | { kind: "User"; user: { name: string } }
  | { kind: "Group"; group: { name: string } }
  | { kind: "ServiceAccount"; serviceAccount: { namespace: string; name: string } };

export interface ResourcePolicyRule {
  verbs: readonly string[];
  apiGroups: readonly string[];
  /** Plural names, `resource/subresource` for subresources, or `*`. */
  resources: readonly string[];
  clusterScope?: boolean;
  /** Namespace names or `*` (any namespace, not cluster scope). */
  namespaces?: readonly string[];
}

export interface NonResourcePolicyRule {
  verbs: readonly string[];
  /** Paths, `*`, or prefixes ending in `/*`. */
  nonResourceURLs: readonly string[];
}

export interface PolicyRulesWithSubjects {
  subjects: readonly FlowSchemaSubject[];
  resourceRules?: readonly ResourcePolicyRule[];
  nonResourceRules?: readonly NonResourcePolicyRule[];
}

export interface FlowSchemaView {
  name: string;
  uid: string;
  priorityLevelName: string;
  /** Defaulted: 1000 when unspecified. Lower wins; ties broken by name. */
  matchingPrecedence: number;
  distinguisherMethod?: DistinguisherType;
  rules: readonly PolicyRulesWithSubjects[];
}

export interface QueuingView {
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

export interface PriorityLevelView {
  name: string;
  uid: string;
  type: "Exempt" | "Limited";
  /** Defaulted: 30 only when unspecified for Limited (0 stays 0); 0 for Exempt. */
  nominalConcurrencyShares: number;
  lendablePercent: number;
  /** Limited only; undefined means no limit on borrowing. */
  borrowingLimitPercent?: number;
  /** Limited only. */
  limitResponse?: { type: "Queue"; queuing: QueuingView } | { type: "Reject" };
}

/** The configuration a replica currently enforces (FlowSchemas sorted by precedence, then name). */
export interface FlowControlConfig {
  readonly flowSchemas: readonly FlowSchemaView[];
  readonly priorityLevels: readonly PriorityLevelView[];
}

/** Kept current from the watch cache by the configuration half; read by the dispatch half. */
export interface FlowControlConfigSource {
  current(): FlowControlConfig;
  /** Called after each change; returns the unsubscribe function. */
  subscribe(listener: (config: FlowControlConfig) => void): () => void;
}

/** What classification looks at. */
export interface FlowControlRequest {
  user: { name: string; groups: readonly string[] };
  verb: string;
  isResourceRequest: boolean;
  /** Resource requests: "" for the core group. */
  apiGroup: string;
  resource: string;
  subresource: string;
  /** "" for cluster-scoped resource requests. */
  namespace: string;
  /** Non-resource requests: the request path. */
  path: string;
}

export interface Classification {
  flowSchema: { name: string; uid: string; matchingPrecedence: number };
  priorityLevel: PriorityLevelView;
  /** The distinguisher value (user name or namespace), "" when the schema has none. */
  flowDistinguisher: string;
}

/**
 * Classifies a request against the current configuration; always returns a
 * classification (the mandatory `catch-all` schema matches everything).
 */
export type Classifier = (request: FlowControlRequest) => Classification;
