/**
 * Periodic compaction of the store's history, as the platform's API server drives it:
 * every interval the revision seen one interval earlier is compacted, so at least one
 * full interval of history stays readable (watch resumption, `resourceVersion` reads
 * and continue tokens within it keep working). An interval of 0 (or less) disables it.
 * Several replicas compact the same store: a compaction the store refuses (already past
 * that revision) is ignored; failing to read the current revision is logged. Ticks never
 * overlap, and the timer never holds the process open.
 */
import type { LogFn } from "../../../shared/observability/logger.ts";
import type { KvStore } from "./kv.ts";

/** The default of `--etcd-compaction-interval`. */
export const DEFAULT_COMPACTION_INTERVAL_MS = 5 * 60 * 1000;

export interface Compactor {
  stop(): void;
}

export function startCompactor(kv: Pick<KvStore, "currentRevision" | "compact">, intervalMs: number, log?: LogFn): Compactor {
  if (!(intervalMs > 0)) return { stop() {} };
  let lastSeen = 0;
  let running = false;
  const tick = async (): Promise<void> => {
    const current = await kv.currentRevision();
    // Another replica may have compacted past this revision already: that is not a failure.
    if (lastSeen > 0) await kv.compact(lastSeen).catch(() => {});
    lastSeen = current;
  };
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    tick()
      .catch((err: unknown) => log?.("warn", "compaction failed", { error: String(err) }))
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
