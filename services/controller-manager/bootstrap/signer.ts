/**
 * The bootstrap signer (`bootstrap-signer-controller`, off by default as in the
 * platform): keeps the `cluster-info` ConfigMap of the public namespace signed, one
 * `jws-kubeconfig-<token-id>` detached JWS per valid signing bootstrap token of the
 * system namespace, and drops the signatures of tokens that are gone or expired. The
 * ConfigMap and the token Secrets are watched; a token's expiry schedules a re-sign.
 */
import { isStatusError } from "../../../shared/api/status.ts";
import type { ApiObject } from "../../../shared/client/object-client.ts";
import { queueMetrics, recordAction, type Controller, type ControllerContext } from "../context.ts";
import { WorkQueue } from "../../../shared/client/work-queue.ts";
import { CLUSTER_INFO, isExpired, parseTokenSecret, signedClusterInfoData, type BootstrapToken } from "./tokens.ts";

const NAME = "bootstrap-signer-controller";
const CONFIGMAPS = { group: "", version: "v1", resource: "configmaps" };
const SECRETS = { group: "", version: "v1", resource: "secrets" };

export function startBootstrapSigner(ctx: ControllerContext): Controller {
  const publicNs = ctx.profile.publicNamespace;
  const tokenType = ctx.profile.secretTypes.bootstrapToken;
  const configMaps = ctx.informers.informer(CONFIGMAPS, { namespace: publicNs, fieldSelector: `metadata.name=${CLUSTER_INFO}` });
  const secrets = ctx.informers.informer(SECRETS, { namespace: ctx.profile.systemNamespace, fieldSelector: `type=${tokenType}` });
  const queue = new WorkQueue<string>(sync, { workers: 1, metrics: queueMetrics(ctx, "bootstrap_signer_queue"), log: (msg, f) => ctx.log("warn", msg, f) });

  function tokens(): BootstrapToken[] {
    return secrets
      .list()
      .map((s) => parseTokenSecret(s, tokenType))
      .filter((t): t is BootstrapToken => !!t);
  }

  async function sync(): Promise<void> {
    const cm = configMaps.get(`${publicNs}/${CLUSTER_INFO}`);
    if (!cm) return;
    const now = Date.now();
    const all = tokens();
    // Re-sign when the next valid token expires.
    const next = Math.min(...all.filter((t) => t.signing && !isExpired(t, now) && t.expiresAtMs !== undefined).map((t) => t.expiresAtMs as number));
    if (Number.isFinite(next)) queue.addAfter(CLUSTER_INFO, Math.min(next - now + 10, 2 ** 31 - 1));
    const data = (cm.data ?? {}) as Record<string, string>;
    const want = signedClusterInfoData(data, all, now);
    if (JSON.stringify(Object.entries(want).sort()) === JSON.stringify(Object.entries(data).sort())) return;
    recordAction(ctx, NAME, "update", CONFIGMAPS, publicNs, CLUSTER_INFO);
    try {
      await ctx.client.update(CONFIGMAPS, { ...cm, data: want }, { namespace: publicNs });
    } catch (err) {
      if (isStatusError(err, "Conflict") || isStatusError(err, "NotFound")) return;
      throw err;
    }
  }

  const enqueue = () => queue.add(CLUSTER_INFO);
  const handler = { add: enqueue, update: (_o: ApiObject, _n: ApiObject) => enqueue(), delete: enqueue };
  configMaps.addHandler(handler);
  secrets.addHandler(handler);
  return { run: () => queue.start(), stop: () => queue.stop() };
}
