/**
 * The admission chain: the enabled plugins in the recommended order. Phase 1
 * (`admit`) calls every mutating plugin that handles the operation and returns
 * the resulting object; phase 2 (`validate`) calls every validating plugin. A
 * StatusError thrown by a plugin rejects the request as it is; any other error
 * becomes a 500 naming the plugin. Implements the registry's hook points.
 */
import { internalError, isStatusError } from "../../../shared/api/status.ts";
import type { AdmissionHooks, AdmissionRequest } from "../registry/registry.ts";
import type { JsonObject } from "../storage/object.ts";
import { RequestAttributes } from "./attributes.ts";
import type { AdmissionPlugin, Attributes } from "./interfaces.ts";
import type { AdmissionMetrics, StepType } from "./metrics.ts";

/** Seconds since `start` (a performance.now() reading): no allocation per reading, unlike hrtime.bigint(). */
function seconds(start: number): number {
  return (performance.now() - start) / 1e3;
}

function asRejection(plugin: string, err: unknown): Error {
  if (isStatusError(err)) return err;
  return internalError(new Error(`admission plugin "${plugin}" failed: ${err instanceof Error ? err.message : String(err)}`));
}

export class AdmissionChain implements AdmissionHooks {
  private mutating: AdmissionPlugin[] = [];
  private validating: AdmissionPlugin[] = [];
  /** Per phase and operation: the plugins of the phase that handle it (filled on first use; plugins' `handles` is fixed). */
  private readonly handling = new Map<string, AdmissionPlugin[]>();
  private readonly internal: AdmissionPlugin[] = [];
  private configured: AdmissionPlugin[] = [];

  constructor(private readonly metrics?: AdmissionMetrics) {}

  /** The configured plugins, in the recommended order (once, at start-up). */
  setPlugins(plugins: readonly AdmissionPlugin[]): void {
    this.configured = [...plugins];
    this.rebuild();
  }

  /**
   * An always-on check that is not an admission plugin of the flags (RBAC
   * escalation): runs before the configured plugins of each phase.
   */
  addInternal(plugin: AdmissionPlugin): void {
    this.internal.push(plugin);
    this.rebuild();
  }

  get plugins(): readonly AdmissionPlugin[] {
    return [...this.internal, ...this.configured];
  }

  private rebuild(): void {
    const all = this.plugins;
    this.mutating = all.filter((p) => p.admit);
    this.validating = all.filter((p) => p.validate);
    this.handling.clear();
  }

  private handlers(type: StepType, op: Attributes["operation"]): AdmissionPlugin[] {
    const key = `${type} ${op}`;
    let list = this.handling.get(key);
    if (!list) {
      list = (type === "admit" ? this.mutating : this.validating).filter((p) => p.handles(op));
      this.handling.set(key, list);
    }
    return list;
  }

  /** Names in execution order (for the start-up log line). */
  names(type: StepType): string[] {
    return (type === "admit" ? this.mutating : this.validating).map((p) => p.name);
  }

  async admit(req: AdmissionRequest): Promise<JsonObject | undefined> {
    if (this.mutating.length === 0) return req.object;
    // The request's object is copied once so plugins can change it in place.
    const attrs = new RequestAttributes(req.object ? { ...req, object: structuredClone(req.object) } : req);
    await this.run("admit", attrs, (p, a) => p.admit?.(a));
    if (attrs.reinvocation.requested) {
      // Once more: every mutating plugin (they are idempotent), webhooks only when they need it.
      attrs.reinvocation.round = 1;
      await this.run("admit", attrs, (p, a) => p.admit?.(a));
    }
    return attrs.object;
  }

  async validate(req: AdmissionRequest): Promise<void> {
    if (this.validating.length === 0) return;
    await this.run("validate", new RequestAttributes(req), (p, a) => p.validate?.(a));
  }

  private async run(type: StepType, attrs: Attributes, call: (p: AdmissionPlugin, a: Attributes) => Promise<void> | void): Promise<void> {
    const op = attrs.operation;
    const stepStart = performance.now();
    let rejected = false;
    try {
      for (const p of this.handlers(type, op)) {
        const start = performance.now();
        try {
          // A plugin that finished synchronously costs no extra turn of the event loop.
          const pending = call(p, attrs);
          if (pending) await pending;
        } catch (err) {
          rejected = true;
          this.metrics?.observeController(p.name, type, op, true, seconds(start));
          throw asRejection(p.name, err);
        }
        this.metrics?.observeController(p.name, type, op, false, seconds(start));
      }
    } finally {
      this.metrics?.observeStep(type, op, rejected, seconds(stepStart));
    }
  }

  close(): void {
    for (const p of this.plugins) p.close?.();
  }
}
