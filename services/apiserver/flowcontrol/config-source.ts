/**
 * `FlowControlConfigSource` of a replica: two informers (FlowSchemas and
 * PriorityLevelConfigurations) over the replica's watch cache. After every
 * applied change the configuration is rebuilt (views.ts: defaulted, sorted,
 * dangling schemas left out, mandatory stand-ins) and handed to the
 * subscribers. Before the first sync (or when the group is not served) the
 * configuration is the mandatory objects alone.
 */
import { Informer, type InformerEvent } from "../authz/informer.ts";
import type { Registry } from "../registry/registry.ts";
import type { JsonObject } from "../storage/object.ts";
import type { FlowControlConfig, FlowControlConfigSource } from "./contract.ts";
import { buildConfig } from "./views.ts";

export type InformerLog = (msg: string, fields: Record<string, unknown>) => void;

export class InformerConfigSource implements FlowControlConfigSource {
  readonly flowSchemas?: Informer;
  readonly priorityLevels?: Informer;
  private config: FlowControlConfig = buildConfig([], []);
  private readonly listeners = new Set<(config: FlowControlConfig) => void>();
  /** Called with each change of either kind, after the configuration was rebuilt. */
  private readonly changeHooks: Array<(kind: "FlowSchema" | "PriorityLevelConfiguration", ev: InformerEvent) => void> = [];

  constructor(registries: { flowSchemas?: Registry; priorityLevels?: Registry }, log?: InformerLog) {
    if (registries.flowSchemas) this.flowSchemas = this.watch(new Informer(registries.flowSchemas, log), "FlowSchema");
    if (registries.priorityLevels) this.priorityLevels = this.watch(new Informer(registries.priorityLevels, log), "PriorityLevelConfiguration");
  }

  private watch(informer: Informer, kind: "FlowSchema" | "PriorityLevelConfiguration"): Informer {
    informer.onChange((ev) => {
      this.rebuild();
      for (const hook of this.changeHooks) hook(kind, ev);
    });
    return informer;
  }

  async start(): Promise<void> {
    await Promise.all([this.flowSchemas?.start(), this.priorityLevels?.start()]);
    this.rebuild();
  }

  stop(): void {
    this.flowSchemas?.stop();
    this.priorityLevels?.stop();
  }

  current(): FlowControlConfig {
    return this.config;
  }

  subscribe(listener: (config: FlowControlConfig) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** For the replica's own keepers (bootstrap ensurer, status writer). */
  onObjectChange(hook: (kind: "FlowSchema" | "PriorityLevelConfiguration", ev: InformerEvent) => void): void {
    this.changeHooks.push(hook);
  }

  /** The stored objects of one kind, by name. */
  stored(kind: "FlowSchema" | "PriorityLevelConfiguration"): ReadonlyMap<string, JsonObject> {
    const informer = kind === "FlowSchema" ? this.flowSchemas : this.priorityLevels;
    const out = new Map<string, JsonObject>();
    for (const o of informer?.items.values() ?? []) out.set(String((o.metadata as { name?: string } | undefined)?.name ?? ""), o);
    return out;
  }

  private rebuild(): void {
    this.config = buildConfig(this.flowSchemas?.items.values() ?? [], this.priorityLevels?.items.values() ?? []);
    for (const l of this.listeners) l(this.config);
  }
}
