/**
 * The ClusterRole aggregation controller (`clusterrole-aggregation-controller`): every
 * ClusterRole with an `aggregationRule` carries as `rules` the union of the rules of
 * the ClusterRoles its `clusterRoleSelectors` match (rules.ts). Any ClusterRole change
 * (a new contributor, a label change, a rule change, a deletion) queues every
 * aggregated ClusterRole, as the platform's does; a sync writes only when the computed
 * rules differ from the cached ones, with an update carrying the cached
 * resourceVersion (a Conflict retries with backoff). Five workers, as the platform's.
 */
import { isStatusError } from "../../../shared/api/status.ts";
import { queueMetrics, recordAction, resourceOf, type Controller, type ControllerContext } from "../context.ts";
import { WorkQueue } from "../../../shared/client/work-queue.ts";
import { aggregatedRules, hasAggregationRule, ruleListsEqual, rulesOf } from "./rules.ts";

const NAME = "clusterrole-aggregation-controller";
const WORKERS = 5;

export function startClusterRoleAggregationController(ctx: ControllerContext): Controller {
  const clusterRoles = resourceOf(ctx.profile, "rbac", "v1", "clusterroles");
  const informer = ctx.informers.informer(clusterRoles);
  const queue = new WorkQueue<string>(sync, { workers: WORKERS, metrics: queueMetrics(ctx, "ClusterRoleAggregator"), log: (msg, f) => ctx.log("warn", msg, f) });

  async function sync(name: string): Promise<void> {
    const role = informer.get(name);
    if (!role || !hasAggregationRule(role)) return;
    const want = aggregatedRules(role, informer.list());
    if (ruleListsEqual(want, rulesOf(role))) return;
    recordAction(ctx, NAME, "update", clusterRoles, undefined, name);
    try {
      await ctx.client.update(clusterRoles, { ...role, rules: want }, { fieldManager: NAME });
    } catch (err) {
      // Deleted meanwhile: nothing to aggregate.
      if (isStatusError(err, "NotFound")) return;
      throw err;
    }
  }

  const enqueueAggregated = () => {
    for (const role of informer.list()) if (hasAggregationRule(role) && role.metadata.name) queue.add(role.metadata.name);
  };
  informer.addHandler({ add: enqueueAggregated, update: enqueueAggregated, delete: enqueueAggregated });
  return { run: () => queue.start(), stop: () => queue.stop() };
}
