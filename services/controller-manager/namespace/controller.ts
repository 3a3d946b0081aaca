/**
 * The namespace controller, as an API client: reads namespaces from the shared informer
 * (the one watch the other controllers use too; no list of its own); for each Terminating
 * one it deletes the content of every namespaced resource that can be listed and
 * deleted (deletecollection where offered, otherwise one delete per object, Background
 * propagation), and once nothing is left it removes the platform's finalizer from
 * `spec.finalizers` through the `finalize` subresource; the server then removes the
 * namespace. Content that is still Terminating (finalizers of its own) makes the
 * namespace wait and be checked again with a growing delay. Every step is idempotent.
 *
 * After every pass the namespace's status carries the platform's five deletion
 * conditions (conditions.ts), written only when they change. A group version whose
 * discovery fails (an aggregated API that is down) or a resource whose content cannot
 * be deleted does not stop the others from being emptied, but the namespace is not
 * finalized: the pass fails and is retried with the queue's backoff.
 */
import { isStatusError } from "../../../shared/api/status.ts";
import type { LogFn } from "../../../shared/observability/logger.ts";
import type { DiscoveredResource } from "../../../shared/client/discovery.ts";
import type { ApiObject, ObjectClient, PathGetter, ResourceRef } from "../../../shared/client/object-client.ts";
import type { Informer } from "../../../shared/client/informer.ts";
import type { QueueMetrics } from "../../../shared/client/work-queue.ts";
import { WorkQueue } from "../../../shared/client/work-queue.ts";
import { conditionsDiffer, deletionConditions, type DeletionPass, type NamespaceCondition } from "./conditions.ts";
import { discoverDeletableNamespaced, type PartialDiscovery } from "./discovery.ts";

const NAMESPACES: ResourceRef = { group: "", version: "v1", resource: "namespaces" };
/** Resources of one namespace emptied concurrently. */
const CONTENT_CONCURRENCY = 8;

export interface NamespaceControllerOptions {
  /** The platform's namespace finalizer (the profile's `namespaceFinalizer`). */
  finalizer: string;
  /** `--concurrent-namespace-syncs` (default 10, as the platform's). */
  workers?: number;
  log?: LogFn;
  /** Work queue metrics (`workqueue_*` under the queue name `namespace`). */
  metrics?: QueueMetrics;
}

export class NamespaceController {
  private readonly queue: WorkQueue<string>;
  private readonly namespaces: Informer;
  /** The status this controller last wrote per namespace: newer than the cache until the watch delivers it. */
  private readonly written = new Map<string, ApiObject>();
  /** The latest discovery (shared by passes that may use it) and when it started. */
  private discovery: { startedAt: number; found: Promise<PartialDiscovery> } | undefined;
  /** When each namespace was first seen Terminating (local time). */
  private readonly terminatingSince = new Map<string, number>();
  /** Consecutive passes that left content behind, per namespace (for the re-check delay). */
  private readonly waits = new Map<string, number>();

  /** `namespaces`: the shared informer of namespaces; work starts with `start()` once it is synced. */
  constructor(
    private readonly client: ObjectClient & PathGetter,
    namespaces: Informer,
    private readonly opts: NamespaceControllerOptions,
  ) {
    this.namespaces = namespaces;
    this.queue = new WorkQueue((name) => this.sync(name), { workers: opts.workers ?? 10, metrics: opts.metrics, log: (msg, f) => opts.log?.("warn", msg, f) });
    const seen = (ns: ApiObject) => {
      const name = ns.metadata.name;
      if (!name || !ns.metadata.deletionTimestamp) return;
      if (!this.terminatingSince.has(name)) this.terminatingSince.set(name, Date.now());
      this.queue.add(name);
    };
    namespaces.addHandler({
      add: seen,
      update: (_old, ns) => seen(ns),
      delete: (ns) => {
        if (!ns.metadata.name) return;
        this.terminatingSince.delete(ns.metadata.name);
        this.written.delete(ns.metadata.name);
      },
    });
  }

  /** Starts the workers (the shared informer is started and synced by the caller). */
  start(): void {
    this.queue.start();
  }

  stop(): void {
    this.queue.stop();
  }

  /**
   * A discovery that started after `notBefore` (the moment the namespace was seen
   * Terminating: every resource its content can have was served by then), shared by
   * concurrent passes; a partial or failed one is never reused.
   */
  private async discover(notBefore: number): Promise<PartialDiscovery> {
    const latest = this.discovery;
    if (latest && latest.startedAt >= notBefore) {
      const found = await latest.found.catch(() => undefined);
      if (found && found.failures.size === 0) return found;
    }
    const startedAt = Date.now();
    const found = discoverDeletableNamespaced(this.client);
    this.discovery = { startedAt, found };
    return found;
  }

  /** Deletes what is left of one resource in the namespace; returns the objects that remain. */
  private async deleteContent(namespace: string, r: DiscoveredResource): Promise<ApiObject[]> {
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
    return list.items;
  }

  /** The cached namespace, or the one this controller wrote if the watch has not delivered it yet. */
  private current(name: string): ApiObject | undefined {
    const cached = this.namespaces.get(name);
    const mine = this.written.get(name);
    if (!cached || !mine || mine.metadata.uid !== cached.metadata.uid) return cached;
    return Number(mine.metadata.resourceVersion) > Number(cached.metadata.resourceVersion) ? mine : cached;
  }

  private async sync(name: string): Promise<void> {
    const ns = this.current(name);
    if (!ns?.metadata.deletionTimestamp) return;
    const finalizers = ((ns.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []);
    if (!finalizers.includes(this.opts.finalizer)) return;
    // Resources are emptied a few at a time: one namespace's pass is ~2 requests per resource.
    const found = await this.discover(this.terminatingSince.get(name) ?? Date.now());
    const resources = found.resources;
    const contentErrors: string[] = [];
    const remainingByResource = new Map<string, number>();
    const finalizerCounts = new Map<string, number>();
    let remaining = 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(CONTENT_CONCURRENCY, resources.length) }, async () => {
        while (next < resources.length) {
          const r = resources[next++];
          try {
            const left = await this.deleteContent(name, r);
            remaining += left.length; // after the await: `remaining += await …` would lose concurrent updates
            if (left.length > 0) remainingByResource.set(`${r.resource}.${r.group}`, left.length);
            for (const obj of left) for (const f of obj.metadata.finalizers ?? []) finalizerCounts.set(f, (finalizerCounts.get(f) ?? 0) + 1);
          } catch (err) {
            contentErrors.push(err instanceof Error ? err.message : String(err));
          }
        }
      }),
    );
    const pass: DeletionPass = { discoveryFailures: found.failures, contentErrors, remaining: remainingByResource, finalizers: finalizerCounts };
    await this.reportConditions(ns, pass);
    if (pass.discoveryFailures.size > 0 || pass.contentErrors.length > 0) {
      throw new Error(`namespace ${name}: content not deleted: ${[...pass.discoveryFailures.values(), ...pass.contentErrors].join("; ")}`);
    }
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

  /** Writes the deletion conditions to the namespace's status when they changed. */
  private async reportConditions(ns: ApiObject, pass: DeletionPass): Promise<void> {
    const status = (ns.status ?? {}) as { conditions?: NamespaceCondition[] };
    const previous = status.conditions ?? [];
    const conditions = deletionConditions(pass, previous, new Date().toISOString().replace(/\.\d{3}Z$/, "Z"));
    if (!conditionsDiffer(previous, conditions)) return;
    const name = ns.metadata.name ?? "";
    this.opts.log?.("info", "controller action", { controller: "namespace-controller", verb: "update", resource: "namespaces/status", namespace: "", name });
    try {
      const written = await this.client.update(NAMESPACES, { ...ns, status: { ...status, conditions } }, { subresource: "status" });
      // The next pass compares against what was written, even before the watch delivers it.
      this.written.set(name, written);
    } catch (err) {
      // Gone, or changed meanwhile: the next pass writes them again.
      if (!isStatusError(err, "NotFound") && !isStatusError(err, "Conflict")) throw err;
    }
  }
}
