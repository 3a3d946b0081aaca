/**
 * The API server's part of legacy service account token tracking that needs the
 * registry:
 *
 * - `LegacyTokenTracking`, the platform's legacy token tracking controller, run by
 *   every replica: the profile's tracking ConfigMap in the system namespace holds
 *   `since`, the UTC date from which the API servers record legacy token use. The
 *   controller watches it: a missing one is created with today's date (also when it
 *   is deleted while the replica runs: as the platform's, it does not bring back the
 *   old date), one whose `since` is not a date gets today's; a valid date is never
 *   moved (the controller manager's cleaner counts its period from it). Creations are
 *   rate limited as the platform's: one per `creationIntervalMs` (30 minutes) with a
 *   burst of one, so a replica that created it at start-up re-creates it only at the
 *   end of that interval, while one that found it there re-creates it at once.
 *   Replicas may race: writes are guarded, and a failure is logged and retried.
 * - `catalogSecretLabelWriter`: the label write of `LegacyTokenUse` (authn), a guarded
 *   update of the Secret as the server's own user (admission applies), refused when
 *   the Secret is gone or has another uid.
 */
import { isStatusError } from "../../../shared/api/status.ts";
import { parseUtcDate, utcDate } from "../../../shared/api/calendar-date.ts";
import type { LogFn } from "../../../shared/observability/logger.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { SecretLabelWriter } from "../authn/legacy-token-use.ts";
import type { Catalog } from "../registry/catalog.ts";
import type { Registry } from "../registry/registry.ts";
import type { Watcher } from "../storage/interface.ts";
import { StorageError, UidPreconditionError } from "../storage/errors.ts";
import { isObject, meta, type JsonObject } from "../storage/object.ts";

/** The tracking ConfigMap's data key. */
export const TRACKING_SINCE_KEY = "since";

/** The platform's rate of creations of the tracking ConfigMap: one per 30 minutes. */
export const DEFAULT_TRACKING_CREATION_INTERVAL_MS = 30 * 60 * 1000;

const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 5000;

function trackingSince(cm: JsonObject | undefined): string | undefined {
  const since = cm && isObject(cm.data) ? cm.data[TRACKING_SINCE_KEY] : undefined;
  return typeof since === "string" && parseUtcDate(since) !== undefined ? since : undefined;
}

export interface LegacyTokenTrackingOptions {
  now?: () => Date;
  /** At most one creation per interval (burst one); default `DEFAULT_TRACKING_CREATION_INTERVAL_MS`. */
  creationIntervalMs?: number;
  log?: LogFn;
}

export class LegacyTokenTracking {
  private readonly registry: Registry | undefined;
  private readonly namespace: string;
  private readonly name: string;
  private readonly now: () => Date;
  private readonly intervalMs: number;
  /** When the last creation (or creation found done by another replica) took the rate limit's one token. */
  private lastCreationMs: number | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private watcher: Watcher | undefined;
  private stopped = false;
  private retryMs = RETRY_MIN_MS;

  constructor(
    catalog: Catalog,
    profile: PlatformProfile,
    private readonly o: LegacyTokenTrackingOptions = {},
  ) {
    this.registry = catalog.lookup("", "v1", "configmaps")?.registry;
    this.namespace = profile.systemNamespace;
    this.name = profile.serviceAccount.legacyTokenTrackingConfigMap;
    this.now = o.now ?? (() => new Date());
    this.intervalMs = o.creationIntervalMs ?? DEFAULT_TRACKING_CREATION_INTERVAL_MS;
  }

  /** Syncs once (resolves when done, never rejects), then keeps watching the ConfigMap. */
  async start(): Promise<void> {
    const registry = this.registry;
    if (!registry) return;
    const list = await this.list(registry);
    if (list) await this.sync(list.items[0]);
    void this.run(registry, list?.resourceVersion);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.watcher?.stop();
  }

  private readonly isTracking = (obj: JsonObject): boolean => meta(obj).name === this.name;

  private async list(registry: Registry): Promise<{ items: JsonObject[]; resourceVersion: string } | undefined> {
    try {
      return await registry.list({ namespace: this.namespace, predicate: this.isTracking });
    } catch (err) {
      this.warn("legacy service account token tracking ConfigMap not read", err);
      return undefined;
    }
  }

  /** Watches from `from` (a fresh list when absent or after the watch ends), syncing on every event. */
  private async run(registry: Registry, from: string | undefined): Promise<void> {
    while (!this.stopped) {
      try {
        if (from === undefined) {
          const list = await registry.list({ namespace: this.namespace, predicate: this.isTracking });
          await this.sync(list.items[0]);
          from = list.resourceVersion;
        }
        this.watcher = await registry.watch({ namespace: this.namespace, resourceVersion: from, predicate: this.isTracking, allowWatchBookmarks: true });
        from = undefined;
        if (this.stopped) break;
        this.retryMs = RETRY_MIN_MS;
        for (;;) {
          const ev = await this.watcher.next();
          if (!ev || ev.type === "ERROR") break;
          if (ev.type !== "BOOKMARK") await this.sync(ev.type === "DELETED" ? undefined : ev.object);
        }
      } catch (err) {
        if (this.stopped) break;
        from = undefined;
        this.warn("legacy service account token tracking watch failed", err);
        await new Promise((r) => setTimeout(r, this.retryMs).unref());
        this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
      } finally {
        this.watcher?.stop();
      }
    }
  }

  /** Brings the ConfigMap (`current`, undefined when missing) to a valid `since`; never throws. */
  private async sync(current: JsonObject | undefined): Promise<void> {
    const registry = this.registry;
    if (!registry || this.stopped || trackingSince(current)) return;
    const nowMs = this.now().getTime();
    if (!current && this.lastCreationMs !== undefined && nowMs - this.lastCreationMs < this.intervalMs) {
      this.retryAt(this.lastCreationMs + this.intervalMs - nowMs);
      return;
    }
    try {
      const { namespace, name } = this;
      await registry.update(
        namespace,
        name,
        (latest) => {
          if (latest && trackingSince(latest)) return latest; // another replica was first
          const base: JsonObject = latest ?? { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace } };
          const data = isObject(base.data) ? base.data : {};
          return { ...base, data: { ...data, [TRACKING_SINCE_KEY]: utcDate(this.now()) } };
        },
        { dryRun: false },
        { forceAllowCreate: true },
      );
      if (!current) this.lastCreationMs = nowMs;
    } catch (err) {
      if (isStatusError(err, "NotFound") || isStatusError(err, "Conflict")) return; // the watch brings the next state
      this.warn("legacy service account token tracking ConfigMap not written", err);
      this.retryAt(this.retryMs);
    }
  }

  /** Syncs again from a fresh read after `ms` (one pending retry at a time). */
  private retryAt(ms: number): void {
    if (this.retryTimer || this.stopped) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      const registry = this.registry;
      if (!registry) return;
      void this.list(registry).then((list) => (list ? this.sync(list.items[0]) : this.retryAt(this.retryMs)));
    }, ms);
    this.retryTimer.unref();
  }

  private warn(msg: string, err: unknown): void {
    this.o.log?.("warn", msg, { configmap: `${this.namespace}/${this.name}`, error: err instanceof Error ? err.message : String(err) });
  }
}

export function catalogSecretLabelWriter(catalog: () => Catalog | undefined): SecretLabelWriter {
  return async (namespace, name, uid, labels) => {
    const registry = catalog()?.lookup("", "v1", "secrets")?.registry;
    if (!registry) return;
    await registry.update(
      namespace,
      name,
      (current) => {
        const key = registry.key(namespace, name);
        if (!current) throw new StorageError("NotFound", key, `key ${key} not found`);
        const m = meta(current);
        if (uid && m.uid !== uid) throw new UidPreconditionError(key, uid, m.uid ?? "");
        return { ...current, metadata: { ...m, labels: { ...(m.labels ?? {}), ...labels } } };
      },
      { dryRun: false },
    );
  };
}
