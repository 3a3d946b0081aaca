/**
 * The CSR cleaner (`certificatesigningrequest-cleaner-controller`): deletes requests
 * whose time is over, with the platform's limits: approved or denied for 1 hour,
 * failed for 1 hour, pending for 24 hours, or with an issued certificate that has
 * expired. Each request in the informer's cache is checked when it changes and again
 * at the moment its limit is reached (a timer per request, no periodic listing).
 */
import { X509Certificate } from "node:crypto";
import { isStatusError } from "../../../shared/api/status.ts";
import type { ApiObject } from "../../../shared/client/object-client.ts";
import { queueMetrics, recordAction, type Controller, type ControllerContext } from "../context.ts";
import { WorkQueue } from "../../../shared/client/work-queue.ts";
import { csrResource, statusOf } from "./csr.ts";

const NAME = "certificatesigningrequest-cleaner-controller";
const HOUR = 3_600_000;
export const CSR_LIMITS = { approvedMs: HOUR, deniedMs: HOUR, failedMs: HOUR, pendingMs: 24 * HOUR };

/** When a request may be deleted (ms since the epoch), by the platform's rules; pure. */
export function csrExpiry(csr: ApiObject, limits = CSR_LIMITS): number {
  const status = statusOf(csr);
  const times: number[] = [];
  if (status.certificate) {
    try {
      const pem = Buffer.from(status.certificate, "base64").toString("utf8");
      times.push(Date.parse(new X509Certificate(pem).validTo));
    } catch {
      // not a certificate: the other limits apply
    }
  }
  const since = (type: string) => {
    const c = (status.conditions ?? []).find((x) => x.type === type && x.status === "True");
    return c ? Date.parse(c.lastUpdateTime ?? c.lastTransitionTime ?? "") : NaN;
  };
  const approved = since("Approved");
  const denied = since("Denied");
  const failed = since("Failed");
  if (!Number.isNaN(approved)) times.push(approved + limits.approvedMs);
  if (!Number.isNaN(denied)) times.push(denied + limits.deniedMs);
  if (!Number.isNaN(failed)) times.push(failed + limits.failedMs);
  if (Number.isNaN(approved) && Number.isNaN(denied) && Number.isNaN(failed)) times.push(Date.parse(String(csr.metadata.creationTimestamp ?? "")) + limits.pendingMs);
  const valid = times.filter((t) => !Number.isNaN(t));
  return valid.length ? Math.min(...valid) : Infinity;
}

export function startCsrCleanerController(ctx: ControllerContext): Controller {
  const res = csrResource(ctx.profile);
  const csrs = ctx.informers.informer(res);
  const queue = new WorkQueue<string>(sync, { workers: 1, metrics: queueMetrics(ctx, "csrcleaner"), log: (msg, f) => ctx.log("warn", msg, f) });

  async function sync(name: string): Promise<void> {
    const csr = csrs.get(name);
    if (!csr) return;
    const at = csrExpiry(csr);
    if (at > Date.now()) {
      if (Number.isFinite(at)) queue.addAfter(name, Math.min(at - Date.now() + 10, 2 ** 31 - 1));
      return;
    }
    recordAction(ctx, NAME, "delete", res, undefined, name);
    try {
      await ctx.client.delete(res, name, { preconditions: { uid: csr.metadata.uid } });
    } catch (err) {
      if (!isStatusError(err, "NotFound") && !isStatusError(err, "Conflict")) throw err;
    }
  }

  const enqueue = (o: ApiObject) => o.metadata.name && queue.add(o.metadata.name);
  csrs.addHandler({ add: enqueue, update: (_o, n) => enqueue(n) });
  return { run: () => queue.start(), stop: () => queue.stop() };
}
