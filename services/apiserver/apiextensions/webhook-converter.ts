/**
 * Conversion `Webhook` of a CRD: objects not yet in the desired version are sent in one
 * ConversionReview (conversion-review.ts) over HTTPS to the CRD's
 * `spec.conversion.webhook.clientConfig` (url, or service resolved to an endpoint, with
 * `caBundle`), through the admission webhooks' client (deadline 30 s, the platform's
 * default; `?timeout=30s` on the URL); a long list goes in several reviews of at most
 * 1 MiB of objects. The answer is checked and merged back in order.
 *
 * Every failure is a 500 Status without a reason, as the platform answers: a call that
 * fails or an answer refused by the review checks is
 * `conversion webhook for <group>/<version>, Kind=<kind> failed: <cause>` (the kind and
 * version the objects are converted from); a converted object that breaks the rules is
 * `conversion for <gvk> returned invalid ...`.
 */
import { randomUUID } from "node:crypto";
import { statusError, type StatusError } from "../../../shared/api/status.ts";
import { WebhookCallError, type WebhookClient } from "../admission/webhooks/client.ts";
import type { ClientConfig } from "../admission/webhooks/hook.ts";
import { isObject, type JsonObject } from "../storage/object.ts";
import type { ConversionMetrics } from "./conversion-metrics.ts";
import { ConversionFailure, conversionReview, convertedObjectsOf, gvkText, mergeConverted, reviewVersion } from "./conversion-review.ts";

/** The platform's deadline of a conversion webhook call (the CRD has no timeout field). */
export const CONVERSION_WEBHOOK_TIMEOUT_SECONDS = 30;

export interface ConversionWebhookConfig {
  clientConfig: ClientConfig;
  conversionReviewVersions: readonly unknown[];
}

/** `spec.conversion.webhook` of a CRD (undefined when the strategy is not Webhook). */
export function conversionWebhookConfig(crd: JsonObject): ConversionWebhookConfig | undefined {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const conversion = isObject(spec.conversion) ? spec.conversion : {};
  if (conversion.strategy !== "Webhook") return undefined;
  const webhook = isObject(conversion.webhook) ? conversion.webhook : {};
  const cc = isObject(webhook.clientConfig) ? webhook.clientConfig : {};
  const clientConfig: ClientConfig = {};
  if (typeof cc.url === "string") clientConfig.url = cc.url;
  if (isObject(cc.service)) {
    const s = cc.service;
    clientConfig.service = { namespace: String(s.namespace ?? ""), name: String(s.name ?? ""), path: typeof s.path === "string" ? s.path : undefined, port: typeof s.port === "number" ? s.port : 443 };
  }
  if (typeof cc.caBundle === "string" && cc.caBundle !== "") clientConfig.caPem = Buffer.from(cc.caBundle, "base64").toString("utf8");
  return { clientConfig, conversionReviewVersions: Array.isArray(webhook.conversionReviewVersions) ? webhook.conversionReviewVersions : [] };
}

/**
 * Objects per review are bounded by their JSON size: the webhook client caps an answer
 * at 3 MiB, so a long list goes in several reviews of at most 1 MiB each (every object
 * is converted on its own, so the split changes nothing for the webhook).
 */
export const MAX_REVIEW_BYTES = 1024 * 1024;

function batches(objs: readonly JsonObject[]): JsonObject[][] {
  const out: JsonObject[][] = [];
  let current: JsonObject[] = [];
  let size = 0;
  for (const o of objs) {
    const bytes = JSON.stringify(o).length;
    if (current.length > 0 && size + bytes > MAX_REVIEW_BYTES) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(o);
    size += bytes;
  }
  if (current.length > 0) out.push(current);
  return out;
}

function failure(message: string): StatusError {
  return statusError({ code: 500, reason: "", message });
}

export class WebhookConverter {
  constructor(
    private readonly client: WebhookClient,
    private readonly apiextensionsGroup: string,
    private readonly config: ConversionWebhookConfig,
    /** The CRD's name and the metrics sink (apiserver_crd_webhook_conversion_duration_seconds). */
    private readonly observed?: { crdName: string; metrics: ConversionMetrics },
  ) {}

  /** `objs` in `desiredAPIVersion`, in order; those already in it are returned as they are. */
  async convert(objs: readonly JsonObject[], desiredAPIVersion: string): Promise<JsonObject[]> {
    const toSend = objs.filter((o) => o.apiVersion !== desiredAPIVersion);
    if (toSend.length === 0) return [...objs];
    const started = performance.now();
    let succeeded = false;
    try {
      const out = await this.call(objs, toSend, desiredAPIVersion);
      succeeded = true;
      return out;
    } finally {
      this.observed?.metrics.observe(this.observed.crdName, String(toSend[0].apiVersion ?? ""), desiredAPIVersion, succeeded, (performance.now() - started) / 1000);
    }
  }

  private async call(objs: readonly JsonObject[], toSend: readonly JsonObject[], desiredAPIVersion: string): Promise<JsonObject[]> {
    const converted: JsonObject[] = [];
    for (const batch of batches(toSend)) converted.push(...(await this.review(batch, desiredAPIVersion)));
    let next = 0;
    return objs.map((o) => (o.apiVersion === desiredAPIVersion ? o : converted[next++]));
  }

  /** One ConversionReview: every object of `batch` (none in `desiredAPIVersion`) converted and checked. */
  private async review(batch: readonly JsonObject[], desiredAPIVersion: string): Promise<JsonObject[]> {
    const source = gvkText(batch[0]);
    const version = reviewVersion(this.config.conversionReviewVersions);
    if (!version) throw failure(`conversion webhook for ${source} failed: no supported conversion review versions`);
    const uid = randomUUID();
    let answer: unknown;
    try {
      answer = await this.client.post(this.config.clientConfig, CONVERSION_WEBHOOK_TIMEOUT_SECONDS, conversionReview(this.apiextensionsGroup, version, uid, desiredAPIVersion, batch));
    } catch (err) {
      const text = err instanceof WebhookCallError ? err.message.replace(/^failed to call webhook: /, "") : String(err);
      throw failure(`conversion webhook for ${source} failed: ${text}`);
    }
    let converted: unknown[];
    try {
      converted = convertedObjectsOf(answer, this.apiextensionsGroup, version, uid);
    } catch (err) {
      throw err instanceof ConversionFailure ? failure(`conversion webhook for ${source} failed: ${err.message}`) : err;
    }
    try {
      return mergeConverted(batch, converted, desiredAPIVersion, source);
    } catch (err) {
      throw err instanceof ConversionFailure ? failure(err.message) : err;
    }
  }
}
