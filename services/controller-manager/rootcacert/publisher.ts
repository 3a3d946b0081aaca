/**
 * The root CA publisher (`root-ca-certificate-publisher-controller`): every active
 * namespace holds a ConfigMap named by the profile (`kube-root-ca.crt` in the
 * `kubernetes` profile) whose only data is `ca.crt`, the root CA bundle
 * (`--root-ca-file`, else the CA of the client configuration). A namespace added or
 * changed, or that ConfigMap changed or deleted, queues the namespace; the sync
 * creates the ConfigMap or puts its data back. Terminating namespaces are skipped.
 */
import { isStatusError } from "../../../shared/api/status.ts";
import type { ApiObject } from "../../../shared/client/object-client.ts";
import { queueMetrics, recordAction, type Controller, type ControllerContext } from "../context.ts";
import { WorkQueue } from "../../../shared/client/work-queue.ts";

const NAME = "root-ca-certificate-publisher-controller";
const NAMESPACES = { group: "", version: "v1", resource: "namespaces" };
const CONFIGMAPS = { group: "", version: "v1", resource: "configmaps" };

export function startRootCaPublisher(ctx: ControllerContext): Controller {
  const rootCa = ctx.settings.rootCaPem;
  if (!rootCa) {
    ctx.log("info", "skipping the root CA publisher: no root CA", { controller: NAME });
    return { run: () => {}, stop: () => {} };
  }
  const cmName = ctx.profile.admission.rootCAConfigMap;
  const namespaces = ctx.informers.informer(NAMESPACES);
  const configMaps = ctx.informers.informer(CONFIGMAPS, { fieldSelector: `metadata.name=${cmName}` });
  const queue = new WorkQueue<string>(sync, { workers: 1, metrics: queueMetrics(ctx, "root_ca_cert_publisher"), log: (msg, f) => ctx.log("warn", msg, f) });

  async function sync(namespace: string): Promise<void> {
    const ns = namespaces.get(namespace);
    if (!ns || ns.metadata.deletionTimestamp || (ns.status as { phase?: string } | undefined)?.phase === "Terminating") return;
    const cm = configMaps.get(`${namespace}/${cmName}`);
    const want = { "ca.crt": rootCa as string };
    try {
      if (!cm) {
        recordAction(ctx, NAME, "create", CONFIGMAPS, namespace, cmName);
        await ctx.client.create(CONFIGMAPS, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: cmName, namespace }, data: want }, { namespace });
        return;
      }
      const data = (cm.data ?? {}) as Record<string, string>;
      if (Object.keys(data).length === 1 && data["ca.crt"] === rootCa) return;
      recordAction(ctx, NAME, "update", CONFIGMAPS, namespace, cmName);
      await ctx.client.update(CONFIGMAPS, { ...cm, data: want }, { namespace });
    } catch (err) {
      if (isStatusError(err, "AlreadyExists") || isStatusError(err, "Conflict") || isStatusError(err, "NotFound")) return;
      if (isStatusError(err, "Forbidden") && /being terminated/.test(err.message)) return;
      throw err;
    }
  }

  const enqueueNs = (ns: ApiObject) => ns.metadata.name && queue.add(ns.metadata.name);
  const enqueueCm = (cm: ApiObject) => cm.metadata.namespace && queue.add(cm.metadata.namespace);
  namespaces.addHandler({ add: enqueueNs, update: (_o, n) => enqueueNs(n) });
  configMaps.addHandler({ update: (_o, n) => enqueueCm(n), delete: enqueueCm });
  return { run: () => queue.start(), stop: () => queue.stop() };
}
