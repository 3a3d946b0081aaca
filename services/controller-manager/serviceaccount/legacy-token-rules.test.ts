/**
 * The legacy token cleaner's rules as a table (dates and facts in, action out), and
 * its flag `--legacy-service-account-token-clean-up-period` (default, parsing, refusal).
 */
import { describe, expect, it } from "vitest";
import { DAY_MS } from "../../../shared/api/calendar-date.ts";
import { FlagError, parseFlags } from "../../../shared/cli/flags.ts";
import { CONTROLLER_MANAGER_FLAGS, controllerSettings, validateFlags } from "../options.ts";
import { decideLegacyToken, type CleanerAction, type CleanerTime, type TokenFacts } from "./legacy-token-rules.ts";

const NOW = Date.parse("2026-06-15T12:00:00Z");
const PERIOD = 30 * DAY_MS; // the date one period ago: 2026-05-16
const TIME: CleanerTime = { nowMs: NOW, periodMs: PERIOD, trackedSince: "2026-01-01" };
/** An auto-generated token created long ago, never used, listed by its account, not mounted. */
const UNUSED: TokenFacts = { isToken: true, createdAt: Date.parse("2025-01-01T00:00:00Z"), deleting: false, listedByAccount: true, mounted: false };
const INVALIDATE: CleanerAction = { action: "invalidate", since: "2026-06-15" };
const keep = (reason: string): CleanerAction => ({ action: "keep", reason } as CleanerAction);

describe("decideLegacyToken", () => {
  const table: Array<[string, Partial<TokenFacts>, Partial<CleanerTime>, CleanerAction]> = [
    ["an unused auto-generated token is marked invalid today", {}, {}, INVALIDATE],
    ["nothing while tracking has not run a day and a period", {}, { trackedSince: "2026-05-20" }, keep("tracking-too-short")],
    ["tracking from the day after `since`: one day short", {}, { trackedSince: "2026-05-16" }, keep("tracking-too-short")],
    ["tracking from the day after `since`: just long enough", {}, { trackedSince: "2026-05-15" }, INVALIDATE],
    ["no tracking ConfigMap date", {}, { trackedSince: undefined }, keep("tracking-too-short")],
    ["a malformed tracking date", {}, { trackedSince: "2026-5-1" }, keep("tracking-too-short")],
    ["not a service account token", { isToken: false }, {}, keep("not-a-token")],
    ["created exactly one period ago", { createdAt: NOW - PERIOD }, {}, keep("recently-created")],
    ["created just over one period ago", { createdAt: NOW - PERIOD - 1 }, {}, INVALIDATE],
    ["being deleted", { deleting: true }, {}, keep("deleting")],
    ["used on the date one period ago", { lastUsed: "2026-05-16" }, {}, keep("recently-used")],
    ["used today", { lastUsed: "2026-06-15" }, {}, keep("recently-used")],
    ["last used the day before that date", { lastUsed: "2026-05-15" }, {}, INVALIDATE],
    ["a malformed last-used date keeps it", { lastUsed: "2026-02-30" }, {}, keep("malformed-last-used")],
    ["not listed by its service account (manual)", { listedByAccount: false }, {}, keep("not-auto-generated")],
    ["mounted by a pod", { mounted: true }, {}, keep("mounted")],
    ["a malformed invalid-since date is replaced", { invalidSince: "soon" }, {}, INVALIDATE],
    ["marked invalid on the date one period ago", { invalidSince: "2026-05-16" }, {}, keep("recently-invalidated")],
    ["marked invalid a period and a day ago: deleted", { invalidSince: "2026-05-15" }, {}, { action: "delete" }],
    ["marked long ago but used recently (label removed, used again)", { invalidSince: "2025-01-01", lastUsed: "2026-06-01" }, {}, keep("recently-used")],
    ["marked long ago but now mounted", { invalidSince: "2025-01-01", mounted: true }, {}, keep("mounted")],
  ];
  for (const [name, facts, time, want] of table) {
    it(name, () => expect(decideLegacyToken({ ...UNUSED, ...facts }, { ...TIME, ...time })).toEqual(want));
  }
});

describe("--legacy-service-account-token-clean-up-period", () => {
  const settings = (...args: string[]) => {
    const flags = parseFlags(["--kubeconfig", "cm.kubeconfig", ...args], CONTROLLER_MANAGER_FLAGS);
    validateFlags(flags);
    return controllerSettings(flags);
  };

  it("defaults to one year (8760h)", () => expect(settings().legacyTokenCleanUpPeriodMs).toBe(8760 * 3_600_000));
  it("takes a duration", () => expect(settings("--legacy-service-account-token-clean-up-period", "720h").legacyTokenCleanUpPeriodMs).toBe(30 * DAY_MS));
  it("refuses a period that is not positive, as the platform's cleaner does", () => {
    expect(() => settings("--legacy-service-account-token-clean-up-period=0s")).toThrow(FlagError);
    expect(() => settings("--legacy-service-account-token-clean-up-period=0s")).toThrow("invalid CleanUpPeriod: 0s");
  });
});
