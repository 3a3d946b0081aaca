/**
 * The resource quota controller (`resourcequota-controller`): keeps each
 * ResourceQuota's `status.hard` equal to `spec.hard` and recalculates `status.used`
 * from the informers' caches (repairing drift the admission plugin's charges can
 * leave, e.g. after a failed write). A change to a pod, service, claim, config map,
 * secret, replication controller or quota queues the quotas of its namespace; every
 * quota is also re-checked each `--resource-quota-sync-period` (from the cache, no
 * listing). Quotas with a `scopeSelector` are left to the admission plugin.
 */
import { isStatusError } from "../../../shared/api/status.ts";
import { splitKey, type Informer } from "../../../shared/client/informer.ts";
import type { ApiObject } from "../../../shared/client/object-client.ts";
import { queueMetrics, recordAction, type Controller, type ControllerContext } from "../context.ts";
import { WorkQueue } from "../../../shared/client/work-queue.ts";
import { namespaceUsage, usedFor } from "./usage.ts";

const NAME = "resourcequota-controller";
const core = (resource: string) => ({ group: "", version: "v1", resource });
const QUOTAS = core("resourcequotas");
const COUNTED = ["configmaps", "secrets", "replicationcontrollers", "resourcequotas"];

export function startResourceQuotaController(ctx: ControllerContext): Controller {
  const quotas = ctx.informers.informer(QUOTAS);
  const pods = ctx.informers.informer(core("pods"));
  const services = ctx.informers.informer(core("services"));
  const pvcs = ctx.informers.informer(core("persistentvolumeclaims"));
  const counted: Record<string, Informer> = Object.fromEntries(COUNTED.map((r) => [r, r === "resourcequotas" ? quotas : ctx.informers.informer(core(r))]));
  const queue = new WorkQueue<string>(sync, { workers: 5, metrics: queueMetrics(ctx, "resourcequota_primary"), log: (msg, f) => ctx.log("warn", msg, f) });
  let resync: NodeJS.Timeout | undefined;

  async function sync(key: string): Promise<void> {
    const quota = quotas.get(key);
    if (!quota) return;
    const { namespace } = splitKey(key);
    const spec = (quota.spec ?? {}) as { hard?: Record<string, string>; scopes?: string[]; scopeSelector?: unknown };
    if (spec.scopeSelector) return;
    const hard = spec.hard ?? {};
    const status = (quota.status ?? {}) as { hard?: Record<string, string>; used?: Record<string, string> };
    const totals = namespaceUsage(
      { pods: pods.list(namespace), services: services.list(namespace), pvcs: pvcs.list(namespace), counted: Object.fromEntries(COUNTED.map((r) => [r, counted[r].list(namespace)])) },
      spec.scopes ?? [],
      Date.now(),
    );
    const used = usedFor(hard, totals, status.used ?? {});
    const same = (a: Record<string, string> | undefined, b: Record<string, string>) => JSON.stringify(Object.entries(a ?? {}).sort()) === JSON.stringify(Object.entries(b).sort());
    if (same(status.hard, hard) && same(status.used, used)) return;
    recordAction(ctx, NAME, "update-status", QUOTAS, namespace, quota.metadata.name ?? "");
    try {
      await ctx.client.update(QUOTAS, { ...quota, status: { hard, used } }, { subresource: "status", namespace });
    } catch (err) {
      if (!isStatusError(err, "Conflict") && !isStatusError(err, "NotFound")) throw err;
    }
  }

  const enqueueNamespace = (obj: ApiObject) => {
    const ns = obj.metadata.namespace;
    if (!ns) return;
    for (const q of quotas.list(ns)) queue.add(`${ns}/${q.metadata.name ?? ""}`);
  };
  const handler = { add: enqueueNamespace, update: (_o: ApiObject, n: ApiObject) => enqueueNamespace(n), delete: enqueueNamespace };
  for (const inf of new Set([quotas, pods, services, pvcs, ...Object.values(counted)])) inf.addHandler(handler);
  return {
    run: () => {
      queue.start();
      const period = ctx.settings.resourceQuotaSyncPeriodMs ?? 300_000;
      resync = setInterval(() => {
        for (const q of quotas.list()) queue.add(`${q.metadata.namespace ?? ""}/${q.metadata.name ?? ""}`);
      }, period);
      resync.unref();
    },
    stop: () => {
      if (resync) clearInterval(resync);
      queue.stop();
    },
  };
}
