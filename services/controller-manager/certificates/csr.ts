/**
 * CertificateSigningRequest helpers shared by the approver, the signer and the cleaner:
 * the built-in signer names under the profile, the request's PEM, its conditions, and
 * the pure checks of the platform's signers (which subjects, names and usages each
 * built-in signer accepts, and which requests are node client requests).
 */
import type { ApiObject, ResourceRef } from "../../../shared/client/object-client.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { ParsedRequest } from "../pki/x509.ts";

export interface CsrSpec {
  request?: string;
  signerName?: string;
  usages?: string[];
  expirationSeconds?: number;
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface CsrCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface CsrStatus {
  conditions?: CsrCondition[];
  certificate?: string;
}

export interface BuiltinSigners {
  client: string;
  kubeletClient: string;
  kubeletServing: string;
  legacyUnknown: string;
}

export function builtinSigners(profile: PlatformProfile): BuiltinSigners {
  const p = profile.admission.signerPrefix;
  return { client: `${p}kube-apiserver-client`, kubeletClient: `${p}kube-apiserver-client-kubelet`, kubeletServing: `${p}kubelet-serving`, legacyUnknown: `${p}legacy-unknown` };
}

export function csrResource(profile: PlatformProfile): ResourceRef {
  return { group: profile.group("certificates"), version: "v1", resource: "certificatesigningrequests" };
}

export const specOf = (csr: ApiObject): CsrSpec => (csr.spec ?? {}) as CsrSpec;
export const statusOf = (csr: ApiObject): CsrStatus => (csr.status ?? {}) as CsrStatus;

export function hasCondition(csr: ApiObject, type: string): boolean {
  return (statusOf(csr).conditions ?? []).some((c) => c.type === type && c.status === "True");
}

export function condition(type: string, reason: string, message: string, now = new Date()): CsrCondition {
  const t = now.toISOString().replace(/\.\d{3}Z$/, "Z");
  return { type, status: "True", reason, message, lastUpdateTime: t, lastTransitionTime: t };
}

/** The PEM of `spec.request` (base64 in the API). */
export function requestPem(csr: ApiObject): string {
  return Buffer.from(specOf(csr).request ?? "", "base64").toString("utf8");
}

const NODE_USER_PREFIX = "system:node:";
const NODES_GROUP = "system:nodes";

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

function kubeletUsages(usages: readonly string[], purpose: "client auth" | "server auth", rsa: boolean): string | undefined {
  const withKey = ["key encipherment", "digital signature", purpose];
  const withoutKey = ["digital signature", purpose];
  if (sameSet(usages, withKey) || (!rsa && sameSet(usages, withoutKey))) return undefined;
  return `usages did not match [${(rsa ? withKey : withoutKey).join(" ")}]`;
}

/** Why a request is not a kubelet client request, or undefined when it is one. */
export function kubeletClientProblem(req: ParsedRequest, usages: readonly string[]): string | undefined {
  if (req.subject.organizations.length !== 1 || req.subject.organizations[0] !== NODES_GROUP) return `subject organization is not ${NODES_GROUP}`;
  if (req.dnsNames.length || req.emailAddresses.length || req.ipAddresses.length || req.uris.length) return "DNS, email, IP or URI subjectAltNames are not allowed";
  if (!req.subject.commonName.startsWith(NODE_USER_PREFIX)) return `subject common name does not begin with ${NODE_USER_PREFIX}`;
  return kubeletUsages(usages, "client auth", req.publicKeyAlgorithm.startsWith("RSA"));
}

/** Why a request is not a kubelet serving request, or undefined when it is one. */
export function kubeletServingProblem(req: ParsedRequest, usages: readonly string[]): string | undefined {
  if (req.subject.organizations.length !== 1 || req.subject.organizations[0] !== NODES_GROUP) return `subject organization is not ${NODES_GROUP}`;
  if (req.emailAddresses.length || req.uris.length) return "email and URI subjectAltNames are not allowed";
  if (!req.dnsNames.length && !req.ipAddresses.length) return "DNS or IP subjectAltName is required";
  if (!req.subject.commonName.startsWith(NODE_USER_PREFIX)) return `subject common name does not begin with ${NODE_USER_PREFIX}`;
  return kubeletUsages(usages, "server auth", req.publicKeyAlgorithm.startsWith("RSA"));
}

/** Why a client request is refused by the API server client signer, or undefined. */
export function apiserverClientProblem(usages: readonly string[]): string | undefined {
  for (const u of usages) if (!["digital signature", "key encipherment", "client auth"].includes(u)) return `invalid usage for client certificate: ${u}`;
  if (!usages.includes("client auth")) return "missing required usage for client certificate: client auth";
  return undefined;
}

/** The check of a built-in signer, or undefined when `signerName` is not one this manager signs for. */
export function signerProblem(signers: BuiltinSigners, signerName: string, req: ParsedRequest, usages: readonly string[]): { signs: boolean; problem?: string } {
  if (signerName === signers.client) return { signs: true, problem: apiserverClientProblem(usages) };
  if (signerName === signers.kubeletClient) return { signs: true, problem: kubeletClientProblem(req, usages) };
  if (signerName === signers.kubeletServing) return { signs: true, problem: kubeletServingProblem(req, usages) };
  return { signs: false };
}
