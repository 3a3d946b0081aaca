/**
 * The API server's part of legacy service account token tracking that needs the
 * registry:
 *
 * - `ensureLegacyTokenTracking`, run once at start-up: the profile's tracking
 *   ConfigMap in the system namespace holds `since`, the UTC date from which the API
 *   servers record legacy token use. A missing ConfigMap is created with today's date,
 *   one whose `since` is not a date gets today's; a valid date is never moved (the
 *   controller manager's cleaner counts its period from it). Replicas may race: the
 *   write is a guarded update, and a failure is logged, never fatal to start-up.
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
import { StorageError, UidPreconditionError } from "../storage/errors.ts";
import { isObject, meta, type JsonObject } from "../storage/object.ts";

/** The tracking ConfigMap's data key. */
export const TRACKING_SINCE_KEY = "since";

function trackingSince(cm: JsonObject | undefined): string | undefined {
  const since = cm && isObject(cm.data) ? cm.data[TRACKING_SINCE_KEY] : undefined;
  return typeof since === "string" && parseUtcDate(since) !== undefined ? since : undefined;
}

export async function ensureLegacyTokenTracking(catalog: Catalog, profile: PlatformProfile, now: () => Date = () => new Date(), log?: LogFn): Promise<void> {
  const registry = catalog.lookup("", "v1", "configmaps")?.registry;
  if (!registry) return;
  const namespace = profile.systemNamespace;
  const name = profile.serviceAccount.legacyTokenTrackingConfigMap;
  try {
    const existing = await registry.get(namespace, name).catch((err: unknown) => {
      if (isStatusError(err, "NotFound")) return undefined;
      throw err;
    });
    if (trackingSince(existing)) return;
    await registry.update(
      namespace,
      name,
      (current) => {
        if (current && trackingSince(current)) return current; // another replica was first
        const base: JsonObject = current ?? { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace } };
        const data = isObject(base.data) ? base.data : {};
        return { ...base, data: { ...data, [TRACKING_SINCE_KEY]: utcDate(now()) } };
      },
      { dryRun: false },
      { forceAllowCreate: true },
    );
  } catch (err) {
    log?.("warn", "legacy service account token tracking ConfigMap not written", { configmap: `${namespace}/${name}`, error: err instanceof Error ? err.message : String(err) });
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
