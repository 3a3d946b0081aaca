/**
 * The disruption controller (`disruption-controller`): keeps each PodDisruptionBudget's
 * status (currentHealthy, desiredHealthy, disruptionsAllowed, expectedPods,
 * observedGeneration and the DisruptionAllowed condition) in step with the pods its
 * selector picks in its namespace (policy/v1: an empty selector picks every pod, an
 * unset one none). Healthy = Ready and not being deleted. Where the budget needs the
 * controllers' scale, each distinct controller of the picked pods is read
 * (ReplicaSet — or the Deployment owning it —, StatefulSet, ReplicationController);
 * a pod without a supported controller makes the sync fail with SyncFailed.
 * Pod and budget events queue the budgets of the namespace.
 */
import { isStatusError } from "../../../shared/api/status.ts";
import { labelSelectorFromObject } from "../../../shared/api/label-selector.ts";
import { splitKey } from "../../../shared/client/informer.ts";
import type { ApiObject, OwnerReference, ResourceRef } from "../../../shared/client/object-client.ts";
import { queueMetrics, recordAction, type Controller, type ControllerContext } from "../context.ts";
import { WorkQueue } from "../../../shared/client/work-queue.ts";
import { budgetNumbers, countHealthy, disruptedPodsInForce, needsControllerScale, type BudgetSpec, type PickedPod } from "./budget.ts";

const NAME = "disruption-controller";
const PODS = { group: "", version: "v1", resource: "pods" };

function pickedPod(pod: ApiObject): PickedPod {
  const conditions = ((pod.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? []);
  return {
    name: pod.metadata.name ?? "",
    terminating: !!pod.metadata.deletionTimestamp,
    ready: conditions.some((c) => c.type === "Ready" && c.status === "True"),
  };
}

export function startDisruptionController(ctx: ControllerContext): Controller {
  const pdbs: ResourceRef = { group: ctx.profile.group("policy"), version: "v1", resource: "poddisruptionbudgets" };
  const apps = ctx.profile.group("apps");
  const budgets = ctx.informers.informer(pdbs);
  const pods = ctx.informers.informer(PODS);
  const queue = new WorkQueue<string>(sync, { workers: 5, metrics: queueMetrics(ctx, "disruption"), log: (msg, f) => ctx.log("warn", msg, f) });

  async function scaleOf(namespace: string, owner: OwnerReference): Promise<number> {
    const replicas = (o: ApiObject) => ((o.spec as { replicas?: number } | undefined)?.replicas ?? 1);
    if (owner.kind === "ReplicaSet" && owner.apiVersion === `${apps}/v1`) {
      const rs = await ctx.client.get({ group: apps, version: "v1", resource: "replicasets" }, owner.name, { namespace });
      const dep = (rs.metadata.ownerReferences ?? []).find((o) => o.controller && o.kind === "Deployment");
      if (dep) return replicas(await ctx.client.get({ group: apps, version: "v1", resource: "deployments" }, dep.name, { namespace }));
      return replicas(rs);
    }
    if (owner.kind === "StatefulSet" && owner.apiVersion === `${apps}/v1`) return replicas(await ctx.client.get({ group: apps, version: "v1", resource: "statefulsets" }, owner.name, { namespace }));
    if (owner.kind === "ReplicationController" && owner.apiVersion === "v1") return replicas(await ctx.client.get({ group: "", version: "v1", resource: "replicationcontrollers" }, owner.name, { namespace }));
    throw new Error(`found no controllers for pod with controller ${owner.kind} ${owner.name}`);
  }

  async function sync(key: string): Promise<void> {
    const pdb = budgets.get(key);
    if (!pdb) return;
    const { namespace, name } = splitKey(key);
    const spec = (pdb.spec ?? {}) as BudgetSpec & { selector?: Parameters<typeof labelSelectorFromObject>[0] };
    // policy/v1: an unset selector picks no pod, an empty one every pod of the namespace.
    let selector;
    try {
      selector = labelSelectorFromObject(spec.selector);
    } catch (err) {
      ctx.log("warn", "invalid PodDisruptionBudget selector", { pdb: key, error: String(err) });
      return;
    }
    const picked = pods.list(namespace).filter((p) => selector.matches(p.metadata.labels));
    const nowMs = Date.now();
    const now = new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, "Z");
    const previous = (pdb.status ?? {}) as Record<string, unknown> & { conditions?: Array<Record<string, unknown>>; disruptedPods?: Record<string, string> };
    // Pods an eviction has spent the budget on count as disrupted until they are seen terminating (or the entry expires).
    const views = picked.map(pickedPod);
    const inForce = disruptedPodsInForce(views, previous.disruptedPods, nowMs);
    for (const pod of inForce.notDeleted) ctx.log("warn", "pod was expected by its PodDisruptionBudget to be deleted but it was not", { pdb: key, pod });
    if (inForce.recheckAtMs !== undefined) queue.addAfter(key, inForce.recheckAtMs - nowMs);
    const healthy = countHealthy(views, inForce.disruptedPods);
    const disruptedPods = Object.keys(inForce.disruptedPods).length > 0 ? inForce.disruptedPods : undefined;
    let status: Record<string, unknown>;
    try {
      let scale = 0;
      if (needsControllerScale(spec)) {
        const owners = new Map<string, OwnerReference>();
        for (const p of picked) {
          const owner = (p.metadata.ownerReferences ?? []).find((o) => o.controller);
          if (!owner) throw new Error(`found no controllers for pod "${p.metadata.name ?? ""}"`);
          owners.set(owner.uid, owner);
        }
        for (const owner of owners.values()) scale += await scaleOf(namespace, owner);
      }
      const n = budgetNumbers(spec, picked.length, scale, healthy);
      const allowed = n.disruptionsAllowed > 0;
      status = { ...n, observedGeneration: pdb.metadata.generation, disruptedPods, conditions: [condition(previous, allowed ? "True" : "False", allowed ? "SufficientPods" : "InsufficientPods", "", now)] };
    } catch (err) {
      if (isStatusError(err)) throw err;
      status = { ...previous, disruptionsAllowed: 0, observedGeneration: pdb.metadata.generation, conditions: [condition(previous, "False", "SyncFailed", err instanceof Error ? err.message : String(err), now)] };
    }
    if (status.disruptedPods === undefined) delete status.disruptedPods;
    if (JSON.stringify(stripTimes(status)) === JSON.stringify(stripTimes(previous))) return;
    recordAction(ctx, NAME, "update-status", pdbs, namespace, name);
    try {
      await ctx.client.update(pdbs, { ...pdb, status }, { subresource: "status", namespace });
    } catch (err) {
      if (!isStatusError(err, "Conflict") && !isStatusError(err, "NotFound")) throw err;
    }
  }

  const enqueueNamespace = (obj: ApiObject) => {
    const ns = obj.metadata.namespace;
    if (ns) for (const b of budgets.list(ns)) queue.add(`${ns}/${b.metadata.name ?? ""}`);
  };
  const handler = { add: enqueueNamespace, update: (_o: ApiObject, n: ApiObject) => enqueueNamespace(n), delete: enqueueNamespace };
  budgets.addHandler(handler);
  pods.addHandler(handler);
  return { run: () => queue.start(), stop: () => queue.stop() };
}

/** The DisruptionAllowed condition, keeping its transition time while the status does not change. */
function condition(previous: { conditions?: Array<Record<string, unknown>> }, status: string, reason: string, message: string, now: string): Record<string, unknown> {
  const old = (previous.conditions ?? []).find((c) => c.type === "DisruptionAllowed");
  const since = old && old.status === status ? old.lastTransitionTime : now;
  return { type: "DisruptionAllowed", status, reason, message, lastTransitionTime: since };
}

function stripTimes(status: Record<string, unknown>): unknown {
  const conditions = (status.conditions as Array<Record<string, unknown>> | undefined)?.map((c) => ({ ...c, lastTransitionTime: undefined, observedGeneration: undefined }));
  return { ...Object.fromEntries(Object.entries(status).sort(([a], [b]) => a.localeCompare(b))), conditions };
}
