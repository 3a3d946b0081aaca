/**
 * The legacy service account token cleaner's decisions, pure: dates and facts in, one
 * action out. The platform's rules (release 1.35), for a token Secret of a cluster
 * whose API servers have tracked legacy token use since `trackedSince`:
 *
 * - nothing is done until tracking has run for a whole period: from 00:00 UTC of the
 *   day after `trackedSince`, plus the clean-up period;
 * - a Secret is kept when it is not of the service account token type, was created
 *   less than a period ago, is being deleted, was last used on or after the date one
 *   period ago (a malformed last-used date keeps it too: its use cannot be told), is
 *   not listed in its service account's `secrets` (only auto-generated tokens are
 *   cleaned; a missing account or one with another uid counts as not listing it), or
 *   is mounted or otherwise referenced by a pod of its namespace;
 * - otherwise it is marked invalid (the invalid-since label set to today) when it
 *   carries no valid invalid-since date, kept while that date is on or after the date
 *   one period ago, and deleted after.
 *
 * Dates are UTC `YYYY-MM-DD` strings and compare as strings.
 */
import { DAY_MS, parseUtcDate, utcDate } from "../../../shared/api/calendar-date.ts";

export type KeepReason = "not-a-token" | "tracking-too-short" | "recently-created" | "deleting" | "recently-used" | "malformed-last-used" | "not-auto-generated" | "mounted" | "recently-invalidated";

export type CleanerAction = { action: "keep"; reason: KeepReason } | { action: "invalidate"; since: string } | { action: "delete" };

export interface TokenFacts {
  /** Whether the Secret has the service account token type. */
  isToken: boolean;
  /** `metadata.creationTimestamp` (ms since the epoch). */
  createdAt: number;
  deleting: boolean;
  /** The last-used and invalid-since labels, when present. */
  lastUsed?: string;
  invalidSince?: string;
  /** Its service account (same uid as the Secret names, when it names one) lists it in `secrets`. */
  listedByAccount: boolean;
  /** A pod of the namespace references it. */
  mounted: boolean;
}

export interface CleanerTime {
  nowMs: number;
  /** `--legacy-service-account-token-clean-up-period`. */
  periodMs: number;
  /** The tracking ConfigMap's `since` (absent or malformed: tracking cannot be told to have begun). */
  trackedSince: string | undefined;
}

/** Whether tracking began long enough ago for any token to have been unused a whole period. */
export function trackedLongEnough(t: CleanerTime): boolean {
  const since = parseUtcDate(t.trackedSince);
  return since !== undefined && t.nowMs >= since + DAY_MS + t.periodMs;
}

/** The action for one Secret. */
export function decideLegacyToken(f: TokenFacts, t: CleanerTime): CleanerAction {
  if (!trackedLongEnough(t)) return { action: "keep", reason: "tracking-too-short" };
  if (!f.isToken) return { action: "keep", reason: "not-a-token" };
  if (!(f.createdAt < t.nowMs - t.periodMs)) return { action: "keep", reason: "recently-created" };
  if (f.deleting) return { action: "keep", reason: "deleting" };
  const cutoff = utcDate(t.nowMs - t.periodMs);
  if (f.lastUsed !== undefined) {
    if (parseUtcDate(f.lastUsed) === undefined) return { action: "keep", reason: "malformed-last-used" };
    if (f.lastUsed >= cutoff) return { action: "keep", reason: "recently-used" };
  }
  if (!f.listedByAccount) return { action: "keep", reason: "not-auto-generated" };
  if (f.mounted) return { action: "keep", reason: "mounted" };
  const invalidSince = f.invalidSince;
  if (invalidSince === undefined || parseUtcDate(invalidSince) === undefined) return { action: "invalidate", since: utcDate(t.nowMs) };
  if (invalidSince >= cutoff) return { action: "keep", reason: "recently-invalidated" };
  return { action: "delete" };
}
