/**
 * The local APIServices of the group versions served by CRDs, as the platform's
 * crd-autoregister controller keeps them: `<version>.<group>` for every version some
 * CRD serves, created when the first such CRD appears, deleted with the last one.
 *
 * Contract:
 *  - runs on every replica, woken by its CRD informer; each pass reads CRDs and
 *    APIServices afresh (most recent reads), so a replica whose informer lags never
 *    deletes an APIService for a CRD it has not seen yet;
 *  - touches only APIServices carrying the automanaged label "true": built-in ones
 *    ("onstart") and ones written by users with the same name are left alone;
 *  - passes never overlap; a wake-up during a pass runs one more pass after it;
 *  - replicas race harmlessly: AlreadyExists and NotFound are expected, and a delete
 *    carries the uid it saw as a precondition, so a re-created object survives.
 * The aggregator's availability check marks the new objects Available (reason Local).
 */
import { isStatusError } from "../../../shared/api/status.ts";
import type { LogFn } from "../../../shared/observability/logger.ts";
import { Informer } from "../authz/informer.ts";
import type { Catalog } from "../registry/catalog.ts";
import { deleteObject } from "../registry/deletion.ts";
import type { Registry } from "../registry/registry.ts";
import { meta } from "../storage/object.ts";
import { crdApiServices, isSyncManaged } from "./api-service.ts";

export class CrdApiServiceRegistration {
  private readonly informer?: Informer;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    private readonly catalog: Catalog,
    private readonly apiServices: Registry,
    /** Names of the built-in (onstart) APIServices. */
    private readonly builtin: () => ReadonlySet<string>,
    private readonly log?: LogFn,
  ) {
    const crds = catalog.lookup(catalog.profile.group("apiextensions"), "v1", "customresourcedefinitions");
    if (!crds) return; // CRDs are not served (--runtime-config): nothing to register
    this.informer = new Informer(crds.registry, (msg, fields) => log?.("warn", msg, fields));
    this.informer.onChange(() => this.wake());
  }

  /** Starts watching CRDs; resolves after the first pass over the CRDs stored at start. */
  async start(): Promise<void> {
    if (!this.informer) return;
    await this.informer.start();
    this.wake();
    await this.idle();
  }

  stop(): void {
    this.stopped = true;
    this.informer?.stop();
  }

  /** Resolves when no pass is running or queued. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pass()
      .catch((err: unknown) => this.log?.("warn", "CRD APIServices not synced", { error: String(err) }))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async pass(): Promise<void> {
    const crds = this.catalog.lookup(this.catalog.profile.group("apiextensions"), "v1", "customresourcedefinitions");
    if (!crds) return;
    const desired = crdApiServices(this.catalog.profile, (await crds.registry.list({})).items, this.builtin());
    const existing = (await this.apiServices.list({})).items;
    const names = new Set(existing.map((o) => meta(o).name ?? ""));
    const writes: Array<Promise<unknown>> = [];
    for (const [name, obj] of desired) {
      if (names.has(name)) continue;
      writes.push(this.apiServices.create(obj, { dryRun: false }).catch((err: unknown) => this.ignore(err, "AlreadyExists", name)));
    }
    for (const obj of existing) {
      const m = meta(obj);
      const name = m.name ?? "";
      if (desired.has(name) || !isSyncManaged(this.catalog.profile, obj)) continue;
      writes.push(deleteObject(this.apiServices, undefined, name, { preconditions: { uid: m.uid } }, { dryRun: false }).catch((err: unknown) => this.ignore(err, "NotFound", name)));
    }
    await Promise.all(writes);
  }

  private ignore(err: unknown, expected: "AlreadyExists" | "NotFound", name: string): void {
    if (isStatusError(err, expected) || isStatusError(err, "Conflict")) return;
    this.log?.("warn", "CRD APIService not written", { name, error: String(err) });
  }
}
