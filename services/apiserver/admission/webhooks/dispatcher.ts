/**
 * Calls matched webhooks for one request. Mutating webhooks run one after the
 * other on the current object, their JSONPatch applied in turn; a webhook with
 * reinvocationPolicy IfNeeded is called once more when a later webhook changed
 * the object. Validating webhooks run in parallel; the first error in order wins.
 * Failures (unreachable, timeout, non-2xx, garbage, wrong uid, an unmatchable
 * selector or condition) follow failurePolicy: Fail rejects with a 500 naming the
 * webhook, Ignore goes on with an audit annotation. A JSONPatch is applied by the
 * shared bounded engine (operation cap, copied-byte budget, time slicing); one
 * that does not apply is an internal error whatever the failurePolicy, as on the
 * platform (500 InternalError naming the webhook and the failing operation).
 * A dry-run request fails with 400 at a webhook that may have side effects.
 * Within one phase call each object is encoded once for all its webhooks (the
 * objects are not changed in place while the phase runs).
 */
import { randomUUID } from "node:crypto";
import { badRequest, isStatusError, type StatusError } from "../../../../shared/api/status.ts";
import { applyJsonPatchBounded, JsonPatchError } from "../../../../shared/patch/json-patch.ts";
import { deepEqual } from "../../../../shared/schema/values.ts";
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { Attributes, PluginContext } from "../interfaces.ts";
import type { AdmissionMetrics, WebhookType } from "../metrics.ts";
import { WebhookCallError, type WebhookClient } from "./client.ts";
import type { Hook } from "./hook.ts";
import { callFailure, denial, matchConditions, matchRules, matchSelectors, MatchError, type Equivalence, type Invocation, type MatchDeps } from "./matching.ts";
import { EncodedObjects, encodeReviewRequest, parseReviewResponse, reviewVersion } from "./review.ts";

export interface DispatcherDeps {
  profile: PlatformProfile;
  client: WebhookClient;
  match: MatchDeps;
  metrics?: AdmissionMetrics;
  log: PluginContext["log"];
}

type Outcome = "skipped" | "unchanged" | "mutated";

/** Seconds since `start`, a performance.now() reading. */
function seconds(start: number): number {
  return (performance.now() - start) / 1e3;
}

function asVersion(eq: Equivalence | undefined, a: Attributes, obj: JsonObject | undefined, version: string | undefined): JsonObject | undefined {
  if (!obj || !version || !eq) return obj;
  return eq.convert(obj, a.resource.group, a.resource.resource, a.resource.version, version);
}

export class Dispatcher {
  constructor(private readonly deps: DispatcherDeps) {}

  /**
   * Phase 1 over `hooks` (in order); changes `a`'s object. On the first pass, a
   * webhook with reinvocationPolicy IfNeeded whose output a later webhook changed
   * asks the chain for a second pass, where only such webhooks are called again.
   */
  async mutate(hooks: readonly Hook[], a: Attributes): Promise<void> {
    const reinvocation = a.reinvocation;
    const stateKey = "webhooks/reinvoke";
    const memo = new EncodedObjects();
    if (reinvocation && reinvocation.round > 0) {
      const again = (reinvocation.state.get(stateKey) as Set<string> | undefined) ?? new Set<string>();
      for (const [i, hook] of hooks.entries()) if (again.has(hook.key)) await this.call(hook, a, i, reinvocation.round, memo);
      return;
    }
    // Per invoked webhook: the number of mutations once its own call returned.
    const seen = new Map<number, number>();
    let mutations = 0;
    for (const [i, hook] of hooks.entries()) {
      const out = await this.call(hook, a, i, 0, memo);
      if (out === "skipped") continue;
      if (out === "mutated") mutations++;
      seen.set(i, mutations);
    }
    const again = new Set<string>();
    for (const [i, hook] of hooks.entries()) {
      const at = seen.get(i);
      if (at !== undefined && hook.reinvocationPolicy === "IfNeeded" && mutations > at) again.add(hook.key);
    }
    if (again.size === 0) return;
    if (reinvocation) {
      reinvocation.state.set(stateKey, again);
      reinvocation.requestReinvocation();
    } else {
      for (const [i, hook] of hooks.entries()) if (again.has(hook.key)) await this.call(hook, a, i, 1, memo);
    }
  }

  /** Phase 2: every matched webhook in parallel. */
  async validate(hooks: readonly Hook[], a: Attributes): Promise<void> {
    const memo = new EncodedObjects();
    const results = await Promise.allSettled(hooks.map((h, i) => this.call(h, a, i, 0, memo)));
    for (const r of results) if (r.status === "rejected") throw r.reason;
  }

  private async call(hook: Hook, a: Attributes, index: number, round: number, memo: EncodedObjects): Promise<Outcome> {
    const type: WebhookType = hook.type === "mutating" ? "admit" : "validating";
    const inv = matchRules(hook, a, this.deps.match);
    if (!inv) return "skipped";
    const eq = this.deps.match.equivalence;
    let object: JsonObject | undefined;
    let oldObject: JsonObject | undefined;
    try {
      if (hook.problem) throw new MatchError(hook.problem);
      if (!(await matchSelectors(hook, a, this.deps.match))) return "skipped";
      object = asVersion(eq, a, a.object, inv.version);
      oldObject = asVersion(eq, a, a.oldObject, inv.version);
      if (!(await matchConditions(hook, a, object, oldObject, this.deps.match.authorize))) return "skipped";
    } catch (err) {
      if (isStatusError(err)) throw err;
      return this.failed(hook, type, a, index, round, err instanceof Error ? err.message : String(err));
    }
    if (hook.type !== "mutating") return this.invoke(hook, type, inv, a, object, oldObject, index, round, memo);
    // Every mutating webhook called leaves whether it changed the object (Metadata level), whatever the outcome.
    let outcome: Outcome = "skipped";
    try {
      outcome = await this.invoke(hook, type, inv, a, object, oldObject, index, round, memo);
      return outcome;
    } finally {
      const mutated = outcome === "mutated";
      a.addAnnotationWithLevel(this.annotationKey("mutation", round, index), "Metadata", () => JSON.stringify({ configuration: hook.configuration, webhook: hook.name, mutated }));
    }
  }

  /** `<kind>.webhook.admission.<domain>/round_<round>_index_<index>`, the platform's audit annotation keys of webhook calls. */
  private annotationKey(kind: string, round: number, index: number): string {
    return `${kind}.webhook.admission.${this.deps.profile.groupDomain}/round_${round}_index_${index}`;
  }

  /** Sends the review of a webhook that matched, and applies its answer. */
  private async invoke(hook: Hook, type: WebhookType, inv: Invocation, a: Attributes, object: JsonObject | undefined, oldObject: JsonObject | undefined, index: number, round: number, memo: EncodedObjects): Promise<Outcome> {
    const eq = this.deps.match.equivalence;
    if (a.dryRun && hook.sideEffects !== "None" && hook.sideEffects !== "NoneOnDryRun") {
      throw badRequest(`admission webhook ${JSON.stringify(hook.name)} does not support dry run`);
    }
    const version = reviewVersion(hook.admissionReviewVersions);
    if (!version) return this.failed(hook, type, a, index, round, `webhook does not accept known AdmissionReview versions (v1, v1beta1): ${JSON.stringify(hook.admissionReviewVersions)}`);
    const uid = randomUUID();
    const start = performance.now();
    let response;
    try {
      const body = await this.deps.client.post(hook.clientConfig, hook.timeoutSeconds, encodeReviewRequest(this.deps.profile, version, uid, a, object, oldObject, memo, inv.version ? { version: inv.version } : undefined));
      response = parseReviewResponse(this.deps.profile, version, uid, body, hook.type === "mutating");
    } catch (err) {
      const code = err instanceof WebhookCallError ? (err.httpStatus ?? 0) : 0;
      this.deps.metrics?.observeWebhook(hook.name, type, a.operation, false, seconds(start));
      this.deps.metrics?.observeWebhookRequest(hook.name, type, a.operation, code, false);
      return this.failed(hook, type, a, index, round, err instanceof Error ? err.message : String(err));
    }
    const rejected = !response.allowed;
    this.deps.metrics?.observeWebhook(hook.name, type, a.operation, rejected, seconds(start));
    this.deps.metrics?.observeWebhookRequest(hook.name, type, a.operation, 200, rejected);
    for (const w of response.warnings) a.addWarning(w);
    for (const [k, v] of Object.entries(response.auditAnnotations)) a.addAnnotation(`${hook.name}/${k}`, v);
    if (rejected) {
      const err = denial(hook, response.status);
      this.deps.metrics?.observeWebhookRejection(hook.name, type, a.operation, "no_error", err.status.code ?? 400);
      throw err;
    }
    if (!response.patch || response.patch.length === 0 || !object) return "unchanged";
    // The patch itself may carry request data: recorded from the Request level up, as the platform does.
    const patch = response.patch;
    a.addAnnotationWithLevel(this.annotationKey("patch", round, index), "Request", () => JSON.stringify({ configuration: hook.configuration, webhook: hook.name, patch, patchType: "JSONPatch" }));
    let patched: unknown;
    try {
      patched = await applyJsonPatchBounded(object, response.patch);
    } catch (err) {
      if (!(err instanceof JsonPatchError)) throw err;
      throw this.patchFailure(hook, type, a, err.message);
    }
    if (!isObject(patched)) {
      throw this.patchFailure(hook, type, a, "the patched value is not an object");
    }
    const back = inv.version && eq ? eq.convert(patched, a.resource.group, a.resource.resource, inv.version, a.resource.version) : patched;
    if (deepEqual(back, a.object)) return "unchanged";
    a.setObject(back);
    return "mutated";
  }

  /** A JSONPatch that does not apply: 500 whatever the failurePolicy (the platform's internal error). */
  private patchFailure(hook: Hook, type: WebhookType, a: Attributes, detail: string): StatusError {
    this.deps.log("warn", "a webhook's JSONPatch could not be applied", { webhook: hook.name, error: detail });
    this.deps.metrics?.observeWebhookRejection(hook.name, type, a.operation, "apiserver_internal_error", 0);
    return callFailure(hook, `JSONPatch could not be applied: ${detail}`);
  }

  /** failurePolicy: Ignore goes on (annotated), Fail rejects with 500 naming the webhook. */
  private failed(hook: Hook, type: WebhookType, a: Attributes, index: number, round: number, reason: string): Outcome {
    if (hook.failurePolicy === "Ignore") {
      this.deps.log("warn", "failed calling webhook, failing open", { webhook: hook.name, error: reason });
      a.addAnnotation(this.annotationKey(`failed-open.${hook.type}`, round, index), hook.name);
      return "skipped";
    }
    this.deps.log("warn", "failed calling webhook, failing closed", { webhook: hook.name, error: reason });
    this.deps.metrics?.observeWebhookRejection(hook.name, type, a.operation, "calling_webhook_error", 0);
    throw callFailure(hook, reason);
  }
}
