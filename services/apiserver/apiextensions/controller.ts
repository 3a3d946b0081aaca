/**
 * Runs on every replica: watches CustomResourceDefinitions through the replica's
 * watch cache (an informer over the CRD registry) and
 *  - serves the versions of every Established CRD in the catalog (and stops
 *    serving what a changed or deleted CRD no longer serves), so every replica
 *    serves a CRD as soon as its cache sees it Established, whoever wrote it;
 *  - writes the status the CRD should have (names, NamesAccepted, Established):
 *    replicas compute the same status, a conflicting write is retried on the
 *    next event, and an equal status is not written;
 *  - cleans up a Terminating CRD: deletes every custom resource (finalizers of
 *    the objects are honoured: the CRD waits), then drops the cleanup finalizer.
 * Conversion webhooks are called through one HTTPS client of the replica (a service is
 * resolved to an endpoint of its EndpointSlices, as admission webhooks are).
 */
import { isStatusError } from "../../../shared/api/status.ts";
import type { LogFn } from "../../../shared/observability/logger.ts";
import { catalogObjectAccess } from "../admission/object-access.ts";
import { WebhookClient } from "../admission/webhooks/client.ts";
import { serviceResolver } from "../admission/webhooks/service-resolver.ts";
import { Informer, type InformerEvent } from "../authz/informer.ts";
import type { Catalog, ServedResource } from "../registry/catalog.ts";
import { deleteObject } from "../registry/deletion.ts";
import { timestamp } from "../registry/system-meta.ts";
import { isObject, meta, type JsonObject } from "../storage/object.ts";
import { cleanupFinalizer } from "./crd-strategy.ts";
import type { ConversionMetrics } from "./conversion-metrics.ts";
import { servedResources } from "./served.ts";
import { desiredStatus, isEstablished } from "./status.ts";
import type { CrdState } from "./strategy.ts";

/** The shared log sink (shared/observability). */
export type ControllerLog = LogFn;

interface Serving {
  /** JSON of what the served resources were built from (spec and accepted names). */
  source: string;
  served: ServedResource[];
  state: CrdState;
}

export class CrdController {
  private readonly informer: Informer;
  private readonly serving = new Map<string, Serving>();
  private readonly cleaning = new Set<string>();
  private readonly webhookClient: WebhookClient;
  private stopped = false;

  constructor(
    private readonly catalog: Catalog,
    private readonly log?: ControllerLog,
    private readonly conversionMetrics?: ConversionMetrics,
  ) {
    const crds = catalog.lookup(catalog.profile.group("apiextensions"), "v1", "customresourcedefinitions");
    if (!crds) throw new Error("the catalog does not serve CustomResourceDefinitions");
    this.webhookClient = new WebhookClient(serviceResolver(catalog.profile, catalogObjectAccess(() => catalog)));
    this.informer = new Informer(crds.registry, (msg, fields) => log?.("warn", msg, fields));
    this.informer.onChange((ev) => this.onEvent(ev));
  }

  /** Starts watching; resolves once the CRDs stored at start are served. */
  start(): Promise<void> {
    return this.informer.start();
  }

  stop(): void {
    this.stopped = true;
    this.informer.stop();
    this.webhookClient.close();
  }

  private onEvent(ev: InformerEvent): void {
    if (ev.type === "SYNC") {
      for (const name of [...this.serving.keys()]) if (!this.informer.items.has(`/${name}`)) this.unserve(name);
      for (const crd of this.informer.items.values()) this.reconcile(crd);
      return;
    }
    if (ev.type === "DELETED") {
      this.unserve(meta(ev.object).name ?? "");
      // Names another CRD may have been waiting for are free now.
      for (const crd of this.informer.items.values()) this.reconcile(crd);
      return;
    }
    this.reconcile(ev.object);
  }

  private reconcile(crd: JsonObject): void {
    if (this.stopped) return;
    const name = meta(crd).name ?? "";
    if (isEstablished(crd)) this.serve(name, crd);
    if (meta(crd).deletionTimestamp) {
      this.cleanup(crd);
      return;
    }
    void this.updateStatus(crd);
  }

  private serve(name: string, crd: JsonObject): void {
    const status = isObject(crd.status) ? crd.status : {};
    const source = JSON.stringify([crd.spec, status.acceptedNames]);
    const current = this.serving.get(name);
    const state: CrdState = current?.state ?? { terminating: false };
    state.terminating = !!meta(crd).deletionTimestamp;
    if (current?.source === source) return;
    let served: ServedResource[];
    try {
      served = servedResources(crd, this.catalog.profile, this.catalog.storage, this.catalog.options, state, { client: this.webhookClient, metrics: this.conversionMetrics });
    } catch (err) {
      this.log?.("warn", "custom resource definition not served", { name, error: String(err) });
      return;
    }
    // A resource served by another CRD or built in keeps its handler (the CRD's names were accepted in its own group only).
    const mine = new Set(current?.served ?? []);
    served = served.filter((s) => {
      const r = s.resource;
      const existing = this.catalog.lookup(r.group, r.version, r.plural);
      if (!existing || mine.has(existing)) return true;
      this.log?.("warn", "custom resource not served: the path is served already", { name, path: `${r.group}/${r.version}/${r.plural}` });
      return false;
    });
    const keep = new Set(served.map((s) => `${s.resource.group}/${s.resource.version}/${s.resource.plural}`));
    for (const old of current?.served ?? []) {
      const r = old.resource;
      if (!keep.has(`${r.group}/${r.version}/${r.plural}`)) this.catalog.remove(r.group, r.version, r.plural);
    }
    for (const s of served) this.catalog.add(s);
    this.serving.set(name, { source, served, state });
  }

  private unserve(name: string): void {
    const current = this.serving.get(name);
    if (!current) return;
    for (const s of current.served) {
      const r = s.resource;
      // Only the entry this CRD added (another CRD may serve the path by now).
      if (this.catalog.lookup(r.group, r.version, r.plural) === s) this.catalog.remove(r.group, r.version, r.plural);
    }
    // Watches of a resource that is no longer served end, as on the platform.
    for (const w of [...(current.state.watchers ?? [])]) w.stop();
    this.serving.delete(name);
  }

  private async updateStatus(crd: JsonObject): Promise<void> {
    const status = desiredStatus(crd, this.informer.items.values(), timestamp(Date.now()));
    if (!status) return;
    const registry = this.informer.registry;
    const name = meta(crd).name ?? "";
    try {
      await registry.update(undefined, name, (current) => ({ ...(current ?? crd), status, metadata: { ...meta(current ?? crd) } }), { subresource: "status", dryRun: false });
    } catch (err) {
      // A conflict means a newer CRD is on its way through the informer; it is reconciled then.
      if (!isStatusError(err, "Conflict") && !isStatusError(err, "NotFound")) this.log?.("warn", "custom resource definition status not written", { name, error: String(err) });
    }
  }

  /** Deletes every custom resource of a Terminating CRD, then releases it. */
  private cleanup(crd: JsonObject): void {
    const name = meta(crd).name ?? "";
    if (this.cleaning.has(name)) return;
    this.cleaning.add(name);
    void this.runCleanup(crd)
      .catch((err: unknown) => this.log?.("warn", "custom resource cleanup failed", { name, error: String(err) }))
      .finally(() => this.cleaning.delete(name));
  }

  private async runCleanup(crd: JsonObject): Promise<void> {
    const name = meta(crd).name ?? "";
    const finalizer = cleanupFinalizer(this.catalog.profile);
    if (!(meta(crd).finalizers ?? []).includes(finalizer)) return;
    const served = this.serving.get(name)?.served[0] ?? servedResources(crd, this.catalog.profile, this.catalog.storage, this.catalog.options, undefined, { client: this.webhookClient, metrics: this.conversionMetrics })[0];
    for (let attempt = 0; served && !this.stopped; attempt++) {
      const list = await served.registry.list({});
      if (list.items.length === 0) break;
      for (const item of list.items) {
        const m = meta(item);
        if (m.deletionTimestamp) continue;
        await deleteObject(served.registry, m.namespace, m.name ?? "", {}, { dryRun: false }).catch((err: unknown) => {
          if (!isStatusError(err, "NotFound")) throw err;
        });
      }
      // Objects with finalizers of their own keep the CRD until they are gone.
      await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** Math.min(attempt, 5))).unref());
    }
    if (this.stopped) return;
    const registry = this.informer.registry;
    await registry
      .update(
        undefined,
        name,
        (current) => {
          const next = structuredClone(current ?? crd);
          meta(next).finalizers = (meta(next).finalizers ?? []).filter((f) => f !== finalizer);
          return next;
        },
        { dryRun: false },
      )
      .catch((err: unknown) => {
        if (!isStatusError(err, "NotFound") && !isStatusError(err, "Conflict")) throw err;
      });
  }
}
