/**
 * The audit log backend (`--audit-log-path`, `-` for standard output): one line per
 * event, JSON of the Event object (`--audit-log-format=json`, the default) or the
 * platform's legacy one-line text. A failed write is counted, never thrown.
 * `--audit-log-mode`: `blocking` (the default) writes in the request; `blocking-strict`
 * too, and a failed write of a RequestReceived event fails the request; `batch` writes
 * after the request through the batching of batching-backend.ts with
 * `--audit-log-batch-*` (the platform's log defaults: one line a batch, no wait, no
 * throttle), a batch's lines in one write.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { AuditEvent } from "../server/filters/with-audit.ts";
import { DEFAULT_LOG_BATCH_CONFIG, type AuditBatchConfig } from "./batch-buffer.ts";
import { BatchingBackend } from "./batching-backend.ts";
import { eventObject } from "./event.ts";
import type { AuditMetrics } from "./metrics.ts";
import { RotatingFile, type RotationOptions } from "./rotating-file.ts";

export type AuditLogFormat = "json" | "legacy";

export type AuditMode = "batch" | "blocking" | "blocking-strict";
export const AUDIT_MODES: readonly AuditMode[] = ["batch", "blocking", "blocking-strict"];

/** The batch settings of the log; unset ones take the platform's log defaults. */
export type AuditLogBatchOptions = Partial<AuditBatchConfig>;

export interface AuditLogOptions extends RotationOptions {
  path: string;
  format: AuditLogFormat;
  /** Default `blocking`. */
  mode?: AuditMode;
  batch?: AuditLogBatchOptions;
}

export interface AuditBackend {
  /** Batch modes return nothing; blocking ones may resolve to whether the event was stored. */
  process(event: Readonly<AuditEvent>): void | Promise<boolean>;
  close(): Promise<void>;
}

const q = (s: string): string => JSON.stringify(s);
const quotedList = (list: readonly string[] | undefined): string => (list && list.length > 0 ? list.map(q).join(",") : "<none>");

/** The legacy line: `<time> AUDIT: id="…" stage="…" ip="…" method="…" user="…" …`. */
export function legacyLine(e: Readonly<AuditEvent>): string {
  const imp = e.impersonatedUser;
  const fields = [
    `id=${q(e.auditID)}`,
    `stage=${q(e.stage)}`,
    `ip=${q(e.sourceIPs?.[0] ?? "<unknown>")}`,
    `method=${q(e.verb)}`,
    `user=${q(e.user.username || "<none>")}`,
    `groups=${q(quotedList(e.user.groups))}`,
    `as=${q(imp ? imp.username : "<self>")}`,
    `asgroups=${q(imp ? quotedList(imp.groups) : "<lookup>")}`,
    `user-agent=${q(e.userAgent ?? "")}`,
    `namespace=${q(e.objectRef?.namespace || "<none>")}`,
    `uri=${q(e.requestURI)}`,
    `response="${e.responseStatus ? String(e.responseStatus.code) : "<deferred>"}"`,
  ];
  for (const key of Object.keys(e.annotations ?? {}).sort()) fields.push(`${key}=${q(e.annotations?.[key] ?? "")}`);
  return `${e.requestReceivedTimestamp ?? ""} AUDIT: ${fields.join(" ")}\n`;
}

export class AuditLogBackend implements AuditBackend {
  private readonly file: RotatingFile | undefined;
  private readonly batching: BatchingBackend<string> | undefined;

  constructor(
    private readonly profile: PlatformProfile,
    private readonly opts: AuditLogOptions,
    private readonly metrics: AuditMetrics,
    private readonly stdout: (text: string) => void = (text) => void process.stdout.write(text),
  ) {
    this.file = opts.path === "-" ? undefined : new RotatingFile(opts.path, opts);
    if (opts.mode === "batch") {
      const config = { ...DEFAULT_LOG_BATCH_CONFIG, ...opts.batch };
      this.batching = new BatchingBackend(config, { toItem: (e) => this.line(e), deliver: (lines) => void this.write(lines.join(""), lines.length) }, metrics);
    }
  }

  private line(event: Readonly<AuditEvent>): string {
    return this.opts.format === "legacy" ? legacyLine(event) : `${JSON.stringify(eventObject(this.profile, event))}\n`;
  }

  process(event: Readonly<AuditEvent>): void | Promise<boolean> {
    if (this.batching) return this.batching.process(event);
    const ok = this.write(this.line(event), 1);
    return this.opts.mode === "blocking-strict" ? Promise.resolve(ok) : undefined;
  }

  /** Writes now; false (and counted) when the write failed. */
  private write(text: string, events: number): boolean {
    try {
      if (this.file) this.file.write(text);
      else this.stdout(text);
      return true;
    } catch {
      this.metrics.observeErrors("log", events);
      return false;
    }
  }

  async close(): Promise<void> {
    await this.batching?.close();
    this.file?.close();
  }
}
