/**
 * Counts and latencies of a run, per operation (create, get, list, watch, ...):
 * every answer is recorded once; an answer with status 0 (network) or >= 400 is an
 * error, counted by status. Percentiles are nearest-rank over the recorded latencies.
 */
export interface OperationSummary {
  requests: number;
  errors: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface Summary {
  durationSeconds: number;
  requests: number;
  requestsPerSecond: number;
  errors: number;
  /** Requests by HTTP status ("0" for network failures). */
  byStatus: Record<string, number>;
  /** Errors by HTTP status ("0" for network failures). */
  errorsByStatus: Record<string, number>;
  /** Latency (ms) of every operation except watch, whose duration is its timeout. */
  latency: { p50: number; p95: number; p99: number; max: number };
  operations: Record<string, OperationSummary>;
  /** Objects the run created and deleted. */
  created: number;
  deleted: number;
  /** The first few error messages, for diagnosis. */
  sampleErrors: string[];
  /** With --watchers: events delivered to the watchers and their delivery latency (ms). */
  watchDelivery?: WatchDelivery;
}

export interface WatchDelivery {
  watchers: number;
  events: number;
  /** Watch requests that failed or ended with an ERROR event. */
  failures: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** Percentiles of delivery latencies (ms) for the summary. */
export function deliverySummary(watchers: number, latencies: readonly number[], failures: number): WatchDelivery {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    watchers,
    events: sorted.length,
    failures,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted[sorted.length - 1] ?? 0),
  };
}

/** Operations whose latency is not a response time (held open by the server on purpose). */
export const LONG_RUNNING = new Set(["watch"]);

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

const round = (n: number) => Math.round(n * 100) / 100;

export class Recorder {
  private readonly latencies = new Map<string, number[]>();
  private readonly errorsByOp = new Map<string, number>();
  private readonly byStatus = new Map<number, number>();
  private readonly errorsByStatus = new Map<number, number>();
  private readonly samples: string[] = [];
  created = 0;
  deleted = 0;

  record(operation: string, status: number, ms: number, detail?: string): void {
    let list = this.latencies.get(operation);
    if (list === undefined) this.latencies.set(operation, (list = []));
    list.push(ms);
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    if (status === 0 || status >= 400) {
      this.errorsByOp.set(operation, (this.errorsByOp.get(operation) ?? 0) + 1);
      this.errorsByStatus.set(status, (this.errorsByStatus.get(status) ?? 0) + 1);
      if (this.samples.length < 5) this.samples.push(`${operation} ${status}: ${(detail ?? "").slice(0, 200)}`);
    }
  }

  summary(durationSeconds: number): Summary {
    const operations: Record<string, OperationSummary> = {};
    const timed: number[] = [];
    let requests = 0;
    for (const [op, list] of [...this.latencies].sort(([a], [b]) => a.localeCompare(b))) {
      const sorted = [...list].sort((a, b) => a - b);
      if (!LONG_RUNNING.has(op)) timed.push(...sorted);
      requests += sorted.length;
      operations[op] = {
        requests: sorted.length,
        errors: this.errorsByOp.get(op) ?? 0,
        p50: round(percentile(sorted, 50)),
        p95: round(percentile(sorted, 95)),
        p99: round(percentile(sorted, 99)),
        max: round(sorted[sorted.length - 1] ?? 0),
      };
    }
    timed.sort((a, b) => a - b);
    const toRecord = (m: Map<number, number>) => Object.fromEntries([...m].sort(([a], [b]) => a - b).map(([k, v]) => [String(k), v]));
    const errors = [...this.errorsByStatus.values()].reduce((a, b) => a + b, 0);
    return {
      durationSeconds: round(durationSeconds),
      requests,
      requestsPerSecond: round(durationSeconds > 0 ? requests / durationSeconds : 0),
      errors,
      byStatus: toRecord(this.byStatus),
      errorsByStatus: toRecord(this.errorsByStatus),
      latency: { p50: round(percentile(timed, 50)), p95: round(percentile(timed, 95)), p99: round(percentile(timed, 99)), max: round(timed[timed.length - 1] ?? 0) },
      operations,
      created: this.created,
      deleted: this.deleted,
      sampleErrors: [...this.samples],
    };
  }
}
