/**
 * A small list-and-watch cache over one registry: lists, then watches from the
 * list's resourceVersion, and relists when the watch ends (slow consumer, 410,
 * cache reset). Keeps the current objects by `namespace/name` and calls
 * `onChange` after each applied event. Listing is cheap: the watch cache serves it.
 */
import type { Registry } from "../registry/registry.ts";
import type { Watcher } from "../storage/interface.ts";
import type { JsonObject } from "../storage/object.ts";

export type InformerEvent = { type: "ADDED" | "MODIFIED" | "DELETED"; object: JsonObject; old?: JsonObject } | { type: "SYNC" };

export function objectKey(obj: JsonObject): string {
  const m = (obj.metadata ?? {}) as { name?: string; namespace?: string };
  return `${m.namespace ?? ""}/${m.name ?? ""}`;
}

export class Informer {
  readonly items = new Map<string, JsonObject>();
  private watcher: Watcher | undefined;
  private stopped = false;
  private readonly listeners: Array<(ev: InformerEvent) => void> = [];
  private firstSync: Promise<void>;
  private resolveFirstSync!: () => void;
  private relistDelayMs = 50;

  constructor(
    readonly registry: Registry,
    private readonly log?: (msg: string, fields: Record<string, unknown>) => void,
  ) {
    this.firstSync = new Promise((resolve) => (this.resolveFirstSync = resolve));
  }

  onChange(listener: (ev: InformerEvent) => void): void {
    this.listeners.push(listener);
  }

  /** Starts the loop; resolves after the first list was applied. */
  start(): Promise<void> {
    void this.run();
    return this.firstSync;
  }

  synced(): Promise<void> {
    return this.firstSync;
  }

  stop(): void {
    this.stopped = true;
    this.watcher?.stop();
  }

  private emit(ev: InformerEvent): void {
    for (const l of this.listeners) {
      try {
        l(ev);
      } catch (err) {
        this.log?.("informer listener failed", { resource: this.registry.resource.plural, error: String(err) });
      }
    }
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        const list = await this.registry.list({});
        const next = new Map<string, JsonObject>();
        for (const o of list.items) next.set(objectKey(o), o);
        for (const [k, old] of this.items) if (!next.has(k)) this.emit({ type: "DELETED", object: old, old });
        this.items.clear();
        for (const [k, o] of next) this.items.set(k, o);
        this.emit({ type: "SYNC" });
        this.resolveFirstSync();
        this.relistDelayMs = 50;
        if (this.stopped) return;
        this.watcher = await this.registry.watch({ resourceVersion: list.resourceVersion, allowWatchBookmarks: true });
        if (this.stopped) {
          this.watcher.stop();
          return;
        }
        for (;;) {
          const ev = await this.watcher.next();
          if (!ev || ev.type === "ERROR") break;
          if (ev.type === "BOOKMARK") continue;
          const key = objectKey(ev.object);
          const old = this.items.get(key);
          if (ev.type === "DELETED") this.items.delete(key);
          else this.items.set(key, ev.object);
          this.emit(old ? { type: ev.type, object: ev.object, old } : { type: ev.type, object: ev.object });
        }
        this.watcher.stop();
      } catch (err) {
        if (this.stopped) return;
        this.log?.("informer relist after error", { resource: this.registry.resource.plural, error: String(err) });
        await new Promise((r) => setTimeout(r, this.relistDelayMs).unref());
        this.relistDelayMs = Math.min(this.relistDelayMs * 2, 5000);
      }
    }
  }
}
