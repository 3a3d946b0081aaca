/**
 * Tracking of legacy (secret-based) service account tokens, as the platform's API
 * server does it when such a token authenticates with lookup on:
 *
 * - the Secret gets the profile's last-used label set to today's UTC date, at most
 *   once a day: a label that already says today (or tomorrow, another replica's clock
 *   being ahead) is left alone. The write goes out in the background with the
 *   Secret's uid as precondition; the request never waits for it and never fails
 *   because of it (a failure is logged, the next use tries again). Concurrent uses of
 *   one Secret on this replica share one write.
 * - a Secret that carries the invalid-since label (set by the controller manager's
 *   legacy token cleaner) no longer authenticates; its use is still recorded, the
 *   refusal names the label to remove to allow the token again, and it carries the
 *   platform's `<authentication group>/legacy-token-invalidated: <secret>/<namespace>`
 *   audit annotation (authn/types.ts `failureAuditAnnotations`).
 * - a client using an auto-generated token is warned (`AUTO_GENERATED_TOKEN_WARNING`);
 * - the platform's counters: `serviceaccount_legacy_auto_token_uses_total` (the
 *   Secret is listed by its service account), `serviceaccount_legacy_manual_token_uses_total`
 *   (it is not) and `serviceaccount_invalid_legacy_auto_token_uses_total` (refused as invalid).
 */
import { utcDate, DAY_MS } from "../../../shared/api/calendar-date.ts";
import { unauthorized, type StatusError } from "../../../shared/api/status.ts";
import type { LogFn } from "../../../shared/observability/logger.ts";
import type { MetricsRegistry } from "../../../shared/observability/metrics.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { withFailureAuditAnnotations } from "./types.ts";

/** The platform's warning to a client that authenticates with an auto-generated (listed by its account) legacy token. */
export const AUTO_GENERATED_TOKEN_WARNING = "Use tokens from the TokenRequest API or manually created secret-based tokens instead of auto-generated secret-based tokens.";

/** Writes labels onto a Secret whose uid is still `uid` (a merge of the labels; others are kept). */
export type SecretLabelWriter = (namespace: string, name: string, uid: string, labels: Record<string, string>) => Promise<void>;

/** Whether a last-used label needs writing at `now`: it says neither today nor tomorrow (UTC). */
export function lastUsedNeedsUpdate(lastUsed: string | undefined, now: Date): boolean {
  const today = utcDate(now);
  const tomorrow = utcDate(now.getTime() + DAY_MS);
  return lastUsed !== today && lastUsed !== tomorrow;
}

export interface LegacyTokenMetrics {
  autoUses: { inc(): void };
  manualUses: { inc(): void };
  invalidAutoUses: { inc(): void };
}

const declared = new WeakMap<MetricsRegistry, LegacyTokenMetrics>();

/** Declares the legacy token counters once per registry. */
export function legacyTokenMetrics(m: MetricsRegistry): LegacyTokenMetrics {
  let metrics = declared.get(m);
  if (!metrics) {
    const counter = (name: string, help: string) => m.counter({ name: `serviceaccount_${name}`, help, stabilityLevel: "ALPHA" });
    metrics = {
      autoUses: counter("legacy_auto_token_uses_total", "Cumulative auto-generated legacy tokens used"),
      manualUses: counter("legacy_manual_token_uses_total", "Cumulative manually created legacy tokens used"),
      invalidAutoUses: counter("invalid_legacy_auto_token_uses_total", "Cumulative invalid auto-generated legacy tokens used"),
    };
    declared.set(m, metrics);
  }
  return metrics;
}

interface SecretMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
}

export interface LegacyTokenUseOptions {
  profile: PlatformProfile;
  /** Absent: uses are not recorded (the invalid-since label is still honoured). */
  write?: SecretLabelWriter;
  now?: () => Date;
  log?: LogFn;
  metrics?: LegacyTokenMetrics;
}

export class LegacyTokenUse {
  private readonly now: () => Date;
  /** `<namespace>/<name>` of Secrets whose last-used write is in flight. */
  private readonly inFlight = new Set<string>();

  constructor(private readonly o: LegacyTokenUseOptions) {
    this.now = o.now ?? (() => new Date());
  }

  /**
   * Records a use of the token in `secret` of `account` (in the background) and
   * returns the refusal when the Secret is marked invalid, undefined when the token
   * may be used. `listedByAccount`: the account lists the Secret (an auto-generated token).
   */
  use(secret: Record<string, unknown>, account: { name: string; listedByAccount: boolean }): StatusError | undefined {
    const meta = (secret.metadata ?? {}) as SecretMeta;
    const labels = meta.labels ?? {};
    this.recordUse(meta, labels[this.o.profile.labels.legacyTokenLastUsed]);
    const invalidLabel = this.o.profile.labels.legacyTokenInvalidSince;
    if (labels[invalidLabel]) {
      this.o.metrics?.invalidAutoUses.inc();
      const ns = meta.namespace ?? "";
      const refusal = unauthorized(
        `the token in secret ${ns}/${meta.name ?? ""} for service account ${ns}/${account.name} has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the '${invalidLabel}' label from the secret to temporarily allow use of this token`,
      );
      // The platform's audit annotation of a refused invalidated token: `<secret name>/<namespace>`.
      return withFailureAuditAnnotations(refusal, { [`${this.o.profile.group("authentication")}/legacy-token-invalidated`]: `${meta.name ?? ""}/${ns}` });
    }
    (account.listedByAccount ? this.o.metrics?.autoUses : this.o.metrics?.manualUses)?.inc();
    return undefined;
  }

  private recordUse(meta: SecretMeta, lastUsed: string | undefined): void {
    const now = this.now();
    const write = this.o.write;
    if (!write || !meta.name || !meta.namespace || !lastUsedNeedsUpdate(lastUsed, now)) return;
    const key = `${meta.namespace}/${meta.name}`;
    if (this.inFlight.has(key)) return;
    this.inFlight.add(key);
    const labels = { [this.o.profile.labels.legacyTokenLastUsed]: utcDate(now) };
    void write(meta.namespace, meta.name, meta.uid ?? "", labels)
      .catch((err: unknown) => this.o.log?.("warn", "failed to label legacy service account token secret with last-used date", { secret: key, error: err instanceof Error ? err.message : String(err) }))
      .finally(() => this.inFlight.delete(key));
  }
}
