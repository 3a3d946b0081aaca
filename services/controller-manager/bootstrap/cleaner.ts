/**
 * The token cleaner (`token-cleaner-controller`, off by default as in the platform):
 * deletes bootstrap token Secrets of the system namespace once their `expiration` has
 * passed (with the Secret's uid as precondition). A Secret that expires later is
 * checked again at that moment; no periodic listing.
 */
import { isStatusError } from "../../../shared/api/status.ts";
import { splitKey } from "../../../shared/client/informer.ts";
import type { ApiObject } from "../../../shared/client/object-client.ts";
import { queueMetrics, recordAction, type Controller, type ControllerContext } from "../context.ts";
import { WorkQueue } from "../../../shared/client/work-queue.ts";
import { isExpired, parseTokenSecret } from "./tokens.ts";

const NAME = "token-cleaner-controller";
const SECRETS = { group: "", version: "v1", resource: "secrets" };

export function startTokenCleaner(ctx: ControllerContext): Controller {
  const tokenType = ctx.profile.secretTypes.bootstrapToken;
  const secrets = ctx.informers.informer(SECRETS, { namespace: ctx.profile.systemNamespace, fieldSelector: `type=${tokenType}` });
  const queue = new WorkQueue<string>(sync, { workers: 1, metrics: queueMetrics(ctx, "token_cleaner"), log: (msg, f) => ctx.log("warn", msg, f) });

  async function sync(key: string): Promise<void> {
    const secret = secrets.get(key);
    if (!secret) return;
    const token = parseTokenSecret(secret, tokenType);
    if (!token || token.expiresAtMs === undefined) return;
    const now = Date.now();
    if (!isExpired(token, now)) {
      queue.addAfter(key, Math.min(token.expiresAtMs - now + 10, 2 ** 31 - 1));
      return;
    }
    const { namespace, name } = splitKey(key);
    recordAction(ctx, NAME, "delete", SECRETS, namespace, name);
    try {
      await ctx.client.delete(SECRETS, name, { namespace, preconditions: { uid: secret.metadata.uid } });
    } catch (err) {
      if (!isStatusError(err, "NotFound") && !isStatusError(err, "Conflict")) throw err;
    }
  }

  const enqueue = (s: ApiObject) => s.metadata.name && queue.add(`${s.metadata.namespace ?? ""}/${s.metadata.name}`);
  secrets.addHandler({ add: enqueue, update: (_o, n) => enqueue(n) });
  return { run: () => queue.start(), stop: () => queue.stop() };
}
