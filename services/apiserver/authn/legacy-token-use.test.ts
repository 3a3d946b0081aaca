/**
 * Legacy token use tracking: when the last-used label needs writing (a table over
 * dates), one background write per Secret however many uses race, a failed write
 * that never reaches the caller, the refusal of a Secret marked invalid, and the
 * platform's counters of auto-generated, manual and invalid token uses; the cleaner's
 * RBAC role names the same tracking ConfigMap as the profile.
 */
import { describe, expect, it } from "vitest";
import { getProfile, PROFILE_IDS } from "../../../shared/platform/index.ts";
import { componentNames } from "../authz/bootstrap/rules.ts";
import { MetricsRegistry } from "../../../shared/observability/metrics.ts";
import { lastUsedNeedsUpdate, legacyTokenMetrics, LegacyTokenUse, type SecretLabelWriter } from "./legacy-token-use.ts";

const profile = getProfile("plat");
const AUTO = { name: "builder", listedByAccount: true };
const NOW = new Date("2026-06-15T23:30:00Z");

describe("lastUsedNeedsUpdate", () => {
  const table: Array<[string | undefined, boolean]> = [
    [undefined, true],
    ["2026-06-15", false], // today
    ["2026-06-16", false], // tomorrow: another replica's clock is ahead
    ["2026-06-14", true],
    ["2026-06-17", true],
    ["2025-06-15", true],
    ["not a date", true],
  ];
  for (const [label, want] of table) it(String(label), () => expect(lastUsedNeedsUpdate(label, NOW)).toBe(want));
});

describe("LegacyTokenUse", () => {
  const secret = (labels: Record<string, string> = {}) => ({ metadata: { name: "builder-token", namespace: "default", uid: "uid-1", labels } });

  it("writes today's date once for concurrent uses, with the Secret's uid, and again after the write ends", async () => {
    const writes: unknown[][] = [];
    let release: () => void = () => {};
    const write: SecretLabelWriter = (...args) => {
      writes.push(args);
      return new Promise((r) => (release = r));
    };
    const use = new LegacyTokenUse({ profile, write, now: () => NOW });
    expect(use.use(secret(), AUTO)).toBeUndefined();
    expect(use.use(secret(), AUTO)).toBeUndefined();
    expect(writes).toEqual([["default", "builder-token", "uid-1", { [profile.labels.legacyTokenLastUsed]: "2026-06-15" }]]);
    release();
    await new Promise((r) => setImmediate(r));
    use.use(secret(), AUTO);
    expect(writes).toHaveLength(2);
    use.use(secret({ [profile.labels.legacyTokenLastUsed]: "2026-06-15" }), AUTO);
    expect(writes).toHaveLength(2);
  });

  it("a failed write is logged and never reaches the caller", async () => {
    const logged: string[] = [];
    const use = new LegacyTokenUse({ profile, write: () => Promise.reject(new Error("store down")), now: () => NOW, log: (_l, msg, f) => logged.push(`${msg}: ${String(f?.error)}`) });
    expect(use.use(secret(), AUTO)).toBeUndefined();
    await new Promise((r) => setImmediate(r));
    expect(logged).toEqual(["failed to label legacy service account token secret with last-used date: store down"]);
  });

  it("refuses a Secret marked invalid with a 401 naming the label, and still records the use", () => {
    const writes: unknown[] = [];
    const use = new LegacyTokenUse({ profile, write: async (...a) => void writes.push(a), now: () => NOW });
    const refused = use.use(secret({ [profile.labels.legacyTokenInvalidSince]: "2026-01-01" }), AUTO);
    expect(refused?.status.code).toBe(401);
    expect(refused?.message).toBe(
      `the token in secret default/builder-token for service account default/builder has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the '${profile.labels.legacyTokenInvalidSince}' label from the secret to temporarily allow use of this token`,
    );
    expect(writes).toHaveLength(1);
  });

  it("counts auto-generated, manually created and invalid token uses under the platform's names", async () => {
    const registry = new MetricsRegistry({ currentVersion: "1.35", defaultMetrics: false });
    const use = new LegacyTokenUse({ profile, now: () => NOW, metrics: legacyTokenMetrics(registry) });
    use.use(secret(), AUTO);
    use.use(secret(), AUTO);
    use.use(secret(), { name: "builder", listedByAccount: false });
    use.use(secret({ [profile.labels.legacyTokenInvalidSince]: "2026-01-01" }), AUTO);
    const text = await registry.text();
    expect(text).toContain("serviceaccount_legacy_auto_token_uses_total 2");
    expect(text).toContain("serviceaccount_legacy_manual_token_uses_total 1");
    expect(text).toContain("serviceaccount_invalid_legacy_auto_token_uses_total 1");
    expect(legacyTokenMetrics(registry)).toBe(legacyTokenMetrics(registry));
  });
});

describe("legacy token names", () => {
  it("the cleaner's controller role may read the tracking ConfigMap of each profile", () => {
    for (const id of PROFILE_IDS) expect(componentNames(getProfile(id)).legacyTokenTrackingConfigMap).toBe(getProfile(id).serviceAccount.legacyTokenTrackingConfigMap);
  });
});
