/**
 * The legacy service account token cleaner
 * (`legacy-serviceaccount-token-cleaner-controller`, on by default as in the
 * platform): once a day (and at start) it reads the API servers' tracking ConfigMap
 * and, when tracking has run for a whole `--legacy-service-account-token-clean-up-period`,
 * looks at every service account token Secret in its informer's cache and applies the
 * rules of legacy-token-rules.ts: an auto-generated token unused for the period (not
 * mounted by a pod) gets the profile's invalid-since label (a merge patch guarded by
 * the Secret's uid), and one still unused a period after that date is deleted (guarded
 * by its resourceVersion). The API server refuses tokens of a Secret with the label;
 * removing the label makes the token usable again (and starts a new period).
 *
 * The clock and the sync interval are settings (no flags) so that tests can move time.
 * A failed read of the ConfigMap or a failed write is logged; the next round retries.
 */
import { DAY_MS } from "../../../shared/api/calendar-date.ts";
import { accountListsSecret, podSecretNames } from "../../../shared/api/secret-references.ts";
import { isStatusError } from "../../../shared/api/status.ts";
import type { ApiObject } from "../../../shared/client/object-client.ts";
import type { Informer } from "../../../shared/client/informer.ts";
import { recordAction, type Controller, type ControllerContext } from "../context.ts";
import { decideLegacyToken, trackedLongEnough, type CleanerAction, type CleanerTime, type TokenFacts } from "./legacy-token-rules.ts";

const NAME = "legacy-serviceaccount-token-cleaner-controller";
const SECRETS = { group: "", version: "v1", resource: "secrets" };
const SERVICE_ACCOUNTS = { group: "", version: "v1", resource: "serviceaccounts" };
const PODS = { group: "", version: "v1", resource: "pods" };
const CONFIGMAPS = { group: "", version: "v1", resource: "configmaps" };
/** The tracking ConfigMap's data key. */
const SINCE_KEY = "since";
/** `--legacy-service-account-token-clean-up-period`'s default: one year (8760h). */
export const DEFAULT_LEGACY_TOKEN_CLEAN_UP_PERIOD_MS = 365 * DAY_MS;
/** How often the platform's cleaner looks at the tokens. */
export const DEFAULT_LEGACY_TOKEN_CLEANER_SYNC_INTERVAL_MS = DAY_MS;
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The cached facts of one Secret; pods are read once per namespace and round. */
class TokenFactsReader {
  private readonly mountedByNamespace = new Map<string, Set<string>>();

  constructor(
    private readonly ctx: ControllerContext,
    private readonly accounts: Informer,
    private readonly pods: Informer,
  ) {}

  facts(secret: ApiObject): TokenFacts {
    const m = secret.metadata;
    const labels = m.labels ?? {};
    const namespace = m.namespace ?? "";
    const name = m.name ?? "";
    const created = Date.parse(m.creationTimestamp ?? "");
    return {
      isToken: secret.type === this.ctx.profile.secretTypes.serviceAccountToken,
      createdAt: Number.isNaN(created) ? Infinity : created,
      deleting: !!m.deletionTimestamp,
      lastUsed: labels[this.ctx.profile.labels.legacyTokenLastUsed],
      invalidSince: labels[this.ctx.profile.labels.legacyTokenInvalidSince],
      listedByAccount: this.listedByAccount(secret),
      mounted: this.mounted(namespace).has(name),
    };
  }

  /** Its service account (by the Secret's annotations, same uid when one is given) lists it in `secrets`. */
  private listedByAccount(secret: ApiObject): boolean {
    const annotations = secret.metadata.annotations ?? {};
    const accountName = annotations[this.ctx.profile.annotations.serviceAccountName];
    if (!accountName) return false;
    const account = this.accounts.get(`${secret.metadata.namespace ?? ""}/${accountName}`);
    if (!account) return false;
    const uid = annotations[this.ctx.profile.annotations.serviceAccountUid];
    if (uid && uid !== account.metadata.uid) return false;
    return accountListsSecret(account, secret.metadata.name ?? "");
  }

  private mounted(namespace: string): Set<string> {
    let names = this.mountedByNamespace.get(namespace);
    if (!names) {
      names = new Set<string>();
      for (const pod of this.pods.list(namespace)) for (const n of podSecretNames(pod)) names.add(n);
      this.mountedByNamespace.set(namespace, names);
    }
    return names;
  }
}

export function startLegacyTokenCleaner(ctx: ControllerContext): Controller {
  const periodMs = ctx.settings.legacyTokenCleanUpPeriodMs ?? DEFAULT_LEGACY_TOKEN_CLEAN_UP_PERIOD_MS;
  const intervalMs = ctx.settings.legacyTokenCleanerSyncIntervalMs ?? DEFAULT_LEGACY_TOKEN_CLEANER_SYNC_INTERVAL_MS;
  const clock = ctx.settings.legacyTokenCleanerClock ?? Date.now;
  const secrets = ctx.informers.informer(SECRETS, { fieldSelector: `type=${ctx.profile.secretTypes.serviceAccountToken}` });
  const accounts = ctx.informers.informer(SERVICE_ACCOUNTS);
  const pods = ctx.informers.informer(PODS);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  async function trackedSince(): Promise<string | undefined> {
    const cm = await ctx.client.get(CONFIGMAPS, ctx.profile.serviceAccount.legacyTokenTrackingConfigMap, { namespace: ctx.profile.systemNamespace });
    const since = (cm.data as Record<string, unknown> | undefined)?.[SINCE_KEY];
    return typeof since === "string" ? since : undefined;
  }

  async function act(secret: ApiObject, action: CleanerAction): Promise<void> {
    const namespace = secret.metadata.namespace ?? "";
    const name = secret.metadata.name ?? "";
    const fields = { secret: `${namespace}/${name}` };
    if (action.action === "invalidate") {
      ctx.log("info", "Mark the auto-generated service account token as invalid", { ...fields, invalidSince: action.since });
      recordAction(ctx, NAME, "patch", SECRETS, namespace, name);
      const patch = { metadata: { uid: secret.metadata.uid, labels: { [ctx.profile.labels.legacyTokenInvalidSince]: action.since } } };
      await ctx.client.patch(SECRETS, name, "merge", patch, { namespace });
    } else if (action.action === "delete") {
      ctx.log("info", "Delete auto-generated service account token", { ...fields, creationTime: secret.metadata.creationTimestamp });
      recordAction(ctx, NAME, "delete", SECRETS, namespace, name);
      try {
        await ctx.client.delete(SECRETS, name, { namespace, preconditions: { resourceVersion: secret.metadata.resourceVersion } });
      } catch (err) {
        if (!isStatusError(err, "NotFound") && !isStatusError(err, "Conflict")) throw err;
      }
    }
  }

  async function evaluate(): Promise<void> {
    let since: string | undefined;
    try {
      since = await trackedSince();
    } catch (err) {
      ctx.log("warn", "legacy token cleaner: cannot read the tracking ConfigMap", { error: err instanceof Error ? err.message : String(err) });
      return;
    }
    const time: CleanerTime = { nowMs: clock(), periodMs, trackedSince: since };
    if (!trackedLongEnough(time)) return; // not tracked for a whole period yet
    const reader = new TokenFactsReader(ctx, accounts, pods);
    for (const secret of secrets.list()) {
      if (stopped) return;
      try {
        await act(secret, decideLegacyToken(reader.facts(secret), time));
      } catch (err) {
        ctx.log("warn", "legacy token cleaner: write failed", { secret: `${secret.metadata.namespace ?? ""}/${secret.metadata.name ?? ""}`, error: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  async function round(): Promise<void> {
    await evaluate();
    if (!stopped) timer = setTimeout(() => void round(), Math.min(intervalMs, MAX_TIMER_MS));
  }

  return {
    run: () => void round(),
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
