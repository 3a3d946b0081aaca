/**
 * The garbage collector, on owner references:
 * - an owner deleted with `orphan` loses the finalizer once every dependent's
 *   reference to it is removed;
 * - an owner deleted with `foregroundDeletion` loses the finalizer once every
 *   dependent is gone (dependents are deleted first, in the foreground when they
 *   block the owner's deletion);
 * - a dependent whose owners are all gone is deleted (background cascading), after
 *   being seen dangling on two consecutive passes so that an owner created right
 *   after its dependent is not mistaken for a missing one.
 * Runs in the apiserver process until the controller manager exists; every step is
 * idempotent, so several replicas may run it.
 */
import { isStatusError } from "../../shared/api/status.ts";
import type { Catalog, ServedResource } from "../apiserver/registry/catalog.ts";
import { deleteObject, finishDeletionIfDone, FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from "../apiserver/registry/deletion.ts";
import { meta, type JsonObject } from "../apiserver/storage/object.ts";

interface Entry {
  served: ServedResource;
  obj: JsonObject;
}

interface OwnerRef {
  uid: string;
  blockOwnerDeletion?: boolean;
}

function ownerRefs(obj: JsonObject): OwnerRef[] {
  const refs = meta(obj).ownerReferences;
  return Array.isArray(refs) ? (refs as OwnerRef[]).filter((r) => typeof r?.uid === "string") : [];
}

export interface GarbageCollectorOptions {
  intervalMs?: number;
  log?: (level: "info" | "warn", msg: string, fields?: Record<string, unknown>) => void;
}

export class GarbageCollector {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  /** Dependents seen with every owner missing on the previous pass. */
  private dangling = new Set<string>();

  constructor(
    private readonly catalog: Catalog,
    private readonly opts: GarbageCollectorOptions = {},
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sync(), this.opts.intervalMs ?? 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async snapshot(): Promise<Map<string, Entry>> {
    const byUid = new Map<string, Entry>();
    for (const served of this.catalog.all()) {
      const { resource } = served;
      if (resource.def.virtual || this.catalog.preferred(resource.group, resource.plural) !== served) continue;
      const list = await served.registry.list({ resourceVersion: "0" });
      for (const obj of list.items) {
        const uid = meta(obj).uid;
        if (uid) byUid.set(uid, { served, obj });
      }
    }
    return byUid;
  }

  /** One pass; returns what it did, for tests and logs. */
  async sync(): Promise<{ orphaned: number; deleted: number; finalized: number }> {
    const done = { orphaned: 0, deleted: 0, finalized: 0 };
    if (this.running) return done;
    this.running = true;
    try {
      const all = await this.snapshot();
      const dependents = new Map<string, Entry[]>();
      for (const entry of all.values()) {
        for (const ref of ownerRefs(entry.obj)) {
          const list = dependents.get(ref.uid) ?? [];
          list.push(entry);
          dependents.set(ref.uid, list);
        }
      }
      for (const [uid, owner] of all) {
        const m = meta(owner.obj);
        if (!m.deletionTimestamp) continue;
        const finalizers = m.finalizers ?? [];
        const deps = dependents.get(uid) ?? [];
        if (finalizers.includes(ORPHAN_FINALIZER)) {
          for (const d of deps) if (await this.dropOwnerRef(d, uid)) done.orphaned++;
          if (await this.removeFinalizer(owner, ORPHAN_FINALIZER)) done.finalized++;
        } else if (finalizers.includes(FOREGROUND_FINALIZER)) {
          const live = deps.filter((d) => all.has(meta(d.obj).uid as string));
          for (const d of live) {
            if (meta(d.obj).deletionTimestamp) continue;
            const blocking = ownerRefs(d.obj).some((r) => r.uid === uid && r.blockOwnerDeletion);
            if (await this.remove(d, blocking ? "Foreground" : "Background")) done.deleted++;
          }
          if (live.length === 0 && (await this.removeFinalizer(owner, FOREGROUND_FINALIZER))) done.finalized++;
        }
      }
      const nextDangling = new Set<string>();
      for (const [uid, entry] of all) {
        const refs = ownerRefs(entry.obj);
        if (refs.length === 0 || meta(entry.obj).deletionTimestamp) continue;
        if (refs.some((r) => all.has(r.uid))) continue;
        if (this.dangling.has(uid)) {
          if (await this.remove(entry, "Background")) done.deleted++;
        } else nextDangling.add(uid);
      }
      this.dangling = nextDangling;
    } catch (err) {
      this.opts.log?.("warn", "garbage collector pass failed", { error: String(err) });
    } finally {
      this.running = false;
    }
    return done;
  }

  private async remove(entry: Entry, policy: "Foreground" | "Background"): Promise<boolean> {
    const m = meta(entry.obj);
    try {
      await deleteObject(entry.served.registry, m.namespace, m.name as string, { propagationPolicy: policy, preconditions: { uid: m.uid } }, { namespace: m.namespace, dryRun: false });
      return true;
    } catch (err) {
      if (isStatusError(err, "NotFound") || isStatusError(err, "Conflict")) return false;
      throw err;
    }
  }

  private async dropOwnerRef(entry: Entry, ownerUid: string): Promise<boolean> {
    const m = meta(entry.obj);
    try {
      await entry.served.registry.update(
        m.namespace,
        m.name as string,
        (current) => {
          const next = structuredClone(current as JsonObject);
          const nm = meta(next);
          nm.ownerReferences = ownerRefs(next).filter((r) => r.uid !== ownerUid);
          if ((nm.ownerReferences as unknown[]).length === 0) delete nm.ownerReferences;
          return next;
        },
        { namespace: m.namespace, dryRun: false },
      );
      return true;
    } catch (err) {
      if (isStatusError(err, "NotFound")) return false;
      throw err;
    }
  }

  private async removeFinalizer(entry: Entry, finalizer: string): Promise<boolean> {
    const m = meta(entry.obj);
    try {
      const { object } = await entry.served.registry.update(
        m.namespace,
        m.name as string,
        (current) => {
          const next = structuredClone(current as JsonObject);
          const nm = meta(next);
          nm.finalizers = (nm.finalizers ?? []).filter((f) => f !== finalizer);
          if (nm.finalizers.length === 0) delete nm.finalizers;
          return next;
        },
        { namespace: m.namespace, dryRun: false },
      );
      await finishDeletionIfDone(entry.served.registry, m.namespace, object, false);
      return true;
    } catch (err) {
      if (isStatusError(err, "NotFound")) return false;
      throw err;
    }
  }
}
