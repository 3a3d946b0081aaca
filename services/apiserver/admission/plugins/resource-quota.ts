/**
 * ResourceQuota (validating, runs last): a create, or an update that grows usage
 * (claims, services), in a namespace with quotas is charged against every quota
 * whose scopes select the object and whose `spec.hard` names a resource it uses:
 * - the charge is a read-modify-write of the quota's `status.used` with its
 *   resourceVersion (optimistic concurrency, retried on conflict), so concurrent
 *   writes through any replica never admit more than `hard` allows; the check runs
 *   inside the retry against the stored usage;
 * - over the limit: 403 `exceeded quota: <name>, requested: r=q, used: r=q, limited: r=q`
 *   (only the exceeded resources, sorted); pods lacking a tracked compute resource:
 *   403 `failed quota: <name>: must specify cpu for: app; ...`;
 * - dry runs are checked but charge nothing.
 * Quotas are found through an informer; a namespace where it has none is looked up
 * live, and an empty answer is trusted for 30 s (as the platform does).
 * The quota controller's part is done here as well: `status.hard` follows
 * `spec.hard` and `status.used` is computed from the stored objects when a quota is
 * written or first used, and recomputed shortly after a counted object is deleted.
 */
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import type { JsonObject } from "../../storage/object.ts";
import type { AdmissionPlugin, Attributes, PluginContext, PluginFactory } from "../interfaces.ts";
import { add, cmp, format, quantity, ZERO, type Quantity } from "./quantity.ts";
import { missingContainerResources, parseCountName, quotaSelects, usageOf, type Usage } from "./quota-usage.ts";
import { admissionForbidden, obj, str } from "./util.ts";

export const RESOURCE_QUOTA_PLUGIN = "ResourceQuota";
/** Delay before usage is recomputed after a delete of a counted object. */
const RECOMPUTE_DELAY_MS = 300;

function parseList(v: unknown): Usage {
  const out: Usage = new Map();
  for (const [k, raw] of Object.entries(obj(v) ?? {})) {
    const parsed = quantity(raw);
    if (parsed) out.set(k, parsed);
  }
  return out;
}

function render(u: Usage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of [...u.keys()].sort()) out[k] = format(u.get(k)!);
  return out;
}

function pretty(u: Usage, keys: string[]): string {
  return keys.map((k) => `${k}=${format(u.get(k) ?? ZERO)}`).join(",");
}

/** Whether the stored status no longer describes `spec.hard` (new or edited quota). */
export function needsSync(quota: JsonObject): boolean {
  const hard = obj(obj(quota.spec)?.hard) ?? {};
  const status = obj(quota.status) ?? {};
  const statusHard = obj(status.hard) ?? {};
  const used = obj(status.used) ?? {};
  const keys = Object.keys(hard);
  if (keys.length !== Object.keys(statusHard).length) return true;
  return keys.some((k) => statusHard[k] !== hard[k] || !(k in used));
}

/**
 * The charge of `delta` against a quota's current state: the new `used`, or the
 * exceeded resources. `delta` holds only resources the quota limits.
 */
export function charge(hard: Usage, used: Usage, delta: Usage): { used: Usage } | { exceeded: string[] } {
  const next: Usage = new Map(used);
  const exceeded: string[] = [];
  for (const [k, d] of delta) {
    const n = add(used.get(k) ?? ZERO, d);
    next.set(k, n);
    const h = hard.get(k);
    if (h && cmp(n, h) > 0) exceeded.push(k);
  }
  return exceeded.length > 0 ? { exceeded: exceeded.sort() } : { used: next };
}

export function exceededMessage(name: string, delta: Usage, used: Usage, hard: Usage, exceeded: string[]): string {
  return `exceeded quota: ${name}, requested: ${pretty(delta, exceeded)}, used: ${pretty(used, exceeded)}, limited: ${pretty(hard, exceeded)}`;
}

/** Resources a quota's hard names that need objects listed to recompute, by group/resource. */
function sourcesOf(hardKeys: string[]): Array<{ group: string; resource: string }> {
  const seen = new Map<string, { group: string; resource: string }>();
  const addSrc = (group: string, resource: string) => seen.set(`${group}/${resource}`, { group, resource });
  for (const k of hardKeys) {
    const c = parseCountName(k);
    if (c) addSrc(c.group, c.resource);
    else if (k === "pods" || k === "cpu" || k === "memory" || k === "ephemeral-storage" || k.startsWith("requests.") || k.startsWith("limits.")) addSrc("", "pods");
    if (k === "requests.storage" || k === "persistentvolumeclaims" || k.includes(".storageclass.")) addSrc("", "persistentvolumeclaims");
    if (k.startsWith("services")) addSrc("", "services");
    if (["configmaps", "secrets", "replicationcontrollers", "resourcequotas"].includes(k)) addSrc("", k);
  }
  return [...seen.values()];
}

/** How long a live lookup that found no quotas in a namespace is trusted (the platform's 30 s). */
const LIVE_LOOKUP_TTL_MS = 30_000;

class ResourceQuotaPlugin implements AdmissionPlugin {
  readonly name = RESOURCE_QUOTA_PLUGIN;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Namespaces with a recompute scheduled. */
  private readonly pendingRecompute = new Set<string>();
  private readonly profile: PlatformProfile;
  /** Quotas by namespace from the watch cache (an informer), once synced. */
  private byNamespace = new Map<string, JsonObject[]>();
  private synced = false;
  private readonly watch: { stop(): void };
  /** Namespaces whose live lookup found no quota, until the given time. */
  private readonly emptyUntil = new Map<string, number>();

  constructor(private readonly ctx: PluginContext) {
    this.profile = ctx.profile;
    const w = ctx.objects.watchList("", "resourcequotas", (items) => {
      const next = new Map<string, JsonObject[]>();
      for (const q of items) {
        const ns = str(obj(q.metadata)?.namespace);
        next.set(ns, [...(next.get(ns) ?? []), q]);
      }
      this.byNamespace = next;
    });
    void w.synced.then(() => {
      this.synced = true;
    });
    this.watch = w;
  }

  /**
   * The namespace's quotas: from the informer when it has some; otherwise a live
   * list, whose empty answer is trusted for 30 s (the platform's live-lookup cache),
   * so that a quota the informer has not seen yet is still found.
   */
  private async quotasIn(namespace: string): Promise<JsonObject[]> {
    const cached = this.synced ? this.byNamespace.get(namespace) : undefined;
    if (cached && cached.length > 0) return cached;
    const until = this.emptyUntil.get(namespace);
    if (this.synced && until !== undefined && until > Date.now()) return [];
    const live = await this.ctx.objects.list("", "resourcequotas", namespace);
    if (live.length === 0) {
      if (this.emptyUntil.size > 4096) this.emptyUntil.clear();
      this.emptyUntil.set(namespace, Date.now() + LIVE_LOOKUP_TTL_MS);
    } else this.emptyUntil.delete(namespace);
    return live;
  }

  handles(op: string): boolean {
    return op === "CREATE" || op === "UPDATE" || op === "DELETE";
  }

  /** Usage of the stored objects of a namespace for the given hard resources. */
  private async computeUsage(namespace: string, quota: JsonObject): Promise<Usage> {
    const hardKeys = Object.keys(obj(obj(quota.spec)?.hard) ?? {});
    const total: Usage = new Map(hardKeys.map((k) => [k, ZERO]));
    for (const src of sourcesOf(hardKeys)) {
      let items: JsonObject[];
      try {
        items = await this.ctx.objects.list(src.group, src.resource, namespace);
      } catch {
        continue;
      }
      for (const o of items) {
        if (!quotaSelects(quota, src.group, src.resource, o)) continue;
        for (const [k, v] of usageOf(src.group, src.resource, o, this.profile)) if (total.has(k)) total.set(k, add(total.get(k)!, v));
      }
    }
    return total;
  }

  /** Phase 1 for quotas themselves: their status follows spec.hard with computed usage. */
  admit(a: Attributes): Promise<void> | undefined {
    if (a.resource.group !== "" || a.resource.resource !== "resourcequotas" || a.subresource || !a.object) return undefined;
    if (a.operation !== "CREATE" && a.operation !== "UPDATE") return undefined;
    return this.admitQuota(a, a.object);
  }

  private async admitQuota(a: Attributes, object: JsonObject): Promise<void> {
    // A quota written through this replica is looked up live until the informer has it.
    this.emptyUntil.delete(a.namespace);
    if (!needsSync({ spec: object.spec, status: a.oldObject?.status })) {
      object.status = a.oldObject?.status;
      return;
    }
    const used = await this.computeUsage(a.namespace, object);
    if (a.operation === "CREATE" && used.has("resourcequotas")) used.set("resourcequotas", add(used.get("resourcequotas")!, { nano: 1_000_000_000n, format: "DecimalSI" }));
    object.status = { hard: { ...(obj(obj(object.spec)?.hard) ?? {}) }, used: render(used) };
  }

  /** Whether the namespace is known to have no quota (what quotasIn would answer without a lookup). */
  private knownEmpty(namespace: string): boolean {
    if (!this.synced || (this.byNamespace.get(namespace)?.length ?? 0) > 0) return false;
    const until = this.emptyUntil.get(namespace);
    return until !== undefined && until > Date.now();
  }

  validate(a: Attributes): Promise<void> | undefined {
    if (a.subresource || !a.namespaced || !a.namespace) return undefined;
    const { group, resource } = a.resource;
    if (a.operation === "DELETE") {
      if (!a.dryRun) this.scheduleRecompute(a.namespace);
      return undefined;
    }
    if (!a.object) return undefined;
    if (a.operation === "UPDATE" && !(group === "" && (resource === "persistentvolumeclaims" || resource === "services"))) return undefined;
    // Synchronous where no quota can be charged: no usage computed, no turn of the event loop.
    if (this.knownEmpty(a.namespace)) return undefined;
    return this.chargeQuotas(a, a.object);
  }

  private async chargeQuotas(a: Attributes, object: JsonObject): Promise<void> {
    const { group, resource } = a.resource;
    let delta = usageOf(group, resource, object, this.profile);
    if (a.operation === "UPDATE") {
      const prev = a.oldObject ? usageOf(group, resource, a.oldObject, this.profile) : new Map<string, Quantity>();
      const grown: Usage = new Map();
      for (const [k, v] of delta) {
        const d = { nano: v.nano - (prev.get(k)?.nano ?? 0n), format: v.format };
        if (d.nano > 0n) grown.set(k, d);
      }
      delta = grown;
    }
    if (delta.size === 0) return;
    const quotas = await this.quotasIn(a.namespace);
    for (const quota of [...quotas].sort((x, y) => str(obj(x.metadata)?.name).localeCompare(str(obj(y.metadata)?.name)))) {
      const hard = parseList(obj(quota.spec)?.hard);
      const relevant: Usage = new Map([...delta].filter(([k]) => hard.has(k)));
      if (relevant.size === 0 || !quotaSelects(quota, group, resource, object)) continue;
      const name = str(obj(quota.metadata)?.name);
      if (group === "" && resource === "pods") {
        const missing = missingContainerResources(object, hard.keys());
        if (missing) throw admissionForbidden(a, `failed quota: ${name}: ${missing}`);
      }
      await this.chargeQuota(a, name, relevant);
    }
  }

  /** The optimistic read-modify-write of one quota's status.used. */
  private async chargeQuota(a: Attributes, name: string, delta: Usage): Promise<void> {
    const ref = { group: "", resource: "resourcequotas", namespace: a.namespace, name };
    const fresh = await this.ctx.objects.get(ref);
    if (!fresh) return;
    const computed = needsSync(fresh) ? await this.computeUsage(a.namespace, fresh) : undefined;
    await this.ctx.objects.update(
      ref,
      (current) => {
        const hard = parseList(obj(current.spec)?.hard);
        const used = needsSync(current) ? (computed ?? parseList(obj(current.status)?.used)) : parseList(obj(current.status)?.used);
        const relevant: Usage = new Map([...delta].filter(([k]) => hard.has(k)));
        const result = charge(hard, used, relevant);
        if ("exceeded" in result) throw admissionForbidden(a, exceededMessage(name, relevant, used, hard, result.exceeded));
        if (a.dryRun) return undefined;
        for (const k of hard.keys()) if (!result.used.has(k)) result.used.set(k, ZERO);
        current.status = { hard: { ...(obj(current.spec)?.hard as JsonObject) }, used: render(result.used) };
        return current;
      },
      { subresource: "status" },
    );
  }

  /**
   * After a delete, the namespace's quotas are recomputed from the stored objects: once
   * for all the deletes of a namespace within the delay, and not at all in a namespace
   * where the synced informer holds no quota (the platform's quota controller also
   * replenishes only the quotas its informer has).
   */
  private scheduleRecompute(namespace: string): void {
    if (this.pendingRecompute.has(namespace)) return;
    if (this.synced && !this.byNamespace.get(namespace)?.length) return;
    this.pendingRecompute.add(namespace);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.pendingRecompute.delete(namespace);
      void this.recompute(namespace).catch((err: unknown) => this.ctx.log("warn", "resource quota recompute failed", { namespace, err: String(err) }));
    }, RECOMPUTE_DELAY_MS);
    timer.unref();
    this.timers.add(timer);
  }

  private async recompute(namespace: string): Promise<void> {
    const quotas = await this.ctx.objects.list("", "resourcequotas", namespace);
    for (const quota of quotas) {
      const name = str(obj(quota.metadata)?.name);
      const used = await this.computeUsage(namespace, quota);
      await this.ctx.objects.update(
        { group: "", resource: "resourcequotas", namespace, name },
        (current) => {
          const rendered = render(used);
          if (JSON.stringify(obj(current.status)?.used) === JSON.stringify(rendered) && !needsSync(current)) return undefined;
          current.status = { hard: { ...(obj(obj(current.spec)?.hard) ?? {}) }, used: rendered };
          return current;
        },
        { subresource: "status" },
      );
    }
  }

  close(): void {
    this.watch.stop();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.pendingRecompute.clear();
  }
}

export const resourceQuotaPlugin: PluginFactory = (ctx) => new ResourceQuotaPlugin(ctx);

