/**
 * The ClusterRole aggregation controller: a ClusterRole with an
 * `aggregationRule` gets as `rules` the union of the rules of every other
 * ClusterRole whose labels match one of its `clusterRoleSelectors` (in name
 * order, duplicates dropped). It reacts to every ClusterRole change (new
 * contributors, label changes, rule changes, deletions) and writes only when the
 * computed rules differ. Writes carry no user, so escalation checks do not apply.
 */
import { labelSelectorFromObject, type ParsedLabelSelector } from "../../../shared/api/selectors.ts";
import { isStatusError } from "../../../shared/api/status.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { Catalog } from "../registry/catalog.ts";
import type { Registry } from "../registry/registry.ts";
import type { JsonObject } from "../storage/object.ts";
import { Informer } from "./informer.ts";
import { ruleListsEqual, rulesEqual } from "./rbac/escalation.ts";
import { rulesOf, type AggregationRule, type PolicyRule } from "./rbac/types.ts";

type Meta = { name?: string; labels?: Record<string, string> };
const nameOf = (o: JsonObject) => ((o.metadata ?? {}) as Meta).name ?? "";

function selectorsOf(role: JsonObject): ParsedLabelSelector[] {
  const agg = role.aggregationRule as AggregationRule | null | undefined;
  const out: ParsedLabelSelector[] = [];
  for (const s of agg?.clusterRoleSelectors ?? []) {
    try {
      out.push(labelSelectorFromObject(s));
    } catch {
      // An invalid selector selects nothing.
    }
  }
  return out;
}

/** The rules an aggregated role should have, given all ClusterRoles. Pure. */
export function aggregatedRules(role: JsonObject, all: Iterable<JsonObject>): PolicyRule[] {
  const selectors = selectorsOf(role);
  const self = nameOf(role);
  const matched = [...all]
    .filter((o) => nameOf(o) !== self && selectors.some((s) => s.matches(((o.metadata ?? {}) as Meta).labels)))
    .sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0));
  const rules: PolicyRule[] = [];
  for (const o of matched) {
    for (const r of rulesOf(o)) if (!rules.some((x) => rulesEqual(x, r))) rules.push(r);
  }
  return rules;
}

function isAggregated(o: JsonObject): boolean {
  return o.aggregationRule !== undefined && o.aggregationRule !== null;
}

export class AggregationController {
  private readonly informer: Informer;
  private readonly registry: Registry;
  private running = false;
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;
  private idleWaiters: Array<() => void> = [];

  constructor(
    catalog: Catalog,
    profile: PlatformProfile,
    private readonly log?: (msg: string, fields: Record<string, unknown>) => void,
  ) {
    const served = catalog.lookup(profile.group("rbac"), "v1", "clusterroles");
    if (!served) throw new Error("clusterroles are not served");
    this.registry = served.registry;
    this.informer = new Informer(served.registry, log);
    this.informer.onChange(() => this.schedule());
  }

  async start(): Promise<void> {
    await this.informer.start();
    this.schedule();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.informer.stop();
  }

  /** Resolves when no sync is pending or running (tests). */
  idle(): Promise<void> {
    if (!this.running && !this.timer && !this.dirty) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private schedule(): void {
    if (this.running) {
      this.dirty = true;
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.run();
    }, 5);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    this.running = true;
    this.dirty = false;
    try {
      await this.sync();
    } catch (err) {
      this.log?.("clusterrole aggregation failed", { error: String(err) });
      this.dirty = true;
    } finally {
      this.running = false;
    }
    if (this.dirty) this.schedule();
    else {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private async sync(): Promise<void> {
    const all = [...this.informer.items.values()];
    for (const role of all) {
      if (!isAggregated(role)) continue;
      const want = aggregatedRules(role, all);
      if (ruleListsEqual(want, rulesOf(role))) continue;
      const name = nameOf(role);
      try {
        await this.registry.update(
          undefined,
          name,
          (current) => {
            if (!current) throw new Error("gone");
            const next = structuredClone(current);
            next.rules = aggregatedRules(next, this.informer.items.values());
            return next;
          },
          { dryRun: false },
        );
      } catch (err) {
        // A concurrent change triggers another sync; a deleted role needs nothing.
        if (isStatusError(err, "Conflict") || isStatusError(err, "NotFound")) {
          this.dirty = true;
          continue;
        }
        throw err;
      }
    }
  }
}
