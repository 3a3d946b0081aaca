/**
 * The namespace controller: for each Terminating namespace, deletes every namespaced
 * object in it, and once none is left removes the platform's finalizer from
 * `spec.finalizers` (the finalize subresource) so the namespace itself goes away.
 * Runs in the apiserver process until the controller manager exists; several
 * replicas may run it at once (every step is idempotent).
 */
import { isStatusError } from "../../shared/api/status.ts";
import type { PlatformProfile } from "../../shared/platform/index.ts";
import { deleteObject, finishDeletionIfDone } from "../apiserver/registry/deletion.ts";
import type { Catalog } from "../apiserver/registry/catalog.ts";
import { meta, type JsonObject } from "../apiserver/storage/object.ts";

export interface NamespaceControllerOptions {
  intervalMs?: number;
  log?: (level: "info" | "warn", msg: string, fields?: Record<string, unknown>) => void;
}

export class NamespaceController {
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly catalog: Catalog,
    private readonly profile: PlatformProfile,
    private readonly opts: NamespaceControllerOptions = {},
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sync(), this.opts.intervalMs ?? 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** One pass over all namespaces; returns the names that finished terminating. */
  async sync(): Promise<string[]> {
    if (this.running) return [];
    this.running = true;
    const done: string[] = [];
    try {
      const namespaces = this.catalog.lookup("", "v1", "namespaces");
      if (!namespaces) return done;
      const list = await namespaces.registry.list({ resourceVersion: "0" });
      for (const ns of list.items) {
        if (!meta(ns).deletionTimestamp) continue;
        if (await this.finalize(ns)) done.push(meta(ns).name as string);
      }
    } catch (err) {
      this.opts.log?.("warn", "namespace controller pass failed", { error: String(err) });
    } finally {
      this.running = false;
    }
    return done;
  }

  private async finalize(ns: JsonObject): Promise<boolean> {
    const name = meta(ns).name as string;
    let remaining = 0;
    for (const served of this.catalog.all()) {
      const { resource, registry } = served;
      if (!resource.namespaced || resource.def.virtual) continue;
      // One registry per kind is enough: other versions of the same kind share the storage.
      if (this.catalog.preferred(resource.group, resource.plural) !== served) continue;
      const items = await registry.list({ namespace: name });
      for (const obj of items.items) {
        remaining++;
        if (meta(obj).deletionTimestamp) continue;
        try {
          await deleteObject(registry, name, meta(obj).name as string, { propagationPolicy: "Background" }, { namespace: name, dryRun: false });
        } catch (err) {
          if (!isStatusError(err, "NotFound")) this.opts.log?.("warn", "namespace content delete failed", { namespace: name, error: String(err) });
        }
      }
    }
    if (remaining > 0) return false;
    const namespaces = this.catalog.lookup("", "v1", "namespaces");
    if (!namespaces) return false;
    try {
      const { object } = await namespaces.registry.update(
        undefined,
        name,
        (current) => {
          const next = structuredClone(current as JsonObject);
          const spec = (next.spec ?? {}) as { finalizers?: string[] };
          spec.finalizers = (spec.finalizers ?? []).filter((f) => f !== this.profile.namespaceFinalizer);
          next.spec = spec;
          return next;
        },
        { dryRun: false, subresource: "finalize" },
      );
      await finishDeletionIfDone(namespaces.registry, undefined, object, false);
      return true;
    } catch (err) {
      if (isStatusError(err, "NotFound")) return true;
      throw err;
    }
  }
}
