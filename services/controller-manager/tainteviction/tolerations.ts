/**
 * NoExecute taints against a pod's tolerations, pure, as the platform's taint
 * eviction decides: a pod that does not tolerate every NoExecute taint of its node is
 * evicted at once; one that tolerates them all stays forever unless a matching
 * toleration has `tolerationSeconds`, and then is evicted when the smallest of those
 * has passed since the taint was added.
 */
export interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if ((t.operator ?? "Equal") === "Exists") return !t.key || t.key === taint.key;
  return t.key === taint.key && (t.value ?? "") === (taint.value ?? "");
}

/** When the pod must go (ms since the epoch), or undefined when it may stay. */
export function evictionTime(taints: readonly Taint[], tolerations: readonly Toleration[], nowMs: number): number | undefined {
  const noExecute = taints.filter((t) => t.effect === "NoExecute");
  let at: number | undefined;
  for (const taint of noExecute) {
    const matching = tolerations.filter((t) => tolerates(t, taint));
    if (matching.length === 0) return nowMs;
    const bounded = matching.filter((t) => typeof t.tolerationSeconds === "number");
    if (bounded.length < matching.length) continue; // a matching toleration without a bound keeps the pod for this taint
    const seconds = Math.max(0, Math.min(...bounded.map((t) => t.tolerationSeconds as number)));
    const added = Date.parse(taint.timeAdded ?? "");
    const due = (Number.isNaN(added) ? nowMs : added) + seconds * 1000;
    at = at === undefined ? due : Math.min(at, due);
  }
  return at;
}
