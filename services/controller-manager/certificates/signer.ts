/**
 * The CSR signing controller (`certificatesigningrequest-signing-controller`): approved
 * requests for the built-in client, kubelet client and kubelet serving signers are
 * issued a certificate by the cluster signing CA (`--cluster-signing-cert-file`,
 * `--cluster-signing-key-file`) valid for `--cluster-signing-duration`, shortened by
 * `spec.expirationSeconds` and never past the CA's own end. A request the signer's
 * rules refuse gets the `Failed` condition (reason `SignerValidationFailure`); denied,
 * failed or already issued requests are skipped. Without a CA the controller does not run.
 */
import { isStatusError } from "../../../shared/api/status.ts";
import { splitKey } from "../../../shared/client/informer.ts";
import type { ApiObject } from "../../../shared/client/object-client.ts";
import { issueForRequest, loadSigningCA, parseRequest, type SigningCA } from "../pki/x509.ts";
import { queueMetrics, recordAction, type Controller, type ControllerContext } from "../context.ts";
import { WorkQueue } from "../../../shared/client/work-queue.ts";
import { builtinSigners, condition, csrResource, hasCondition, requestPem, signerProblem, specOf, statusOf } from "./csr.ts";

const NAME = "certificatesigningrequest-signing-controller";
const DEFAULT_DURATION_MS = 8760 * 3_600_000;

export function startCsrSigningController(ctx: ControllerContext): Controller {
  const { clusterSigningCertPem, clusterSigningKeyPem } = ctx.settings;
  if (!clusterSigningCertPem || !clusterSigningKeyPem) {
    ctx.log("info", "skipping the CSR signer: no --cluster-signing-cert-file/--cluster-signing-key-file", { controller: NAME });
    return { run: () => {}, stop: () => {} };
  }
  const ca: Promise<SigningCA> = loadSigningCA(clusterSigningCertPem, clusterSigningKeyPem);
  ca.catch(() => {});
  const res = csrResource(ctx.profile);
  const signers = builtinSigners(ctx.profile);
  const csrs = ctx.informers.informer(res);
  const queue = new WorkQueue<string>(sync, { workers: 5, metrics: queueMetrics(ctx, "certificate"), log: (msg, f) => ctx.log("warn", msg, f) });

  async function write(obj: ApiObject, name: string, verb: string): Promise<void> {
    recordAction(ctx, NAME, verb, res, undefined, name);
    try {
      await ctx.client.update(res, obj, { subresource: "status" });
    } catch (err) {
      if (isStatusError(err, "NotFound") || isStatusError(err, "Conflict")) return;
      throw err;
    }
  }

  async function sync(key: string): Promise<void> {
    const csr = csrs.get(key);
    if (!csr || !hasCondition(csr, "Approved") || hasCondition(csr, "Denied") || hasCondition(csr, "Failed") || statusOf(csr).certificate) return;
    const spec = specOf(csr);
    const { name } = splitKey(key);
    let parsed;
    try {
      parsed = await parseRequest(requestPem(csr));
    } catch (err) {
      ctx.log("warn", "unable to parse csr", { csr: key, error: String(err) });
      return;
    }
    const verdict = signerProblem(signers, spec.signerName ?? "", parsed.parsed, spec.usages ?? []);
    if (!verdict.signs) return;
    const status = statusOf(csr);
    if (verdict.problem) {
      await write({ ...csr, status: { ...status, conditions: [...(status.conditions ?? []), condition("Failed", "SignerValidationFailure", verdict.problem)] } }, name, "fail");
      return;
    }
    let duration = ctx.settings.clusterSigningDurationMs ?? DEFAULT_DURATION_MS;
    if (typeof spec.expirationSeconds === "number") duration = Math.min(duration, spec.expirationSeconds * 1000);
    const pem = await issueForRequest(await ca, parsed.csr, spec.usages ?? [], duration);
    await write({ ...csr, status: { ...status, certificate: Buffer.from(pem).toString("base64") } }, name, "sign");
  }

  const enqueue = (o: { metadata: { name?: string } }) => o.metadata.name && queue.add(o.metadata.name);
  csrs.addHandler({ add: enqueue, update: (_o, n) => enqueue(n) });
  return { run: () => queue.start(), stop: () => queue.stop() };
}
