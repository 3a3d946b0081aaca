/**
 * The namespace controller, as an API client: watches namespaces; for each Terminating
 * one it deletes the content of every namespaced resource that can be listed and
 * deleted (deletecollection where offered, otherwise one delete per object, Background
 * propagation), and once nothing is left it removes the platform's finalizer from
 * `spec.finalizers` through the `finalize` subresource; the server then removes the
 * namespace. Content that is still Terminating (finalizers of its own) makes the
 * namespace wait and be checked again with a growing delay. Every step is idempotent.
 */
import { isStatusError } from "../../../shared/api/status.ts";
import type { LogFn } from "../../../shared/observability/logger.ts";
import { discoverResources, preferredWithVerbs, type DiscoveredResource } from "../../../shared/client/discovery.ts";
import type { ApiObject, ObjectClient, PathGetter, ResourceRef } from "../../../shared/client/object-client.ts";
import { Reflector } from "../../../shared/client/reflector.ts";
import type { QueueMetrics } from "../metrics.ts";
import { WorkQueue } from "../work-queue.ts";

const NAMESPACES: ResourceRef = { group: "", version: "v1", resource: "namespaces" };
/** Resources of one namespace emptied concurrently. */
const CONTENT_CONCURRENCY = 8;

export interface NamespaceControllerOptions {
  /** The platform's namespace finalizer (the profile's `namespaceFinalizer`). */
  finalizer: string;
  /** `--concurrent-namespace-syncs` (default 10, as the platform's). */
  workers?: number;
  /** Discovery results are reused for this long (default 10 s). */
  discoveryTtlMs?: number;
  log?: LogFn;
  /** Work queue metrics (`workqueue_*` under the queue name `namespace`). */
  metrics?: QueueMetrics;
}

export class NamespaceController {
  private readonly queue: WorkQueue<string>;
  private readonly reflector: Reflector;
  private readonly namespaces = new Map<string, ApiObject>();
  private discovered: { at: number; resources: DiscoveredResource[] } | undefined;
  /** Consecutive passes that left content behind, per namespace (for the re-check delay). */
  private readonly waits = new Map<string, number>();

  constructor(
    private readonly client: ObjectClient & PathGetter,
    private readonly opts: NamespaceControllerOptions,
  ) {
    this.queue = new WorkQueue((name) => this.sync(name), { workers: opts.workers ?? 10, metrics: opts.metrics, log: (msg, f) => opts.log?.("warn", msg, f) });
    const seen = (ns: ApiObject) => {
      const name = ns.metadata.name;
      if (!name) return;
      this.namespaces.set(name, ns);
      if (ns.metadata.deletionTimestamp) this.queue.add(name);
    };
    this.reflector = new Reflector(client, NAMESPACES, {
      replace: (items) => {
        this.namespaces.clear();
        for (const ns of items) seen(ns);
      },
      event: (type, ns) => {
        if (type === "DELETED") {
          if (ns.metadata.name) this.namespaces.delete(ns.metadata.name);
        } else seen(ns);
      },
    }, { log: (msg, f) => opts.log?.("warn", msg, f) });
  }

  async start(): Promise<void> {
    await this.reflector.start();
    this.queue.start();
  }

  stop(): void {
    this.reflector.stop();
    this.queue.stop();
  }

  private async resources(): Promise<DiscoveredResource[]> {
    const ttl = this.opts.discoveryTtlMs ?? 10_000;
    if (!this.discovered || Date.now() - this.discovered.at > ttl) {
      const all = await discoverResources(this.client);
      this.discovered = { at: Date.now(), resources: preferredWithVerbs(all, ["list", "delete"]).filter((r) => r.namespaced) };
    }
    return this.discovered.resources;
  }

  /** Deletes what is left of one resource in the namespace; returns how many objects remain. */
  private async deleteContent(namespace: string, r: DiscoveredResource): Promise<number> {
    if (r.verbs.includes("deletecollection")) {
      try {
        await this.client.deleteCollection(r, { namespace, propagationPolicy: "Background" });
      } catch (err) {
        if (!isStatusError(err, "NotFound") && !isStatusError(err, "MethodNotAllowed")) throw err;
      }
    }
    const list = await this.client.list(r, { namespace });
    for (const obj of list.items) {
      if (obj.metadata.deletionTimestamp || !obj.metadata.name) continue;
      try {
        await this.client.delete(r, obj.metadata.name, { namespace, propagationPolicy: "Background", preconditions: { uid: obj.metadata.uid } });
      } catch (err) {
        if (!isStatusError(err, "NotFound") && !isStatusError(err, "Conflict")) throw err;
      }
    }
    return list.items.length;
  }

  private async sync(name: string): Promise<void> {
    const ns = this.namespaces.get(name);
    if (!ns?.metadata.deletionTimestamp) return;
    const finalizers = ((ns.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []);
    if (!finalizers.includes(this.opts.finalizer)) return;
    // Resources are emptied a few at a time: one namespace's pass is ~2 requests per resource.
    const resources = await this.resources();
    let remaining = 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(CONTENT_CONCURRENCY, resources.length) }, async () => {
        while (next < resources.length) {
          const left = await this.deleteContent(name, resources[next++]);
          remaining += left; // after the await: `remaining += await …` would lose concurrent updates
        }
      }),
    );
    if (remaining > 0) {
      // Content with finalizers of its own: check again later (0.5 s doubling up to 15 s).
      const n = (this.waits.get(name) ?? 0) + 1;
      this.waits.set(name, n);
      this.queue.addAfter(name, Math.min(500 * 2 ** (n - 1), 15_000));
      return;
    }
    this.waits.delete(name);
    try {
      const current = await this.client.get(NAMESPACES, name);
      if (current.metadata.uid !== ns.metadata.uid) return;
      const spec = (current.spec ?? {}) as { finalizers?: string[] };
      const next: ApiObject = { ...current, spec: { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== this.opts.finalizer) } };
      this.opts.log?.("info", "controller action", { controller: "namespace-controller", verb: "finalize", resource: "namespaces", namespace: "", name });
      await this.client.update(NAMESPACES, next, { subresource: "finalize" });
      this.opts.log?.("info", "namespace finalized", { namespace: name });
    } catch (err) {
      if (isStatusError(err, "NotFound")) return;
      throw err;
    }
  }
}
