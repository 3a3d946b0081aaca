/**
 * The CSR approving controller (`certificatesigningrequest-approving-controller`):
 * requests for the kubelet client signer whose content is a node client request are
 * approved when a SubjectAccessReview for the requesting user allows `create` on
 * `certificatesigningrequests/selfnodeclient` (the common name is the requester's own
 * name) or `certificatesigningrequests/nodeclient`, as the platform's approver does.
 * Otherwise the request is left pending for someone else to decide. Informer-driven;
 * already decided requests are skipped.
 *
 * The approval is written through the `approval` subresource; an API server that does
 * not serve that subresource (404 without an object name) gets it through `status`.
 */
import { isStatusError } from "../../../shared/api/status.ts";
import { splitKey } from "../../../shared/client/informer.ts";
import type { ApiObject, ResourceRef } from "../../../shared/client/object-client.ts";
import { parseRequest } from "../pki/x509.ts";
import { queueMetrics, recordAction, type Controller, type ControllerContext } from "../context.ts";
import { WorkQueue } from "../../../shared/client/work-queue.ts";
import { builtinSigners, condition, csrResource, hasCondition, kubeletClientProblem, requestPem, specOf, statusOf } from "./csr.ts";

const NAME = "certificatesigningrequest-approving-controller";

/** PUT of `/approval`, or of `/status` where the server does not serve `/approval`. */
export async function updateApproval(ctx: ControllerContext, res: ResourceRef, csr: ApiObject): Promise<ApiObject> {
  try {
    return await ctx.client.update(res, csr, { subresource: "approval" });
  } catch (err) {
    if (!isStatusError(err, "NotFound") || err.status.details?.name) throw err;
    return ctx.client.update(res, csr, { subresource: "status" });
  }
}

export function startCsrApprovingController(ctx: ControllerContext): Controller {
  const res = csrResource(ctx.profile);
  const signers = builtinSigners(ctx.profile);
  const csrs = ctx.informers.informer(res);
  const queue = new WorkQueue<string>(sync, { workers: 5, metrics: queueMetrics(ctx, "csrapproving"), log: (msg, f) => ctx.log("warn", msg, f) });

  async function allowed(spec: ReturnType<typeof specOf>, subresource: string): Promise<boolean> {
    const review = await ctx.client.create(
      { group: ctx.profile.group("authorization"), version: "v1", resource: "subjectaccessreviews" },
      {
        apiVersion: `${ctx.profile.group("authorization")}/v1`,
        kind: "SubjectAccessReview",
        metadata: {},
        spec: {
          user: spec.username,
          uid: spec.uid,
          groups: spec.groups,
          extra: spec.extra,
          resourceAttributes: { group: res.group, resource: res.resource, verb: "create", subresource },
        },
      },
    );
    return (review.status as { allowed?: boolean } | undefined)?.allowed === true;
  }

  async function sync(key: string): Promise<void> {
    const csr = csrs.get(key);
    if (!csr || hasCondition(csr, "Approved") || hasCondition(csr, "Denied") || hasCondition(csr, "Failed") || statusOf(csr).certificate) return;
    const spec = specOf(csr);
    if (spec.signerName !== signers.kubeletClient) return;
    let parsed;
    try {
      parsed = (await parseRequest(requestPem(csr))).parsed;
    } catch (err) {
      ctx.log("warn", "unable to parse csr", { csr: key, error: String(err) });
      return;
    }
    if (kubeletClientProblem(parsed, spec.usages ?? []) !== undefined) return;
    const self = parsed.subject.commonName === spec.username;
    const ok = (self && (await allowed(spec, "selfnodeclient"))) || (await allowed(spec, "nodeclient"));
    if (!ok) return;
    const { name } = splitKey(key);
    const approved = { ...csr, status: { ...statusOf(csr), conditions: [...(statusOf(csr).conditions ?? []), condition("Approved", "AutoApproved", "Auto approving kubelet client certificate after SubjectAccessReview.")] } };
    recordAction(ctx, NAME, "approve", res, undefined, name);
    try {
      await updateApproval(ctx, res, approved);
    } catch (err) {
      if (isStatusError(err, "NotFound")) return;
      // Conflict: the informer brings the newer version and queues the key again.
      if (isStatusError(err, "Conflict")) return;
      throw err;
    }
  }

  const enqueue = (o: { metadata: { name?: string } }) => o.metadata.name && queue.add(o.metadata.name);
  csrs.addHandler({ add: enqueue, update: (_o, n) => enqueue(n) });
  return { run: () => queue.start(), stop: () => queue.stop() };
}
