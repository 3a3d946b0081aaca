/**
 * The garbage collector's shell: discovers every resource that can be listed, watched
 * and deleted, keeps one reflector per resource feeding the dependency graph
 * (graph.ts), and works the uids the graph hands out through a work queue once every
 * reflector delivered its first complete set. Discovery is repeated periodically so
 * resources that appear later (custom resources) are watched too. Idle cost is the
 * watch streams only: nothing is listed again unless a watch expires.
 */
import { isStatusError } from "../../../shared/api/status.ts";
import type { LogFn } from "../../../shared/observability/logger.ts";
import { discoverResources, KindIndex, preferredWithVerbs, type DiscoveredResource } from "../../../shared/client/discovery.ts";
import type { ApiObject, ObjectClient, OwnerReference, PathGetter } from "../../../shared/client/object-client.ts";
import { Reflector } from "../../../shared/client/reflector.ts";
import type { QueueMetrics } from "../../../shared/client/work-queue.ts";
import { WorkQueue } from "../../../shared/client/work-queue.ts";
import { DependencyGraph, FOREGROUND_FINALIZER, ORPHAN_FINALIZER, verdict, type ObservedObject, type OwnerState } from "./graph.ts";
import { deleteObject, dropOwnerReferences, removeFinalizer } from "./operations.ts";

export interface GarbageCollectorOptions {
  /** `--concurrent-gc-syncs` (default 20, as the platform's). */
  workers?: number;
  /** How often discovery is repeated to follow new or removed resources (default 30 s). */
  rediscoverMs?: number;
  log?: LogFn;
  /** Work queue metrics (`workqueue_*`). */
  metrics?: QueueMetrics;
}

function resourceKey(r: DiscoveredResource): string {
  return `${r.group}/${r.version}/${r.resource}`;
}

function observed(obj: ApiObject, r: DiscoveredResource): ObservedObject | undefined {
  const m = obj.metadata;
  if (!m?.uid || !m.name) return undefined;
  const owners = (Array.isArray(m.ownerReferences) ? m.ownerReferences : []).filter((o): o is OwnerReference => !!o && typeof o.uid === "string" && o.uid !== "");
  return {
    uid: m.uid,
    resource: { group: r.group, version: r.version, resource: r.resource },
    namespace: r.namespaced ? m.namespace : undefined,
    name: m.name,
    owners,
    deleting: !!m.deletionTimestamp,
    finalizers: Array.isArray(m.finalizers) ? m.finalizers : [],
  };
}

export class GarbageCollector {
  readonly graph = new DependencyGraph();
  private readonly queue: WorkQueue<string>;
  private readonly monitors = new Map<string, { reflector: Reflector; uids: Set<string> }>();
  private kinds = new KindIndex([]);
  /** The discovery in flight or last finished, shared by the workers (see `resourceFor`). */
  private discovery: { at: number; running?: Promise<void> } = { at: 0 };
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly client: ObjectClient & PathGetter,
    private readonly opts: GarbageCollectorOptions = {},
  ) {
    this.queue = new WorkQueue((uid) => this.process(uid), { workers: opts.workers ?? 20, metrics: opts.metrics, log: (msg, f) => opts.log?.("warn", msg, f) });
  }

  /** Starts the monitors; resolves once every one delivered its first set and the queue runs. */
  async start(): Promise<void> {
    await this.syncMonitors();
    this.queue.start();
    const every = this.opts.rediscoverMs ?? 30_000;
    const loop = () => {
      this.timer = setTimeout(() => {
        void this.syncMonitors()
          .catch((err: unknown) => this.opts.log?.("warn", "garbage collector discovery failed", { error: String(err) }))
          .finally(() => {
            if (!this.stopped) loop();
          });
      }, every);
      this.timer.unref();
    };
    loop();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.queue.stop();
    for (const m of this.monitors.values()) m.reflector.stop();
    this.monitors.clear();
  }

  /** Resolves when no work is queued or running (for tests and benchmarks). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  private enqueue(uids: string[]): void {
    for (const u of uids) this.queue.add(u);
  }

  /** Starts reflectors for new deletable resources and stops those of vanished ones. */
  private syncMonitors(): Promise<void> {
    this.discovery.running ??= this.discoverAndMonitor().finally(() => {
      this.discovery = { at: Date.now() };
    });
    return this.discovery.running;
  }

  private async discoverAndMonitor(): Promise<void> {
    const all = await discoverResources(this.client);
    this.kinds = new KindIndex(all);
    const wanted = new Map(preferredWithVerbs(all, ["list", "watch", "delete"]).map((r) => [resourceKey(r), r]));
    for (const [key, m] of this.monitors) {
      if (wanted.has(key)) continue;
      m.reflector.stop();
      this.monitors.delete(key);
      for (const uid of m.uids) this.enqueue(this.graph.forget(uid));
    }
    const starts: Array<Promise<void>> = [];
    for (const [key, r] of wanted) {
      if (this.monitors.has(key) || this.stopped) continue;
      const uids = new Set<string>();
      const reflector = new Reflector(
        this.client,
        r,
        {
          replace: (items) => {
            const seen = new Set<string>();
            for (const obj of items) {
              const o = observed(obj, r);
              if (!o) continue;
              seen.add(o.uid);
              uids.add(o.uid);
              this.enqueue(this.graph.observe(o));
            }
            for (const uid of [...uids]) {
              if (seen.has(uid)) continue;
              uids.delete(uid);
              this.enqueue(this.graph.forget(uid));
            }
          },
          event: (type, obj) => {
            const o = observed(obj, r);
            if (!o) return;
            if (type === "DELETED") {
              uids.delete(o.uid);
              this.enqueue(this.graph.forget(o.uid));
            } else {
              uids.add(o.uid);
              this.enqueue(this.graph.observe(o));
            }
          },
        },
        { log: (msg, f) => this.opts.log?.("warn", msg, f) },
      );
      this.monitors.set(key, { reflector, uids });
      starts.push(reflector.start());
    }
    await Promise.all(starts);
  }

  /** Looks an owner up by its reference: live and the same uid, waiting on its dependents, or absent. */
  /**
   * The resource of an owner's kind. An unknown kind triggers a discovery (at most one
   * every 5 s: a custom resource may have just appeared) and, if still unknown, an error:
   * the item is retried with backoff, never deleted on doubt.
   */
  private async resourceFor(ref: OwnerReference): Promise<DiscoveredResource> {
    let r = this.kinds.lookup(ref.apiVersion, ref.kind);
    if (!r && Date.now() - this.discovery.at > 5000) {
      await this.syncMonitors();
      r = this.kinds.lookup(ref.apiVersion, ref.kind);
    }
    if (!r) throw new Error(`no resource serves owner kind ${ref.kind} in ${ref.apiVersion}`);
    return r;
  }

  private async lookupOwner(item: ObservedObject, ref: OwnerReference): Promise<OwnerState> {
    const r = await this.resourceFor(ref);
    if (r.namespaced && !item.namespace) return "unknown";
    try {
      const owner = await this.client.get(r, ref.name, { namespace: r.namespaced ? item.namespace : undefined });
      if (owner.metadata.uid !== ref.uid) return "absent";
      return owner.metadata.deletionTimestamp && (owner.metadata.finalizers ?? []).includes(FOREGROUND_FINALIZER) ? "waiting" : "solid";
    } catch (err) {
      if (isStatusError(err, "NotFound")) return "absent";
      throw err;
    }
  }

  private async process(uid: string): Promise<void> {
    const d = this.graph.decide(uid);
    switch (d.action) {
      case "none":
        return;
      case "orphan":
        for (const dep of d.dependents) await dropOwnerReferences(this.client, dep, [d.owner.uid]);
        await removeFinalizer(this.client, d.owner, ORPHAN_FINALIZER);
        return;
      case "foreground":
        this.enqueue(d.dependents);
        if (d.finalize) await removeFinalizer(this.client, d.owner, FOREGROUND_FINALIZER);
        return;
      case "attemptDelete": {
        const owners = [];
        for (const o of d.owners) owners.push({ ref: o.ref, state: o.state === "unknown" ? await this.lookupOwner(d.item, o.ref) : o.state });
        const v = verdict(d.item, owners, d.hasDependents);
        if (v.verdict === "dropOwners") await dropOwnerReferences(this.client, d.item, v.uids);
        else if (v.verdict === "delete") await deleteObject(this.client, d.item, v.policy);
        return;
      }
    }
  }
}
