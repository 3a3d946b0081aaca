import { describe, expect, it } from "vitest";
import { parseFlagSet } from "../../../shared/cli/flags.ts";
import { ENCRYPTION_FLAGS, encryptionOptionsFrom } from "../storage/encryption/options.ts";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MetricsRegistry } from "../../../shared/observability/metrics.ts";
import { getProfile } from "../../../shared/platform/index.ts";
import { AUDIT_FLAGS, auditOptionsFrom, createAuditor } from "./options.ts";

const audit = (...argv: string[]) => auditOptionsFrom(parseFlagSet(argv, AUDIT_FLAGS).values);
const encryption = (...argv: string[]) => encryptionOptionsFrom(parseFlagSet(argv, ENCRYPTION_FLAGS).values);

describe("audit flags", () => {
  it("default to no backend and the platform's batch settings", () => {
    expect(audit()).toEqual({});
    expect(audit("--audit-policy-file=p.yaml", "--audit-webhook-config-file=w.kubeconfig")).toEqual({
      policyFile: "p.yaml",
      webhook: { configFile: "w.kubeconfig", bufferSize: 10_000, maxBatchSize: 400, maxBatchWaitMs: 30_000, throttleEnable: true, throttleQps: 10, throttleBurst: 15, initialBackoffMs: 10_000, mode: "batch" },
    });
  });

  it("read the log backend's rotation and format", () => {
    expect(audit("--audit-log-path=-", "--audit-log-maxage=7", "--audit-log-maxbackup=3", "--audit-log-maxsize=50", "--audit-log-format=legacy").log).toEqual({
      path: "-",
      format: "legacy",
      maxAgeDays: 7,
      maxBackups: 3,
      maxSizeMB: 50,
      mode: "blocking",
      batch: { bufferSize: 10_000, maxBatchSize: 1, maxBatchWaitMs: 0, throttleEnable: false, throttleQps: 0, throttleBurst: 0 },
    });
  });

  it("read the modes, the log's batch flags and truncation (off unless enabled; the platform's 100 KiB / 10 MiB defaults)", () => {
    const o = audit("--audit-log-path=x", "--audit-log-mode=batch", "--audit-log-batch-buffer-size=7", "--audit-log-batch-max-size=3", "--audit-log-truncate-enabled", "--audit-webhook-config-file=w", "--audit-webhook-mode=blocking-strict");
    expect(o.log).toMatchObject({ mode: "batch", batch: { bufferSize: 7, maxBatchSize: 3, maxBatchWaitMs: 0, throttleEnable: false }, truncate: { maxEventSize: 102_400, maxBatchSize: 10_485_760 } });
    expect(o.webhook).toMatchObject({ mode: "blocking-strict" });
    expect(o.webhook?.truncate).toBeUndefined();
    expect(audit("--audit-webhook-config-file=w", "--audit-webhook-truncate-enabled", "--audit-webhook-truncate-max-event-size=10", "--audit-webhook-truncate-max-batch-size=20").webhook?.truncate).toEqual({ maxEventSize: 10, maxBatchSize: 20 });
  });

  it("accept only the profile's audit/v1 as --audit-log-version and --audit-webhook-version", () => {
    const profile = getProfile("kubernetes");
    const dir = mkdtempSync(join(tmpdir(), "audit-version-"));
    try {
      const policy = join(dir, "policy.yaml");
      writeFileSync(policy, `apiVersion: audit.${profile.groupDomain}/v1\nkind: Policy\nrules:\n- level: Metadata\n`);
      const log = join(dir, "audit.log");
      const make = (...argv: string[]) => createAuditor(profile, audit(`--audit-policy-file=${policy}`, `--audit-log-path=${log}`, ...argv), new MetricsRegistry({ currentVersion: "1.35", defaultMetrics: false }));
      expect(() => make(`--audit-log-version=audit.${profile.groupDomain}/v1beta1`)).toThrow(`invalid group version, allowed versions are ["audit.${profile.groupDomain}/v1"]`);
      const ok = make(`--audit-log-version=audit.${profile.groupDomain}/v1`);
      expect(ok).toBeDefined();
      void ok?.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("read the webhook's batch flags", () => {
    expect(audit("--audit-webhook-config-file=w", "--audit-webhook-batch-buffer-size=50", "--audit-webhook-batch-max-size=5", "--audit-webhook-batch-max-wait=2s", "--audit-webhook-batch-throttle-enable=false", "--audit-webhook-initial-backoff=250ms").webhook).toMatchObject({
      bufferSize: 50,
      maxBatchSize: 5,
      maxBatchWaitMs: 2000,
      throttleEnable: false,
      throttleQps: 10,
      throttleBurst: 15,
      initialBackoffMs: 250,
    });
  });

  it.each([
    [["--audit-log-path=x", "--audit-log-format=xml"], /invalid audit log format "xml"/],
    [["--audit-log-mode=async"], /invalid audit mode "async"/],
    [["--audit-webhook-mode=sync"], /invalid audit mode "sync"/],
    [["--audit-log-path=x", "--audit-log-truncate-enabled", "--audit-log-truncate-max-event-size=0"], /invalid audit truncate log max event size 0, must be a positive number/],
    [["--audit-webhook-config-file=w", "--audit-webhook-truncate-enabled", "--audit-webhook-truncate-max-batch-size=10"], /invalid audit truncate webhook max batch size 10, must be greater than max event size \(102400\)/],
    [["--audit-log-path=x", "--audit-log-maxage=-1"], /--audit-log-maxage must be a non-negative number/],
    [["--audit-webhook-config-file=w", "--audit-webhook-batch-max-size=0"], "invalid audit batch webhook max batch size 0, must be a positive number"],
    [["--audit-webhook-config-file=w", "--audit-webhook-batch-buffer-size=-1"], "invalid audit batch webhook buffer size -1, must be a positive number"],
    [["--audit-webhook-config-file=w", "--audit-webhook-batch-throttle-qps=0"], "invalid audit batch webhook throttle QPS 0, must be a positive number"],
    [["--audit-webhook-config-file=w", "--audit-webhook-batch-throttle-burst=0"], "invalid audit batch webhook throttle burst 0, must be a positive number"],
    [["--audit-log-path=x", "--audit-log-mode=batch", "--audit-log-batch-max-size=0"], "invalid audit batch log max batch size 0, must be a positive number"],
    [["--audit-log-path=x", "--audit-log-mode=batch", "--audit-log-batch-throttle-enable"], "invalid audit batch log throttle QPS 0, must be a positive number"],
    [["--audit-log-path=x", "--audit-log-mode=batch", "--audit-log-batch-throttle-enable", "--audit-log-batch-throttle-qps=1.5"], "invalid audit batch log throttle burst 0, must be a positive number"],
  ])("refuse %j", (argv, message) => {
    expect(() => audit(...argv)).toThrow(message);
  });

  it.each([
    ["--audit-log-path=x", "--audit-log-batch-max-size=0", "--audit-log-batch-throttle-enable"],
    ["--audit-webhook-config-file=w", "--audit-webhook-mode=blocking", "--audit-webhook-batch-max-size=0", "--audit-webhook-batch-throttle-qps=0"],
  ])("check the batch flags only in batch mode: %j", (...argv) => {
    expect(() => audit(...argv)).not.toThrow();
  });

  it("read the log's batch flags, throttle included", () => {
    const o = audit("--audit-log-path=x", "--audit-log-mode=batch", "--audit-log-batch-max-size=50", "--audit-log-batch-max-wait=1.5s", "--audit-log-batch-throttle-enable", "--audit-log-batch-throttle-qps=2.5", "--audit-log-batch-throttle-burst=4");
    expect(o.log?.batch).toEqual({ bufferSize: 10_000, maxBatchSize: 50, maxBatchWaitMs: 1500, throttleEnable: true, throttleQps: 2.5, throttleBurst: 4 });
  });
});

describe("encryption flags", () => {
  it.each([
    [[], undefined],
    [["--encryption-provider-config=e.yaml"], { configFile: "e.yaml", automaticReload: false }],
    [["--encryption-provider-config=e.yaml", "--encryption-provider-config-automatic-reload"], { configFile: "e.yaml", automaticReload: true }],
  ])("%j", (argv, expected) => {
    expect(encryption(...argv)).toEqual(expected);
  });

  it("refuse automatic reload without a configuration file", () => {
    expect(() => encryption("--encryption-provider-config-automatic-reload")).toThrow(/must be set with --encryption-provider-config/);
  });
});
