/**
 * The audit webhook backend in batch mode, as the platform's: the batching of
 * batching-backend.ts with `--audit-webhook-batch-*` (buffer size, max size, max wait,
 * throttle qps and burst), each batch sent as an EventList; sends run side by side,
 * as many as the throttle lets start. A failed send is retried with exponential backoff from
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
import { DEFAULT_WEBHOOK_BATCH_CONFIG, type AuditBatchConfig } from "./batch-buffer.ts";
import { BatchingBackend } from "./batching-backend.ts";
import type { AuditBackend } from "./log-backend.ts";
import type { AuditMetrics } from "./metrics.ts";

export interface AuditWebhookBatchOptions extends AuditBatchConfig {
  initialBackoffMs: number;
}

/** The platform's webhook defaults. */
export const DEFAULT_WEBHOOK_BATCH: AuditWebhookBatchOptions = { ...DEFAULT_WEBHOOK_BATCH_CONFIG, initialBackoffMs: 10_000 };

const RETRY_STEPS = 5;
const RETRY_FACTOR = 1.5;
const RETRY_JITTER = 0.2;
const REQUEST_TIMEOUT_MS = 30_000;

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
  private readonly sender: WebhookSender;
  private readonly batching: BatchingBackend<AuditEventObject>;

  constructor(profile: PlatformProfile, client: WebhookClientConfig, opts: AuditWebhookBatchOptions, metrics: AuditMetrics, log: (msg: string, fields: Record<string, unknown>) => void = () => {}) {
    const sender = new WebhookSender(profile, client, opts.initialBackoffMs, metrics, log);
    this.sender = sender;
    this.batching = new BatchingBackend(opts, { toItem: (e) => eventObject(profile, e), deliver: (batch) => sender.send(batch) }, metrics);
  }

  process(event: Readonly<AuditEvent>): void {
    this.batching.process(event);
  }

  /** Sends what is buffered (throttle aside, no more retries) and waits a little for the sends under way. */
  async close(): Promise<void> {
    this.sender.closed = true;
    await this.batching.close();
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
