/**
 * The taint eviction controller (`taint-eviction-controller`): deletes the pods bound
 * to a node with NoExecute taints they do not tolerate, at once, or when their
 * `tolerationSeconds` run out (measured from the taint's `timeAdded`). Driven by the
 * node and pod informers; a pending eviction is a timer on the pod's key, re-decided
 * when it fires (a taint gone by then saves the pod).
 */
import { isStatusError } from "../../../shared/api/status.ts";
import { splitKey } from "../../../shared/client/informer.ts";
import type { ApiObject } from "../../../shared/client/object-client.ts";
import { queueMetrics, recordAction, type Controller, type ControllerContext } from "../context.ts";
import { WorkQueue } from "../../../shared/client/work-queue.ts";
import { evictionTime, type Taint, type Toleration } from "./tolerations.ts";

const NAME = "taint-eviction-controller";
const NODES = { group: "", version: "v1", resource: "nodes" };
const PODS = { group: "", version: "v1", resource: "pods" };

export function startTaintEvictionController(ctx: ControllerContext): Controller {
  const nodes = ctx.informers.informer(NODES);
  const pods = ctx.informers.informer(PODS);
  const queue = new WorkQueue<string>(sync, { workers: 5, metrics: queueMetrics(ctx, "noexec_taint_pod"), log: (msg, f) => ctx.log("warn", msg, f) });

  async function sync(key: string): Promise<void> {
    const pod = pods.get(key);
    if (!pod || pod.metadata.deletionTimestamp) return;
    const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
    const node = nodeName ? nodes.get(nodeName) : undefined;
    if (!node) return;
    const taints = ((node.spec as { taints?: Taint[] } | undefined)?.taints ?? []);
    const tolerations = ((pod.spec as { tolerations?: Toleration[] } | undefined)?.tolerations ?? []);
    const at = evictionTime(taints, tolerations, Date.now());
    if (at === undefined) return;
    const wait = at - Date.now();
    if (wait > 0) {
      queue.addAfter(key, Math.min(wait + 10, 2 ** 31 - 1));
      return;
    }
    const { namespace, name } = splitKey(key);
    recordAction(ctx, NAME, "delete", PODS, namespace, name);
    try {
      await ctx.client.delete(PODS, name, { namespace, preconditions: { uid: pod.metadata.uid } });
      ctx.log("info", "marking for deletion pod", { pod: key, node: nodeName });
    } catch (err) {
      if (!isStatusError(err, "NotFound") && !isStatusError(err, "Conflict")) throw err;
    }
  }

  const podKey = (p: ApiObject) => `${p.metadata.namespace ?? ""}/${p.metadata.name ?? ""}`;
  const onNode = (node: ApiObject) => {
    for (const p of pods.list()) if ((p.spec as { nodeName?: string } | undefined)?.nodeName === node.metadata.name) queue.add(podKey(p));
  };
  nodes.addHandler({ add: onNode, update: (_o, n) => onNode(n) });
  pods.addHandler({ add: (p) => queue.add(podKey(p)), update: (_o, p) => queue.add(podKey(p)) });
  return { run: () => queue.start(), stop: () => queue.stop() };
}
