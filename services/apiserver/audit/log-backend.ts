/**
 * The audit log backend (`--audit-log-path`, `-` for standard output): one line per
 * event, JSON of the Event object (`--audit-log-format=json`, the default) or the
 * platform's legacy one-line text. A failed write is counted, never thrown.
 * `--audit-log-mode`: `blocking` (the default) writes in the request; `blocking-strict`
 * too, and a failed write of a RequestReceived event fails the request; `batch` queues
 * lines (`--audit-log-batch-buffer-size`; a full queue drops and counts) and writes
 * them after the request, `--audit-log-batch-max-size` lines at a time.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { AuditEvent } from "../server/filters/with-audit.ts";
import { eventObject } from "./event.ts";
import type { AuditMetrics } from "./metrics.ts";
import { RotatingFile, type RotationOptions } from "./rotating-file.ts";

export type AuditLogFormat = "json" | "legacy";

export type AuditMode = "batch" | "blocking" | "blocking-strict";
export const AUDIT_MODES: readonly AuditMode[] = ["batch", "blocking", "blocking-strict"];

export interface AuditLogBatchOptions {
  bufferSize: number;
  maxBatchSize: number;
}

/** The platform's log batch defaults. */
export const DEFAULT_LOG_BATCH: AuditLogBatchOptions = { bufferSize: 10_000, maxBatchSize: 1 };

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

  constructor(
    private readonly profile: PlatformProfile,
    private readonly opts: AuditLogOptions,
    private readonly metrics: AuditMetrics,
    private readonly stdout: (text: string) => void = (text) => void process.stdout.write(text),
  ) {
    this.file = opts.path === "-" ? undefined : new RotatingFile(opts.path, opts);
  }

  private queue: string[] = [];
  private draining = false;

  process(event: Readonly<AuditEvent>): void | Promise<boolean> {
    const line = this.opts.format === "legacy" ? legacyLine(event) : `${JSON.stringify(eventObject(this.profile, event))}\n`;
    const mode = this.opts.mode ?? "blocking";
    if (mode === "batch") return this.enqueue(line);
    const ok = this.write(line, 1);
    return mode === "blocking-strict" ? Promise.resolve(ok) : undefined;
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

  private enqueue(line: string): void {
    const batch = this.opts.batch ?? DEFAULT_LOG_BATCH;
    if (this.queue.length >= batch.bufferSize) {
      this.metrics.observeErrors("log", 1);
      return;
    }
    this.queue.push(line);
    if (!this.draining) {
      this.draining = true;
      setImmediate(() => this.drain());
    }
  }

  private drain(): void {
    const size = Math.max(1, (this.opts.batch ?? DEFAULT_LOG_BATCH).maxBatchSize);
    while (this.queue.length > 0) {
      const lines = this.queue.splice(0, size);
      this.write(lines.join(""), lines.length);
    }
    this.draining = false;
  }

  async close(): Promise<void> {
    this.drain();
    this.file?.close();
  }
}
