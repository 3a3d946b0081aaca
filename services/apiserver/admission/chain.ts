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

type PluginCall = (p: AdmissionPlugin, a: Attributes) => Promise<void> | void;
const admitCall: PluginCall = (p, a) => p.admit?.(a);
const validateCall: PluginCall = (p, a) => p.validate?.(a);

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
    // The request's object is copied when a plugin first reads it, so plugins can change it in place.
    const attrs = new RequestAttributes(req, true);
    const pending = this.run("admit", attrs, admitCall);
    if (pending) await pending;
    if (attrs.reinvocation.requested) {
      // Once more: every mutating plugin (they are idempotent), webhooks only when they need it.
      attrs.reinvocation.round = 1;
      const again = this.run("admit", attrs, admitCall);
      if (again) await again;
    }
    return attrs.result;
  }

  async validate(req: AdmissionRequest): Promise<void> {
    if (this.validating.length === 0) return;
    const pending = this.run("validate", new RequestAttributes(req), validateCall);
    if (pending) await pending;
  }

  /**
   * One phase: synchronous (undefined) while the plugins answer synchronously; from the
   * first plugin that returns a promise on, the rest runs in `runFrom` (a promise).
   */
  private run(type: StepType, attrs: Attributes, call: PluginCall): Promise<void> | undefined {
    const plugins = this.handlers(type, attrs.operation);
    const stepStart = performance.now();
    for (let i = 0; i < plugins.length; i++) {
      const start = performance.now();
      const pending = this.step(type, attrs, call, plugins[i], start, stepStart);
      if (pending) return this.runFrom(type, attrs, call, plugins, i, pending, start, stepStart);
      this.metrics?.observeController(plugins[i].name, type, attrs.operation, false, seconds(start));
    }
    this.metrics?.observeStep(type, attrs.operation, false, seconds(stepStart));
    return undefined;
  }

  /** The rest of a phase after plugin `from` returned `pending`. */
  private async runFrom(type: StepType, attrs: Attributes, call: PluginCall, plugins: readonly AdmissionPlugin[], from: number, pending: Promise<void>, start: number, stepStart: number): Promise<void> {
    for (let i = from; i < plugins.length; i++) {
      const p = plugins[i];
      if (i > from) {
        start = performance.now();
        const next = this.step(type, attrs, call, p, start, stepStart);
        if (next) pending = next;
        else {
          this.metrics?.observeController(p.name, type, attrs.operation, false, seconds(start));
          continue;
        }
      }
      try {
        await pending;
      } catch (err) {
        throw this.rejected(type, attrs.operation, p.name, err, start, stepStart);
      }
      this.metrics?.observeController(p.name, type, attrs.operation, false, seconds(start));
    }
    this.metrics?.observeStep(type, attrs.operation, false, seconds(stepStart));
  }

  /** Calls one plugin: its promise, or undefined when it finished synchronously (a throw is its rejection). */
  private step(type: StepType, attrs: Attributes, call: PluginCall, p: AdmissionPlugin, start: number, stepStart: number): Promise<void> | undefined {
    try {
      return call(p, attrs) ?? undefined;
    } catch (err) {
      throw this.rejected(type, attrs.operation, p.name, err, start, stepStart);
    }
  }

  /** Records a plugin's rejection (plugin and step metrics) and returns the error to throw. */
  private rejected(type: StepType, op: Attributes["operation"], plugin: string, err: unknown, start: number, stepStart: number): Error {
    this.metrics?.observeController(plugin, type, op, true, seconds(start));
    this.metrics?.observeStep(type, op, true, seconds(stepStart));
    return asRejection(plugin, err);
  }

  close(): void {
    for (const p of this.plugins) p.close?.();
  }
}
