/**
 * The three CertificateSigningRequest plugins:
 * - CertificateApproval: an update of the `approval` subresource needs the `approve`
 *   verb on `signers` (group certificates) named after the request's signerName,
 *   or after its domain wildcard `<domain>/*`;
 * - CertificateSigning: an update of `status` that changes `status.certificate`
 *   needs `sign` on the signer likewise;
 * - CertificateSubjectRestriction: a request for the apiserver-client signer may
 *   not ask for the `system:masters` organization.
 */
import type { AdmissionPlugin, Attributes, PluginContext, PluginFactory } from "../interfaces.ts";
import { csrOrganizations } from "./csr-subject.ts";
import { admissionForbidden, isResource, obj, str } from "./util.ts";

export const CERTIFICATE_APPROVAL_PLUGIN = "CertificateApproval";
export const CERTIFICATE_SIGNING_PLUGIN = "CertificateSigning";
export const CERTIFICATE_SUBJECT_RESTRICTION_PLUGIN = "CertificateSubjectRestriction";
const MASTERS = "system:masters";

/** `approve` or `sign` on the signer, by exact name or domain wildcard. */
export async function authorizedForSigner(ctx: PluginContext, a: Attributes, verb: string, signerName: string): Promise<boolean> {
  const group = ctx.profile.group("certificates");
  if (await ctx.authorize(a.userInfo, { verb, group, resource: "signers", name: signerName })) return true;
  const slash = signerName.indexOf("/");
  if (slash < 0) return false;
  return ctx.authorize(a.userInfo, { verb, group, resource: "signers", name: `${signerName.slice(0, slash)}/*` });
}

function isCsr(a: Attributes, ctx: PluginContext, subresource: string): boolean {
  return isResource(a, ctx.profile.group("certificates"), "certificatesigningrequests", [subresource]);
}

const signerOf = (a: Attributes) => str(obj(a.object?.spec)?.signerName);

export const certificateApprovalPlugin: PluginFactory = (ctx): AdmissionPlugin => ({
  name: CERTIFICATE_APPROVAL_PLUGIN,
  handles: (op) => op === "UPDATE",
  async validate(a) {
    if (!isCsr(a, ctx, "approval") || !a.object) return;
    const signer = signerOf(a);
    if (!(await authorizedForSigner(ctx, a, "approve", signer))) {
      throw admissionForbidden(a, `user not permitted to approve requests with signerName ${JSON.stringify(signer)}`);
    }
  },
});

export const certificateSigningPlugin: PluginFactory = (ctx): AdmissionPlugin => ({
  name: CERTIFICATE_SIGNING_PLUGIN,
  handles: (op) => op === "UPDATE",
  async validate(a) {
    if (!isCsr(a, ctx, "status") || !a.object) return;
    const cert = str(obj(a.object.status)?.certificate);
    if (cert === str(obj(a.oldObject?.status)?.certificate)) return;
    const signer = signerOf(a);
    if (!(await authorizedForSigner(ctx, a, "sign", signer))) {
      throw admissionForbidden(a, `user not permitted to sign requests with signerName ${JSON.stringify(signer)}`);
    }
  },
});

/** The subject organizations of a base64 (as on the wire) PEM certificate request, or the parse error. */
export function requestOrganizations(requestB64: string): string[] | { error: string } {
  return csrOrganizations(Buffer.from(requestB64, "base64").toString("utf8"));
}

export const certificateSubjectRestrictionPlugin: PluginFactory = (ctx): AdmissionPlugin => {
  const clientSigner = `${ctx.profile.admission.signerPrefix}kube-apiserver-client`;
  return {
    name: CERTIFICATE_SUBJECT_RESTRICTION_PLUGIN,
    handles: (op) => op === "CREATE",
    validate(a) {
      if (!isCsr(a, ctx, "") || !a.object || signerOf(a) !== clientSigner) return;
      const orgs = requestOrganizations(str(obj(a.object.spec)?.request));
      if ("error" in orgs) throw admissionForbidden(a, `unable to parse csr: ${orgs.error}`);
      if (orgs.includes(MASTERS)) throw admissionForbidden(a, `use of ${clientSigner} signer with ${MASTERS} group is not allowed`);
    },
  };
};
