/**
 * The audit webhook backend in batch mode, as the platform's: events go into a
 * bounded buffer (`--audit-webhook-batch-buffer-size`; a full buffer drops the event
 * and counts it); a batch is sent as an EventList when it holds
 * `--audit-webhook-batch-max-size` events or `--audit-webhook-batch-max-wait` has
 * passed, at most `--audit-webhook-batch-throttle-qps` batches a second (burst
 * `-burst`). A failed send is retried with exponential backoff from
 * `--audit-webhook-initial-backoff` (factor 1.5, jitter 0.2, 5 attempts) on connection
 * errors, 429 and 5xx; a batch that still fails is dropped and counted. `process` never
 * waits for the network, so a webhook that is down never blocks a request.
 * `--audit-webhook-mode=blocking|blocking-strict` use BlockingWebhookBackend (below):
 * one event per request, sent while the request waits.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { httpsRequest } from "../authn/https-client.ts";
import type { WebhookClientConfig } from "../authz/webhook.ts";
import type { AuditEvent } from "../server/filters/with-audit.ts";
import { eventList, eventObject, type AuditEventObject } from "./event.ts";
import type { AuditBackend } from "./log-backend.ts";
import type { AuditMetrics } from "./metrics.ts";

export interface AuditWebhookBatchOptions {
  bufferSize: number;
  maxBatchSize: number;
  maxBatchWaitMs: number;
  throttleEnable: boolean;
  throttleQps: number;
  throttleBurst: number;
  initialBackoffMs: number;
}

/** The platform's batch defaults. */
export const DEFAULT_WEBHOOK_BATCH: AuditWebhookBatchOptions = {
  bufferSize: 10_000,
  maxBatchSize: 400,
  maxBatchWaitMs: 30_000,
  throttleEnable: true,
  throttleQps: 10,
  throttleBurst: 15,
  initialBackoffMs: 10_000,
};

const RETRY_STEPS = 5;
const RETRY_FACTOR = 1.5;
const RETRY_JITTER = 0.2;
const REQUEST_TIMEOUT_MS = 30_000;
/** How long closing waits for batches still being sent. */
const CLOSE_GRACE_MS = 2000;

/** A token bucket: `take()` resolves when a token is available. */
class TokenBucket {
  private tokens: number;
  private last = Date.now();

  constructor(
    private readonly qps: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }

  /** Milliseconds to wait before the next token (0: one was taken now). */
  tryTake(): number {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.tokens) / this.qps) * 1000);
  }
}

class RetriableError extends Error {}

/**
 * Sends EventLists to the webhook with the retries above; resolves to whether the
 * batch was delivered (a dropped batch is counted and logged).
 */
export class WebhookSender {
  closed = false;

  constructor(
    private readonly profile: PlatformProfile,
    private readonly client: WebhookClientConfig,
    private readonly initialBackoffMs: number,
    private readonly metrics: AuditMetrics,
    private readonly log: (msg: string, fields: Record<string, unknown>) => void = () => {},
  ) {}

  async send(batch: AuditEventObject[]): Promise<boolean> {
    const body = JSON.stringify(eventList(this.profile, batch));
    let delay = this.initialBackoffMs;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.post(body);
        return true;
      } catch (err) {
        const retriable = err instanceof RetriableError || !(err instanceof Error && err.message.startsWith("webhook answered"));
        if (!retriable || attempt >= RETRY_STEPS || this.closed) {
          this.metrics.observeErrors("webhook", batch.length);
          this.log("audit webhook batch dropped", { events: batch.length, error: (err as Error).message });
          return false;
        }
        const jittered = delay * (1 + Math.random() * RETRY_JITTER);
        await new Promise((r) => setTimeout(r, jittered).unref());
        delay *= RETRY_FACTOR;
      }
    }
  }

  private async post(body: string): Promise<void> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.client.token) headers.authorization = `Bearer ${this.client.token}`;
    const res = await httpsRequest({ url: this.client.url, method: "POST", headers, body, ca: this.client.ca, cert: this.client.cert, key: this.client.key, timeoutMs: REQUEST_TIMEOUT_MS });
    if (res.status >= 200 && res.status < 300) return;
    if (res.status === 429 || res.status >= 500) throw new RetriableError(`webhook answered ${res.status}`);
    throw new Error(`webhook answered ${res.status}`);
  }
}

export class AuditWebhookBackend implements AuditBackend {
  private buffer: AuditEventObject[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing = false;
  private closed = false;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly bucket: TokenBucket | undefined;
  private readonly sender: WebhookSender;

  constructor(
    private readonly profile: PlatformProfile,
    client: WebhookClientConfig,
    private readonly opts: AuditWebhookBatchOptions,
    private readonly metrics: AuditMetrics,
    log: (msg: string, fields: Record<string, unknown>) => void = () => {},
  ) {
    this.bucket = opts.throttleEnable ? new TokenBucket(opts.throttleQps, opts.throttleBurst) : undefined;
    this.sender = new WebhookSender(profile, client, opts.initialBackoffMs, metrics, log);
  }

  process(event: Readonly<AuditEvent>): void {
    if (this.closed || this.buffer.length >= this.opts.bufferSize) {
      this.metrics.observeErrors("webhook", 1);
      return;
    }
    this.buffer.push(eventObject(this.profile, event));
    if (this.buffer.length >= this.opts.maxBatchSize) this.schedule(0);
    else if (!this.timer) this.schedule(this.opts.maxBatchWaitMs);
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, ms);
    this.timer.unref();
  }

  /** Sends full batches (or what there is, once the wait is over) as the throttle allows. */
  private flush(): void {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.buffer.length > 0) {
        const wait = this.bucket?.tryTake() ?? 0;
        if (wait > 0) {
          this.schedule(wait);
          return;
        }
        this.sendAsync(this.buffer.splice(0, this.opts.maxBatchSize));
        if (this.buffer.length < this.opts.maxBatchSize && !this.closed) {
          if (this.buffer.length > 0) this.schedule(this.opts.maxBatchWaitMs);
          return;
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  private sendAsync(batch: AuditEventObject[]): void {
    const p = this.sender.send(batch).then(
      () => void this.inFlight.delete(p),
      () => void this.inFlight.delete(p),
    );
    this.inFlight.add(p);
  }

  /** Sends what is buffered (throttle aside) and waits for the sends under way, at most `graceMs`. */
  async close(graceMs = CLOSE_GRACE_MS): Promise<void> {
    this.closed = true;
    this.sender.closed = true;
    if (this.timer) clearTimeout(this.timer);
    while (this.buffer.length > 0) this.sendAsync(this.buffer.splice(0, this.opts.maxBatchSize));
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.all([...this.inFlight]), grace]);
    clearTimeout(timer);
  }
}

/**
 * The webhook in `blocking` and `blocking-strict` modes: each event is sent as it
 * happens and the request waits for the answer (retries included). In
 * `blocking-strict` a RequestReceived event that is not delivered fails the request;
 * in `blocking` the failure is only counted.
 */
export class BlockingWebhookBackend implements AuditBackend {
  private readonly sender: WebhookSender;
  private readonly inFlight = new Set<Promise<boolean>>();

  constructor(
    private readonly profile: PlatformProfile,
    client: WebhookClientConfig,
    initialBackoffMs: number,
    private readonly strict: boolean,
    metrics: AuditMetrics,
    log: (msg: string, fields: Record<string, unknown>) => void = () => {},
  ) {
    this.sender = new WebhookSender(profile, client, initialBackoffMs, metrics, log);
  }

  process(event: Readonly<AuditEvent>): Promise<boolean> {
    const sent = this.sender.send([eventObject(this.profile, event)]);
    this.inFlight.add(sent);
    void sent.finally(() => this.inFlight.delete(sent));
    return this.strict ? sent : sent.then(() => true);
  }

  async close(): Promise<void> {
    this.sender.closed = true;
    await Promise.all([...this.inFlight]);
  }
}
