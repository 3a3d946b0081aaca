/**
 * The service account controller: every active namespace has a ServiceAccount named
 * `default`. Driven by the namespace and service account informers: a namespace added
 * or updated, or a `default` account deleted, queues the namespace; the sync creates
 * the account when the cache lacks it (AlreadyExists counts as done). Terminating
 * namespaces are left alone. One worker, as the platform's.
 */
import { isStatusError } from "../../../shared/api/status.ts";
import type { ApiObject } from "../../../shared/client/object-client.ts";
import { queueMetrics, recordAction, type Controller, type ControllerContext } from "../context.ts";
import { WorkQueue } from "../../../shared/client/work-queue.ts";

const NAMESPACES = { group: "", version: "v1", resource: "namespaces" };
const SERVICE_ACCOUNTS = { group: "", version: "v1", resource: "serviceaccounts" };
export const DEFAULT_SERVICE_ACCOUNTS = ["default"];
const NAME = "serviceaccount-controller";

export function startServiceAccountController(ctx: ControllerContext): Controller {
  const namespaces = ctx.informers.informer(NAMESPACES);
  const accounts = ctx.informers.informer(SERVICE_ACCOUNTS);
  const queue = new WorkQueue<string>(sync, { workers: 1, metrics: queueMetrics(ctx, "serviceaccount"), log: (msg, f) => ctx.log("warn", msg, f) });

  async function sync(namespace: string): Promise<void> {
    const ns = namespaces.get(namespace);
    if (!ns || ns.metadata.deletionTimestamp || (ns.status as { phase?: string } | undefined)?.phase === "Terminating") return;
    for (const name of DEFAULT_SERVICE_ACCOUNTS) {
      if (accounts.get(`${namespace}/${name}`)) continue;
      recordAction(ctx, NAME, "create", SERVICE_ACCOUNTS, namespace, name);
      try {
        await ctx.client.create(SERVICE_ACCOUNTS, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace } }, { namespace });
      } catch (err) {
        // Already there (the cache lags) or the namespace is going away: nothing to do.
        if (isStatusError(err, "AlreadyExists") || isStatusError(err, "NotFound")) continue;
        if (isStatusError(err, "Forbidden") && /being terminated/.test(err.message)) continue;
        throw err;
      }
    }
  }

  const enqueueNamespace = (ns: ApiObject) => ns.metadata.name && queue.add(ns.metadata.name);
  namespaces.addHandler({ add: enqueueNamespace, update: (_o, n) => enqueueNamespace(n) });
  accounts.addHandler({
    delete: (sa) => {
      if (sa.metadata.namespace && DEFAULT_SERVICE_ACCOUNTS.includes(sa.metadata.name ?? "")) queue.add(sa.metadata.namespace);
    },
  });
  return { run: () => queue.start(), stop: () => queue.stop() };
}
