/**
 * The audit log backend (`--audit-log-path`, `-` for standard output): one line per
 * event, JSON of the Event object (`--audit-log-format=json`, the default) or the
 * platform's legacy one-line text. A failed write is counted, never thrown.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { AuditEvent } from "../server/filters/with-audit.ts";
import { eventObject } from "./event.ts";
import type { AuditMetrics } from "./metrics.ts";
import { RotatingFile, type RotationOptions } from "./rotating-file.ts";

export type AuditLogFormat = "json" | "legacy";

export interface AuditLogOptions extends RotationOptions {
  path: string;
  format: AuditLogFormat;
}

export interface AuditBackend {
  process(event: Readonly<AuditEvent>): void;
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

  process(event: Readonly<AuditEvent>): void {
    const line = this.opts.format === "legacy" ? legacyLine(event) : `${JSON.stringify(eventObject(this.profile, event))}\n`;
    try {
      if (this.file) this.file.write(line);
      else this.stdout(line);
    } catch {
      this.metrics.observeErrors("log", 1);
    }
  }

  async close(): Promise<void> {
    this.file?.close();
  }
}
