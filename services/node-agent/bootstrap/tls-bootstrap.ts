/**
 * TLS bootstrap: with only a bootstrap credential (`--bootstrap-kubeconfig`) the agent
 * creates a CertificateSigningRequest for `system:node:<name>` in `system:nodes` with
 * the node client signer (`<signer prefix>kube-apiserver-client-kubelet`, usages
 * digital signature and client auth), waits until it is approved and carries a
 * certificate, writes certificate and key to `<cert-dir>/kubelet-client-<time>.pem`
 * (mode 0600) with `kubelet-client-current.pem` pointing at it, and writes `--kubeconfig`
 * referencing that file so every later start uses it. The key is kept across restarts
 * while no certificate was issued (a retried request has the same name).
 * The serving certificate (`--rotate-server-certificates`) is requested the same way
 * with the node's own credentials: signer `<signer prefix>kubelet-serving`, usages
 * digital signature and server auth, the node's names and addresses as subject
 * alternative names, kept as `kubelet-server-<time>.pem` / `kubelet-server-current.pem`.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, rename, symlink, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { stringify } from "yaml";
import { isStatusError } from "../../../shared/api/status.ts";
import { HttpsObjectClient } from "../../../shared/client/https-object-client.ts";
import { loadKubeconfig } from "../../../shared/client/kubeconfig.ts";
import type { ApiObject, ResourceRef } from "../../../shared/client/object-client.ts";
import type { LogFn } from "../../../shared/observability/logger.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { certificateRequestPem, generateKey, importKey, type GeneratedKey } from "../pki.ts";

export const NODES_GROUP = "system:nodes";
export const NODE_USER_PREFIX = "system:node:";
export const CLIENT_USAGES = ["digital signature", "client auth"] as const;
/** An ECDSA key: no key encipherment, as the platform's agent asks for serving certificates. */
export const SERVING_USAGES = ["digital signature", "server auth"] as const;

export interface TlsBootstrapOptions {
  profile: PlatformProfile;
  nodeName: string;
  kubeconfigPath: string;
  bootstrapKubeconfigPath: string;
  certDir: string;
  log: LogFn;
  /** How often the request is read while waiting (default 1 s). */
  pollMs?: number;
  signal?: AbortSignal;
}

export function kubeletClientSigner(profile: PlatformProfile): string {
  return `${profile.admission.signerPrefix}kube-apiserver-client-kubelet`;
}

export function kubeletServingSigner(profile: PlatformProfile): string {
  return `${profile.admission.signerPrefix}kubelet-serving`;
}

export function currentClientCertPath(certDir: string): string {
  return join(certDir, "kubelet-client-current.pem");
}

export function currentServingCertPath(certDir: string): string {
  return join(certDir, "kubelet-server-current.pem");
}

/** What a node certificate request asks for: the client identity, or serving for the node's names. */
interface CertificateKind {
  /** `kubelet-client` or `kubelet-server`: the files' prefix. */
  prefix: string;
  signerName: string;
  usages: readonly string[];
  hosts: readonly string[];
  /** The request's name prefix (`node-csr-` for client requests, `csr-` for serving ones). */
  namePrefix: string;
}

/**
 * `node-csr-` and a digest of what the request asks for, so a retried request has the
 * same name. Lower-case hex: a valid name under every name rule a server may apply.
 */
export function csrName(publicKeyPem: string, user: string, groups: readonly string[], usages: readonly string[], prefix = "node-csr-"): string {
  const h = createHash("sha256").update(publicKeyPem).update(`\0${user}\0${groups.join(",")}\0${usages.join(",")}`).digest("hex");
  return `${prefix}${h}`;
}

function stamp(d: Date): string {
  return d.toISOString().slice(0, 19).replace(/[T:]/g, "-");
}

async function pendingKey(path: string): Promise<GeneratedKey> {
  if (existsSync(path)) return importKey(await readFile(path, "utf8"));
  const key = await generateKey();
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, key.keyPem, { mode: 0o600 });
  return key;
}

function condition(csr: ApiObject, type: string): { message?: string } | undefined {
  const conditions = ((csr.status as { conditions?: Array<{ type: string; status?: string; message?: string }> } | undefined)?.conditions ?? []);
  return conditions.find((c) => c.type === type && c.status !== "False");
}

async function waitForCertificate(client: HttpsObjectClient, csrs: ResourceRef, name: string, o: CertificateRequestOptions): Promise<string> {
  for (let i = 0; ; i++) {
    if (o.signal?.aborted) throw new Error("TLS bootstrap stopped");
    try {
      const csr = await client.get(csrs, name);
      const denied = condition(csr, "Denied");
      if (denied) throw new Error(`certificate signing request ${name} was denied: ${denied.message ?? ""}`);
      const failed = condition(csr, "Failed");
      if (failed) throw new Error(`certificate signing request ${name} failed: ${failed.message ?? ""}`);
      const cert = (csr.status as { certificate?: string } | undefined)?.certificate;
      if (cert && condition(csr, "Approved")) return Buffer.from(cert, "base64").toString("utf8");
      if (i % 30 === 0) o.log("info", "waiting for the certificate", { csr: name });
    } catch (err) {
      if (!isStatusError(err)) throw err;
      o.log("warn", "reading the certificate signing request failed, will retry", { csr: name, error: err.message });
    }
    await new Promise((r) => setTimeout(r, o.pollMs ?? 1000));
  }
}

export interface CertificateRequestOptions {
  profile: PlatformProfile;
  nodeName: string;
  certDir: string;
  log: LogFn;
  pollMs?: number;
  signal?: AbortSignal;
}

/**
 * Requests a node certificate of `kind` with `client`'s credentials, waits for it, writes
 * `<cert-dir>/<prefix>-<time>.pem` (certificate and key, 0600) and points
 * `<prefix>-current.pem` at it. Answers the path of the current-certificate link.
 */
async function requestCertificate(client: HttpsObjectClient, o: CertificateRequestOptions, kind: CertificateKind): Promise<string> {
  const keyPath = join(o.certDir, `${kind.prefix}.key.tmp`);
  const key = await pendingKey(keyPath);
  const user = `${NODE_USER_PREFIX}${o.nodeName}`;
  const groups = [NODES_GROUP];
  const request = await certificateRequestPem(key, user, groups, kind.hosts);
  const name = csrName(key.publicKeyPem, user, groups, kind.usages, kind.namePrefix);
  const csrs: ResourceRef = { group: o.profile.group("certificates"), version: "v1", resource: "certificatesigningrequests" };
  try {
    await client.create(csrs, {
      apiVersion: `${csrs.group}/v1`,
      kind: "CertificateSigningRequest",
      metadata: { name },
      spec: { request: Buffer.from(request).toString("base64"), signerName: kind.signerName, usages: [...kind.usages] },
    });
    o.log("info", "certificate signing request created", { csr: name, signerName: kind.signerName });
  } catch (err) {
    if (!isStatusError(err, "AlreadyExists")) throw err;
  }
  const certPem = await waitForCertificate(client, csrs, name, o);
  const pemPath = join(o.certDir, `${kind.prefix}-${stamp(new Date())}.pem`);
  await writeFile(pemPath, `${certPem.trim()}\n${key.keyPem}`, { mode: 0o600 });
  await chmod(pemPath, 0o600);
  const current = join(o.certDir, `${kind.prefix}-current.pem`);
  const link = `${current}.tmp-${process.pid}`;
  await unlink(link).catch(() => undefined);
  await symlink(pemPath, link);
  await rename(link, current);
  await unlink(keyPath).catch(() => undefined);
  o.log("info", "certificate written", { path: pemPath, signerName: kind.signerName });
  return current;
}

/** The node client certificate (`system:node:<name>` in `system:nodes`, node client signer). */
export function requestClientCertificate(client: HttpsObjectClient, o: CertificateRequestOptions): Promise<string> {
  return requestCertificate(client, o, { prefix: "kubelet-client", signerName: kubeletClientSigner(o.profile), usages: CLIENT_USAGES, hosts: [], namePrefix: "node-csr-" });
}

/** The node serving certificate for `hosts` (the node's names and addresses, kubelet-serving signer). */
export function requestServingCertificate(client: HttpsObjectClient, o: CertificateRequestOptions & { hosts: readonly string[] }): Promise<string> {
  return requestCertificate(client, o, { prefix: "kubelet-server", signerName: kubeletServingSigner(o.profile), usages: SERVING_USAGES, hosts: o.hosts, namePrefix: "csr-" });
}

/** Gets a client certificate with the bootstrap credential and writes `--kubeconfig`. */
export async function tlsBootstrap(o: TlsBootstrapOptions): Promise<void> {
  const bootstrap = loadKubeconfig(o.bootstrapKubeconfigPath);
  const client = new HttpsObjectClient(bootstrap);
  try {
    const current = await requestClientCertificate(client, o);
    const kubeconfig = {
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "default-cluster", cluster: { server: bootstrap.server, ...(bootstrap.ca ? { "certificate-authority-data": Buffer.from(bootstrap.ca).toString("base64") } : {}), ...(bootstrap.insecureSkipTlsVerify ? { "insecure-skip-tls-verify": true } : {}) } }],
      contexts: [{ name: "default-context", context: { cluster: "default-cluster", namespace: "default", user: "default-auth" } }],
      "current-context": "default-context",
      users: [{ name: "default-auth", user: { "client-certificate": current, "client-key": current } }],
    };
    await mkdir(dirname(o.kubeconfigPath), { recursive: true });
    const tmp = `${o.kubeconfigPath}.tmp-${process.pid}`;
    await writeFile(tmp, stringify(kubeconfig), { mode: 0o600 });
    await rename(tmp, o.kubeconfigPath);
    o.log("info", "client configuration written", { kubeconfig: o.kubeconfigPath });
  } finally {
    client.close();
  }
}
