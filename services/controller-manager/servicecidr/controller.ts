/**
 * The ServiceCIDR controller (`service-cidr-controller`), as the platform's: it keeps
 * the protection finalizer (`networking.<domain>/service-cidr-finalizer`) and the
 * `Ready` condition of every ServiceCIDR, and ends the life of a deleted one by
 * dropping the finalizer once no IPAddress would be left outside every ServiceCIDR
 * (decide.ts). The API server only allocates from the ServiceCIDRs; it does none of this.
 *
 * Events queued: a ServiceCIDR added (it and the ServiceCIDRs it overlaps, whose
 * deletion it may unblock), changed or deleted; an IPAddress added or deleted (the
 * ServiceCIDRs holding its address). A deleted ServiceCIDR is synced again when its
 * grace period (`serviceCidrDeletionGracePeriodMs`, 10 s as the platform's) ends.
 * Writes: strategic merge patches of `metadata.finalizers` (add; `$deleteFromPrimitiveList`
 * to remove) and of `status.conditions` (merged by type) on the status subresource,
 * each with this controller's field manager. Five workers, as the platform's.
 */
import { isStatusError } from "../../../shared/api/status.ts";
import type { ApiObject } from "../../../shared/client/object-client.ts";
import { queueMetrics, recordAction, resourceOf, type Controller, type ControllerContext } from "../context.ts";
import { WorkQueue } from "../../../shared/client/work-queue.ts";
import { addressOf, cidrsHolding, cidrsOverlapping, cidrView, planSync, type Address, type SyncStep } from "./decide.ts";

export const SERVICE_CIDR_CONTROLLER = "service-cidr-controller";
const WORKERS = 5;
/** The platform's deletion grace period: allocators see the deletion before the range goes. */
export const DEFAULT_DELETION_GRACE_PERIOD_MS = 10_000;

/** The protection finalizer in the profile's networking group. */
export function serviceCidrFinalizer(ctx: Pick<ControllerContext, "profile">): string {
  return `${ctx.profile.group("networking")}/service-cidr-finalizer`;
}

export function startServiceCidrController(ctx: ControllerContext): Controller {
  const serviceCidrs = resourceOf(ctx.profile, "networking", "v1", "servicecidrs");
  const cidrInformer = ctx.informers.informer(serviceCidrs);
  const ipInformer = ctx.informers.informer(resourceOf(ctx.profile, "networking", "v1", "ipaddresses"));
  const finalizer = serviceCidrFinalizer(ctx);
  const gracePeriodMs = ctx.settings.serviceCidrDeletionGracePeriodMs ?? DEFAULT_DELETION_GRACE_PERIOD_MS;
  const queue = new WorkQueue<string>(sync, { workers: WORKERS, metrics: queueMetrics(ctx, "service_cidr"), log: (msg, f) => ctx.log("warn", msg, f) });

  const views = () => cidrInformer.list().map(cidrView);

  async function sync(name: string): Promise<void> {
    const obj = cidrInformer.get(name);
    if (!obj) return;
    const ips: Address[] = ipInformer.list().flatMap((o) => addressOf(o) ?? []);
    const steps = planSync({ target: cidrView(obj), all: views(), ips, finalizer, readyMessage: `${ctx.profile.displayName} Service CIDR is ready`, now: Date.now(), gracePeriodMs });
    for (const step of steps) await carryOut(name, step);
  }

  async function carryOut(name: string, step: SyncStep): Promise<void> {
    if (step.kind === "requeueAfter") {
      queue.addAfter(name, step.ms);
      return;
    }
    const opts = { fieldManager: SERVICE_CIDR_CONTROLLER };
    let patch: unknown;
    let subresource: string | undefined;
    if (step.kind === "addFinalizer") patch = { metadata: { finalizers: [finalizer] } };
    else if (step.kind === "removeFinalizer") patch = { metadata: { "$deleteFromPrimitiveList/finalizers": [finalizer] } };
    else {
      patch = { status: { conditions: [{ ...step.condition, lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, "Z") }] } };
      subresource = "status";
    }
    recordAction(ctx, SERVICE_CIDR_CONTROLLER, "patch", serviceCidrs, undefined, name);
    try {
      await ctx.client.patch(serviceCidrs, name, "strategic", patch, { ...opts, subresource });
    } catch (err) {
      // Gone meanwhile: nothing left to keep.
      if (!isStatusError(err, "NotFound")) throw err;
    }
  }

  const queueNames = (names: Iterable<string>) => {
    for (const n of names) queue.add(n);
  };
  const onIpAddress = (obj: ApiObject) => {
    const ip = addressOf(obj);
    if (ip) queueNames(cidrsHolding(views(), ip));
  };
  cidrInformer.addHandler({
    add: (obj) => {
      if (obj.metadata.name) queue.add(obj.metadata.name);
      queueNames(cidrsOverlapping(views(), cidrView(obj)));
    },
    update: (_old, obj) => {
      if (obj.metadata.name) queue.add(obj.metadata.name);
    },
    delete: (obj) => {
      if (obj.metadata.name) queue.add(obj.metadata.name);
    },
  });
  ipInformer.addHandler({ add: onIpAddress, delete: onIpAddress });
  return { run: () => queue.start(), stop: () => queue.stop() };
}
