/**
 * The controller manager's metrics, with the platform's names: the work queue family
 * (`workqueue_*`, label `name` = the queue's name) and the leader election status
 * (`leader_election_master_status`). Queues report through the `QueueMetrics` sink;
 * the unfinished-work and longest-running gauges are computed when scraped.
 */
import type { Gauge } from "prom-client";
import type { QueueMetrics } from "../../shared/client/work-queue.ts";
import { MetricsRegistry } from "../../shared/observability/metrics.ts";

/** The platform's work queue latency buckets: 10 ns × 10^i, i = 0..9. */
const QUEUE_BUCKETS = Array.from({ length: 10 }, (_, i) => 1e-8 * 10 ** i);


export class ControllerManagerMetrics {
  readonly registry: MetricsRegistry;
  private readonly depth: Gauge<"name">;
  private readonly adds;
  private readonly queueDuration;
  private readonly workDuration;
  private readonly retries;
  private readonly running = new Map<string, () => readonly number[]>();
  readonly leaderStatus: Gauge<"name">;

  constructor(currentVersion = "1.35") {
    this.registry = new MetricsRegistry({ currentVersion, defaultMetrics: true });
    const m = this.registry;
    this.depth = m.gauge({ name: "workqueue_depth", help: "Current depth of workqueue", labelNames: ["name"] });
    this.adds = m.counter({ name: "workqueue_adds_total", help: "Total number of adds handled by workqueue", labelNames: ["name"] });
    this.queueDuration = m.histogram({ name: "workqueue_queue_duration_seconds", help: "How long in seconds an item stays in workqueue before being requested.", labelNames: ["name"], buckets: QUEUE_BUCKETS });
    this.workDuration = m.histogram({ name: "workqueue_work_duration_seconds", help: "How long in seconds processing an item from workqueue takes.", labelNames: ["name"], buckets: QUEUE_BUCKETS });
    this.retries = m.counter({ name: "workqueue_retries_total", help: "Total number of retries handled by workqueue", labelNames: ["name"] });
    const running = this.running;
    const unfinished: Gauge<"name"> = m.gauge({
      name: "workqueue_unfinished_work_seconds",
      help: "How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
      labelNames: ["name"],
    });
    const longest: Gauge<"name"> = m.gauge({
      name: "workqueue_longest_running_processor_seconds",
      help: "How many seconds has the longest running processor for workqueue been running.",
      labelNames: ["name"],
    });
    const collect = () => {
      const now = Date.now();
      for (const [name, starts] of running) {
        const ages = starts().map((t) => (now - t) / 1000);
        unfinished.set({ name }, ages.reduce((a, b) => a + b, 0));
        longest.set({ name }, ages.length ? Math.max(...ages) : 0);
      }
    };
    // Computed at scrape time, as the platform's queues refresh them every half second.
    for (const g of [unfinished, longest]) (g as unknown as { collect?: () => void }).collect = collect;
    this.leaderStatus = m.gauge({ name: "leader_election_master_status", help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.", labelNames: ["name"] });
  }

  /** The sink of one named queue. */
  queue(name: string): QueueMetrics {
    const labels = { name };
    this.depth.set(labels, 0);
    this.adds.inc(labels, 0);
    this.retries.inc(labels, 0);
    return {
      added: () => this.adds.inc(labels),
      depth: (n) => this.depth.set(labels, n),
      waited: (s) => this.queueDuration.observe(labels, s),
      worked: (s) => this.workDuration.observe(labels, s),
      retried: () => this.retries.inc(labels),
      inProgress: (starts) => this.running.set(name, starts),
    };
  }
}
