/**
 * Node status as the agent computes it (pure): the five condition types with
 * `lastHeartbeatTime` set on every computation and `lastTransitionTime` only when a
 * condition's status changes, and the decision to post: when anything but heartbeat
 * times changed, or when the last post is at least `reportFrequencyMs` old.
 */

export type ConditionStatus = "True" | "False" | "Unknown";

export interface NodeCondition {
  type: string;
  status: ConditionStatus;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

/** What the agent observed, without times. */
export interface ObservedCondition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
}

export interface NodeAddress {
  type: string;
  address: string;
}

export interface NodeStatusBody {
  capacity?: Record<string, string>;
  allocatable?: Record<string, string>;
  conditions?: NodeCondition[];
  addresses?: NodeAddress[];
  nodeInfo?: Record<string, string>;
  daemonEndpoints?: { kubeletEndpoint: { Port: number } };
}

/** The condition types the agent reports, in the platform's order. */
export const CONDITION_TYPES = ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready", "NetworkUnavailable"] as const;

/** Seconds-precision RFC 3339 time, as the API's Time fields are written. */
export function apiTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

export interface Health {
  /** Undefined when the container runtime answered; otherwise why it did not. */
  runtimeError?: string;
}

/** The conditions the agent observes from its health checks. */
export function observeConditions(h: Health): ObservedCondition[] {
  const ready: ObservedCondition = h.runtimeError
    ? { type: "Ready", status: "False", reason: "KubeletNotReady", message: `container runtime is down: ${h.runtimeError}` }
    : { type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status" };
  return [
    { type: "MemoryPressure", status: "False", reason: "KubeletHasSufficientMemory", message: "kubelet has sufficient memory available" },
    { type: "DiskPressure", status: "False", reason: "KubeletHasNoDiskPressure", message: "kubelet has no disk pressure" },
    { type: "PIDPressure", status: "False", reason: "KubeletHasSufficientPID", message: "kubelet has sufficient PID available" },
    ready,
    { type: "NetworkUnavailable", status: "False", reason: "RouteCreated", message: "node network is configured" },
  ];
}

/**
 * Merges observations into the previous conditions at time `now`: every condition gets
 * `lastHeartbeatTime = now`; `lastTransitionTime` is `now` for a new condition or a
 * changed status and is kept otherwise. Conditions of other types are kept unchanged.
 */
export function updateConditions(previous: readonly NodeCondition[] | undefined, observed: readonly ObservedCondition[], now: string): NodeCondition[] {
  const prev = new Map((previous ?? []).map((c) => [c.type, c]));
  const out: NodeCondition[] = observed.map((o) => {
    const old = prev.get(o.type);
    const transition = !old || old.status !== o.status || !old.lastTransitionTime ? now : old.lastTransitionTime;
    return { type: o.type, status: o.status, reason: o.reason, message: o.message, lastHeartbeatTime: now, lastTransitionTime: transition };
  });
  const seen = new Set(observed.map((o) => o.type));
  for (const c of previous ?? []) if (!seen.has(c.type)) out.push(c);
  return out;
}

function withoutHeartbeats(s: NodeStatusBody): unknown {
  const conditions = [...(s.conditions ?? [])]
    .map(({ lastHeartbeatTime: _ignored, ...rest }) => rest)
    .sort((a, b) => a.type.localeCompare(b.type));
  return { ...s, conditions };
}

function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) =>
    val && typeof val === "object" && !Array.isArray(val) ? Object.fromEntries(Object.entries(val as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b))) : val,
  );
}

/** True when the statuses differ in anything but the conditions' heartbeat times. */
export function statusChanged(before: NodeStatusBody, after: NodeStatusBody): boolean {
  return canonical(withoutHeartbeats(before)) !== canonical(withoutHeartbeats(after));
}

/** Post when something changed, when nothing was posted yet, or when the last post is `reportFrequencyMs` old. */
export function shouldPostStatus(o: { changed: boolean; nowMs: number; lastPostMs: number | undefined; reportFrequencyMs: number }): boolean {
  if (o.changed || o.lastPostMs === undefined) return true;
  return o.nowMs - o.lastPostMs >= o.reportFrequencyMs;
}
