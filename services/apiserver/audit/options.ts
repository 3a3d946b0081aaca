/**
 * The audit flags (the platform's names and defaults) and the auditor they make: the
 * policy of `--audit-policy-file` (without it nothing is audited, as on the platform)
 * and the log and webhook backends it feeds, each in its mode (batch, blocking,
 * blocking-strict; batch with `--audit-{log,webhook}-batch-*`, the platform's
 * defaults differing by backend) and behind truncation when `--audit-*-truncate-enabled`.
 */
import type { FlagSpec, FlagValues } from "../../../shared/cli/flags.ts";
import type { MetricsRegistry } from "../../../shared/observability/metrics.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { loadWebhookClientConfig } from "../authz/webhook.ts";
import type { Auditor, AuditEvent } from "../server/filters/with-audit.ts";
import { DEFAULT_LOG_BATCH_CONFIG, DEFAULT_WEBHOOK_BATCH_CONFIG, type AuditBatchConfig } from "./batch-buffer.ts";
import { AUDIT_MODES, AuditLogBackend, type AuditBackend, type AuditLogBatchOptions, type AuditLogFormat, type AuditMode } from "./log-backend.ts";
import { declareAuditMetrics } from "./metrics.ts";
import { loadPolicyFile } from "./policy.ts";
import { evaluatePolicy } from "./policy-evaluator.ts";
import { protobufBodyDecoder, type KindLookup } from "./protobuf-bodies.ts";
import { DEFAULT_TRUNCATE, TruncatingBackend, type TruncateOptions } from "./truncate.ts";
import { AuditWebhookBackend, BlockingWebhookBackend, DEFAULT_WEBHOOK_BATCH, type AuditWebhookBatchOptions } from "./webhook-backend.ts";

const MODE_HELP = "Strategy for sending audit events. Blocking indicates sending events should block server responses. Batch causes the backend to buffer and write events asynchronously. Known modes are batch,blocking,blocking-strict.";

/** `--audit-<plugin>-batch-*`, the platform's names, help and defaults (zero values shown as none, as the platform's help does). */
function batchFlags(plugin: "log" | "webhook", d: AuditBatchConfig): Record<string, FlagSpec> {
  const shown = <V extends number | boolean>(v: V): V | undefined => (v === 0 || v === false ? undefined : v);
  return {
    [`audit-${plugin}-batch-buffer-size`]: { kind: "number", default: shown(d.bufferSize), help: "The size of the buffer to store events before batching and writing. Only used in batch mode." },
    [`audit-${plugin}-batch-max-size`]: { kind: "number", default: shown(d.maxBatchSize), help: "The maximum size of a batch. Only used in batch mode." },
    [`audit-${plugin}-batch-max-wait`]: { kind: "duration", default: shown(d.maxBatchWaitMs), help: "The amount of time to wait before force writing the batch that hadn't reached the max size. Only used in batch mode." },
    [`audit-${plugin}-batch-throttle-enable`]: { kind: "boolean", default: shown(d.throttleEnable), help: "Whether batching throttling is enabled. Only used in batch mode." },
    [`audit-${plugin}-batch-throttle-qps`]: { kind: "number", default: shown(d.throttleQps), help: "Maximum average number of batches per second. Only used in batch mode." },
    [`audit-${plugin}-batch-throttle-burst`]: { kind: "number", default: shown(d.throttleBurst), help: "Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before. Only used in batch mode." },
  };
}

/** `--audit-<plugin>-truncate-*`, the platform's names and defaults. */
function truncateFlags(plugin: "log" | "webhook"): Record<string, FlagSpec> {
  return {
    [`audit-${plugin}-version`]: { kind: "string", help: `API group and version used for serializing audit events written to ${plugin}: audit.<group domain>/v1, the only one accepted, also when unset.` },
    [`audit-${plugin}-truncate-enabled`]: { kind: "boolean", default: false, help: "Whether event and batch truncating is enabled." },
    [`audit-${plugin}-truncate-max-batch-size`]: {
      kind: "number",
      default: DEFAULT_TRUNCATE.maxBatchSize,
      help: "Maximum size of the batch sent to the underlying backend. Actual serialized size can be several hundreds of bytes greater. If a batch exceeds this limit, it is split into several batches of smaller size.",
    },
    [`audit-${plugin}-truncate-max-event-size`]: {
      kind: "number",
      default: DEFAULT_TRUNCATE.maxEventSize,
      help: "Maximum size of the audit event sent to the underlying backend. If the size of an event is greater than this number, first request and response are removed, and if this doesn't reduce the size enough, event is discarded.",
    },
  };
}

export const AUDIT_FLAGS: Record<string, FlagSpec> = {
  "audit-policy-file": { kind: "string", help: "Path to the file that defines the audit policy configuration." },
  "audit-log-path": { kind: "string", help: "If set, all requests coming to the apiserver will be logged to this file. '-' means standard out." },
  "audit-log-maxage": { kind: "number", default: 0, help: "The maximum number of days to retain old audit log files based on the timestamp encoded in their filename." },
  "audit-log-maxbackup": { kind: "number", default: 0, help: "The maximum number of old audit log files to retain. Setting a value of 0 will mean there's no restriction on the number of files." },
  "audit-log-maxsize": { kind: "number", default: 0, help: "The maximum size in megabytes of the audit log file before it gets rotated (0: 100)." },
  "audit-log-format": { kind: "string", default: "json", help: "Format of saved audits. \"legacy\" indicates 1-line text format for each event. \"json\" indicates structured json format. Known formats are legacy,json." },
  "audit-log-mode": { kind: "string", default: "blocking", help: MODE_HELP },
  ...batchFlags("log", DEFAULT_LOG_BATCH_CONFIG),
  ...truncateFlags("log"),
  "audit-webhook-config-file": { kind: "string", help: "Path to a kubeconfig formatted file that defines the audit webhook configuration." },
  "audit-webhook-mode": { kind: "string", default: "batch", help: MODE_HELP },
  ...batchFlags("webhook", DEFAULT_WEBHOOK_BATCH_CONFIG),
  "audit-webhook-initial-backoff": { kind: "duration", default: DEFAULT_WEBHOOK_BATCH.initialBackoffMs, help: "The amount of time to wait before retrying the first failed request." },
  ...truncateFlags("webhook"),
};

export interface AuditOptions {
  policyFile?: string;
  log?: { path: string; format: AuditLogFormat; maxAgeDays: number; maxBackups: number; maxSizeMB: number; mode?: AuditMode; batch?: AuditLogBatchOptions; truncate?: TruncateOptions; version?: string };
  webhook?: { configFile: string; mode?: AuditMode; truncate?: TruncateOptions; version?: string } & AuditWebhookBatchOptions;
}

const MODES: ReadonlySet<string> = new Set(AUDIT_MODES);

/** The truncation of `--audit-<plugin>-truncate-*`, undefined when off; bad sizes throw the platform's errors. */
function truncateFrom(flags: FlagValues, plugin: "log" | "webhook"): TruncateOptions | undefined {
  if (flags[`audit-${plugin}-truncate-enabled`] !== true) return undefined;
  const maxEventSize = Number(flags[`audit-${plugin}-truncate-max-event-size`] ?? DEFAULT_TRUNCATE.maxEventSize);
  const maxBatchSize = Number(flags[`audit-${plugin}-truncate-max-batch-size`] ?? DEFAULT_TRUNCATE.maxBatchSize);
  if (!(maxEventSize > 0)) throw new Error(`invalid audit truncate ${plugin} max event size ${maxEventSize}, must be a positive number`);
  if (!(maxBatchSize >= maxEventSize)) throw new Error(`invalid audit truncate ${plugin} max batch size ${maxBatchSize}, must be greater than max event size (${maxEventSize})`);
  return { maxEventSize, maxBatchSize };
}

function nonNegative(flags: FlagValues, name: string): number {
  const v = Number(flags[name]);
  if (!Number.isFinite(v) || v < 0) throw new Error(`--${name} must be a non-negative number, got ${String(flags[name])}`);
  return v;
}

/** The batch settings of `--audit-<plugin>-batch-*`; in batch mode, bad ones throw the platform's errors. */
function batchFrom(flags: FlagValues, plugin: "log" | "webhook", d: AuditBatchConfig, batchMode: boolean): AuditBatchConfig {
  const num = (name: string, dflt: number): number => {
    const v = flags[`audit-${plugin}-batch-${name}`];
    return v === undefined ? dflt : Number(v);
  };
  const enable = flags[`audit-${plugin}-batch-throttle-enable`];
  const c: AuditBatchConfig = {
    bufferSize: num("buffer-size", d.bufferSize),
    maxBatchSize: num("max-size", d.maxBatchSize),
    maxBatchWaitMs: num("max-wait", d.maxBatchWaitMs),
    throttleEnable: enable === undefined ? d.throttleEnable : enable === true,
    throttleQps: num("throttle-qps", d.throttleQps),
    throttleBurst: num("throttle-burst", d.throttleBurst),
  };
  if (!batchMode) return c;
  const positive = (v: number, what: string): void => {
    if (!(v > 0)) throw new Error(`invalid audit batch ${plugin} ${what} ${v}, must be a positive number`);
  };
  positive(c.bufferSize, "buffer size");
  positive(c.maxBatchSize, "max batch size");
  if (c.throttleEnable) {
    positive(c.throttleQps, "throttle QPS");
    positive(c.throttleBurst, "throttle burst");
  }
  return c;
}

/** The audit options of the flags; a bad value throws a start-up error naming the flag. */
export function auditOptionsFrom(flags: FlagValues): AuditOptions {
  const opts: AuditOptions = {};
  if (flags["audit-policy-file"]) opts.policyFile = String(flags["audit-policy-file"]);
  const format = String(flags["audit-log-format"] ?? "json");
  if (format !== "json" && format !== "legacy") throw new Error(`--audit-log-format: invalid audit log format ${JSON.stringify(format)}, allowed formats are "legacy,json"`);
  for (const f of ["audit-log-mode", "audit-webhook-mode"]) {
    if (flags[f] !== undefined && !MODES.has(String(flags[f]))) throw new Error(`--${f}: invalid audit mode ${JSON.stringify(flags[f])}, allowed modes are "batch,blocking,blocking-strict"`);
  }
  if (flags["audit-log-path"]) {
    const mode = (flags["audit-log-mode"] as AuditMode | undefined) ?? "blocking";
    opts.log = {
      path: String(flags["audit-log-path"]),
      format,
      maxAgeDays: nonNegative(flags, "audit-log-maxage"),
      maxBackups: nonNegative(flags, "audit-log-maxbackup"),
      maxSizeMB: nonNegative(flags, "audit-log-maxsize"),
      mode,
      batch: batchFrom(flags, "log", DEFAULT_LOG_BATCH_CONFIG, mode === "batch"),
      truncate: truncateFrom(flags, "log"),
    };
    if (flags["audit-log-version"]) opts.log.version = String(flags["audit-log-version"]);
  }
  if (flags["audit-webhook-config-file"]) {
    const mode = (flags["audit-webhook-mode"] as AuditMode | undefined) ?? "batch";
    opts.webhook = {
      configFile: String(flags["audit-webhook-config-file"]),
      ...batchFrom(flags, "webhook", DEFAULT_WEBHOOK_BATCH_CONFIG, mode === "batch"),
      initialBackoffMs: nonNegative(flags, "audit-webhook-initial-backoff"),
      mode,
      truncate: truncateFrom(flags, "webhook"),
    };
    if (flags["audit-webhook-version"]) opts.webhook.version = String(flags["audit-webhook-version"]);
  }
  return opts;
}

export interface RunningAuditor extends Auditor {
  close(): Promise<void>;
}

/** The auditor of the options, or undefined when there is no policy or no backend. */
export function createAuditor(
  profile: PlatformProfile,
  opts: AuditOptions,
  metricsRegistry: MetricsRegistry,
  log: (msg: string, fields: Record<string, unknown>) => void = () => {},
  kindOf?: KindLookup,
): RunningAuditor | undefined {
  if (!opts.policyFile || (!opts.log && !opts.webhook)) return undefined;
  // `--audit-*-version`: events are written in the profile's audit/v1, the one version the platform knows.
  const known = `audit.${profile.groupDomain}/v1`;
  for (const v of [opts.log?.version, opts.webhook?.version]) {
    if (v !== undefined && v !== known) throw new Error(`invalid group version, allowed versions are ${JSON.stringify([known])}`);
  }
  const policy = loadPolicyFile(opts.policyFile, profile);
  const metrics = declareAuditMetrics(metricsRegistry);
  const backends: AuditBackend[] = [];
  const truncating = (b: AuditBackend, t: TruncateOptions | undefined): AuditBackend => (t ? new TruncatingBackend(profile, b, t, metrics) : b);
  if (opts.log) {
    const l = opts.log;
    const file = new AuditLogBackend(profile, { path: l.path, format: l.format, maxAgeDays: l.maxAgeDays, maxBackups: l.maxBackups, maxSizeBytes: (l.maxSizeMB || 100) * 1024 * 1024, mode: l.mode, batch: l.batch }, metrics);
    backends.push(truncating(file, l.truncate));
  }
  if (opts.webhook) {
    const w = opts.webhook;
    const client = loadWebhookClientConfig(w.configFile);
    const mode = w.mode ?? "batch";
    const hook = mode === "batch" ? new AuditWebhookBackend(profile, client, w, metrics, log) : new BlockingWebhookBackend(profile, client, w.initialBackoffMs, mode === "blocking-strict", metrics, log);
    backends.push(truncating(hook, w.truncate));
  }
  return {
    profile,
    decodeProtobuf: kindOf ? protobufBodyDecoder(kindOf) : undefined,
    decide(attrs) {
      const config = evaluatePolicy(policy, attrs);
      metrics.observeLevel(config.level);
      return config;
    },
    emit(event: Readonly<AuditEvent>) {
      metrics.observeEvent();
      const pending: Array<Promise<boolean>> = [];
      for (const b of backends) {
        const stored = b.process(event);
        if (stored instanceof Promise) pending.push(stored);
      }
      return pending.length > 0 ? Promise.all(pending).then((all) => all.every(Boolean)) : undefined;
    },
    countRejected: () => metrics.observeRejected(),
    async close() {
      await Promise.all(backends.map((b) => b.close()));
    },
  };
}
