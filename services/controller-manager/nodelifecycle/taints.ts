/**
 * The pure part of node lifecycle: which condition-driven taints a node should carry
 * for its Ready condition (True: none; False: not-ready NoSchedule + NoExecute;
 * Unknown: unreachable NoSchedule + NoExecute; no Ready condition yet: leave them),
 * the taint list that results (other taints untouched, `timeAdded` kept for taints
 * already there), and the conditions a silent node gets (every condition Unknown,
 * reason NodeStatusUnknown, or NodeStatusNeverUpdated when it never reported Ready).
 */
export interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

export interface NodeCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

export interface TaintKeys {
  unreachable: string;
  notReady: string;
}

/** Condition types the platform sets to Unknown besides the ones a node reported. */
export const MONITORED_CONDITIONS = ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"];

export function desiredConditionTaints(keys: TaintKeys, ready: string | undefined): Array<{ key: string; effect: string }> | undefined {
  if (ready === undefined) return undefined;
  if (ready === "True") return [];
  const key = ready === "False" ? keys.notReady : keys.unreachable;
  return [
    { key, effect: "NoSchedule" },
    { key, effect: "NoExecute" },
  ];
}

/** The node's taints with the condition taints made to match; undefined when nothing changes. */
export function reconcileTaints(keys: TaintKeys, current: readonly Taint[], ready: string | undefined, now: string): Taint[] | undefined {
  const want = desiredConditionTaints(keys, ready);
  if (!want) return undefined;
  const managed = (t: Taint) => t.key === keys.unreachable || t.key === keys.notReady;
  const isWanted = (t: Taint) => want.some((w) => w.key === t.key && w.effect === t.effect);
  const kept = current.filter((t) => !managed(t) || isWanted(t));
  const added = want.filter((w) => !kept.some((t) => t.key === w.key && t.effect === w.effect)).map((w) => (w.effect === "NoExecute" ? { ...w, timeAdded: now } : { ...w }));
  if (added.length === 0 && kept.length === current.length) return undefined;
  return [...kept, ...added];
}

/** The conditions of a node that stopped reporting: all Unknown, heartbeats kept. */
export function unknownConditions(current: readonly NodeCondition[], now: string): NodeCondition[] {
  const neverReported = !current.some((c) => c.type === "Ready");
  const out = current.map((c) =>
    c.status === "Unknown" ? c : { ...c, status: "Unknown", reason: "NodeStatusUnknown", message: "Kubelet stopped posting node status.", lastTransitionTime: now },
  );
  for (const type of MONITORED_CONDITIONS) {
    if (out.some((c) => c.type === type)) continue;
    out.push({ type, status: "Unknown", reason: neverReported ? "NodeStatusNeverUpdated" : "NodeStatusUnknown", message: neverReported ? "Kubelet never posted node status." : "Kubelet stopped posting node status.", lastHeartbeatTime: now, lastTransitionTime: now });
  }
  return out;
}
