/**
 * The batch mode of an audit backend (`--audit-{log,webhook}-mode=batch`): the shell
 * of the pure BatchBuffer. Each event becomes an item at once (a line, an Event
 * object), so later changes to the event do not reach it; one timer wakes the buffer
 * when it says a batch can be due and hands the due batches to `deliver`. An event
 * the full buffer refuses is dropped and counted as the platform counts it,
 * `apiserver_audit_error_total{plugin="buffered"}`. `process` never waits for a
 * delivery, so a slow or dead destination never blocks a request. `close` delivers
 * what is buffered (throttle aside) and waits at most `closeGraceMs` for deliveries
 * under way.
 */
import type { AuditEvent } from "../server/filters/with-audit.ts";
import { BatchBuffer, type AuditBatchConfig } from "./batch-buffer.ts";
import type { AuditBackend } from "./log-backend.ts";
import type { AuditMetrics } from "./metrics.ts";

/** The plugin label of events the buffer drops (the platform's buffered backend). */
export const BUFFERED_PLUGIN = "buffered";

const DEFAULT_CLOSE_GRACE_MS = 2000;

export interface BatchingOptions<T> {
  toItem(event: Readonly<AuditEvent>): T;
  /** Writes or sends one batch; counts its own failures. */
  deliver(batch: T[]): void | Promise<unknown>;
  now?: () => number;
  closeGraceMs?: number;
}

export class BatchingBackend<T> implements AuditBackend {
  private readonly buffer: BatchBuffer<T>;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private closed = false;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly config: AuditBatchConfig,
    private readonly opts: BatchingOptions<T>,
    private readonly metrics: AuditMetrics,
  ) {
    this.now = opts.now ?? Date.now;
    this.buffer = new BatchBuffer<T>(config, this.now());
  }

  process(event: Readonly<AuditEvent>): void {
    const now = this.now();
    if (this.closed || !this.buffer.offer(this.opts.toItem(event), now)) {
      this.metrics.observeErrors(BUFFERED_PLUGIN, 1);
      return;
    }
    // The first item of a batch, or a full batch, may change when the next batch is due.
    if (this.timer === undefined || this.buffer.length === 1 || this.buffer.length >= this.config.maxBatchSize) this.wakeAt(now);
  }

  private wakeAt(at: number): void {
    if (this.timer !== undefined && this.timerAt <= at) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.pump(), Math.max(0, at - this.now()));
    this.timer.unref();
  }

  private pump(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const { batches, nextAt } = this.buffer.due(this.now());
    for (const b of batches) this.deliver(b);
    if (nextAt !== undefined && !this.closed) this.wakeAt(nextAt);
  }

  private deliver(batch: T[]): void {
    let sent: void | Promise<unknown>;
    try {
      sent = this.opts.deliver(batch);
    } catch {
      return; // the destination counts its failures
    }
    if (sent instanceof Promise) {
      const tracked: Promise<unknown> = sent.catch(() => {}).finally(() => this.inFlight.delete(tracked));
      this.inFlight.add(tracked);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    for (const b of this.buffer.drain()) this.deliver(b);
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all([...this.inFlight]), new Promise((resolve) => (grace = setTimeout(resolve, this.opts.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS)))]);
    clearTimeout(grace);
  }
}
