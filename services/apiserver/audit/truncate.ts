/**
 * Truncation of audit events (`--audit-log-truncate-*`, `--audit-webhook-truncate-*`),
 * as the platform's truncate backend does it in front of a backend:
 *  - an event whose JSON is larger than `maxEventSize` bytes loses its request and
 *    response objects (when its level keeps them) and gets the annotation
 *    `audit.<group domain>/truncated: "true"`;
 *  - an event still too large is dropped and counted (plugin `truncate`);
 *  - events handed over together go on in batches of at most `maxBatchSize` bytes.
 * `truncateEvents` is pure; `TruncatingBackend` wraps a backend with it.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { AuditEvent } from "../server/filters/with-audit.ts";
import { eventObject } from "./event.ts";
import type { AuditBackend } from "./log-backend.ts";
import type { AuditMetrics } from "./metrics.ts";
import { levelAtLeast } from "./policy-evaluator.ts";

export interface TruncateOptions {
  maxEventSize: number;
  maxBatchSize: number;
}

/** The platform's defaults: 100 KiB per event, 10 MiB per batch. */
export const DEFAULT_TRUNCATE: TruncateOptions = { maxEventSize: 100 * 1024, maxBatchSize: 10 * 1024 * 1024 };

export function truncatedAnnotation(profile: PlatformProfile): string {
  return `audit.${profile.groupDomain}/truncated`;
}

export interface TruncateResult {
  batches: Array<Array<Readonly<AuditEvent>>>;
  dropped: number;
}

/** Splits `events` into batches within the limits, truncating or dropping events over `maxEventSize`. */
export function truncateEvents(profile: PlatformProfile, events: ReadonlyArray<Readonly<AuditEvent>>, opts: TruncateOptions): TruncateResult {
  const size = (e: Readonly<AuditEvent>): number => Buffer.byteLength(JSON.stringify(eventObject(profile, e)));
  const batches: Array<Array<Readonly<AuditEvent>>> = [];
  let batch: Array<Readonly<AuditEvent>> = [];
  let batchBytes = 0;
  let dropped = 0;
  for (const original of events) {
    let event = original;
    let bytes = size(event);
    if (bytes > opts.maxEventSize && event.level !== undefined && levelAtLeast(event.level, "Request")) {
      const { requestObject: _request, responseObject: _response, ...rest } = event;
      event = { ...rest, annotations: { ...(event.annotations ?? {}), [truncatedAnnotation(profile)]: "true" } };
      bytes = size(event);
    }
    if (bytes > opts.maxEventSize) {
      dropped++;
      continue;
    }
    if (batch.length > 0 && batchBytes + bytes > opts.maxBatchSize) {
      batches.push(batch);
      batch = [];
      batchBytes = 0;
    }
    batch.push(event);
    batchBytes += bytes;
  }
  if (batch.length > 0) batches.push(batch);
  return { batches, dropped };
}

/** A backend behind truncation: one event per call (the audit filter hands them over one by one). */
export class TruncatingBackend implements AuditBackend {
  constructor(
    private readonly profile: PlatformProfile,
    private readonly delegate: AuditBackend,
    private readonly opts: TruncateOptions,
    private readonly metrics: AuditMetrics,
  ) {}

  process(event: Readonly<AuditEvent>): void | Promise<boolean> {
    const { batches, dropped } = truncateEvents(this.profile, [event], this.opts);
    if (dropped > 0) this.metrics.observeErrors("truncate", dropped);
    const results = batches.flat().map((e) => this.delegate.process(e));
    const pending = results.filter((r): r is Promise<boolean> => r instanceof Promise);
    // A dropped event is counted, not a failure of the backend (as on the platform).
    return pending.length > 0 ? Promise.all(pending).then((ok) => ok.every(Boolean)) : undefined;
  }

  close(): Promise<void> {
    return this.delegate.close();
  }
}
