/**
 * Certificates for the embedded default: a cluster CA, the API server's
 * serving certificate, client certificates (CN = user, O = groups), the
 * service-account signing key, and the admin client configuration file.
 *
 * Keys are ECDSA P-256 (SHA-256 signatures), PEM encoded (PKCS#8 private keys,
 * SPKI public keys). `ensurePki(dir)` creates everything once under
 * `<dir>/pki/` and reuses the files on later starts; it only reissues the
 * serving certificate when its names no longer cover the requested hosts.
 * Private keys are written with mode 0600.
 */
import { webcrypto, createPrivateKey, X509Certificate as NodeX509Certificate } from "node:crypto";
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { isIP } from "node:net";
import { dirname, join } from "node:path";
import type * as X509 from "@peculiar/x509";
import { stringify } from "yaml";
import type { PlatformProfile } from "../../../shared/platform/index.ts";

/**
 * The X.509 library's dependency-injection helper refuses to load without the
 * `Reflect` metadata functions. It only needs a per-object store, so a minimal
 * one is installed (once, process-wide) before the library is imported.
 */
function installReflectMetadata(): void {
  const R = Reflect as unknown as Record<string, unknown>;
  if (typeof R.getMetadata === "function") return;
  const store = new WeakMap<object, Map<unknown, unknown>>();
  const getOwn = (key: unknown, target: object): unknown => store.get(target)?.get(key);
  const define = (key: unknown, value: unknown, target: object): void => {
    let m = store.get(target);
    if (!m) store.set(target, (m = new Map()));
    m.set(key, value);
  };
  const get = (key: unknown, target: object): unknown => {
    for (let t: object | null = target; t; t = Object.getPrototypeOf(t) as object | null) {
      const m = store.get(t);
      if (m?.has(key)) return m.get(key);
    }
    return undefined;
  };
  R.defineMetadata = define;
  R.getOwnMetadata = getOwn;
  R.getMetadata = get;
  R.hasOwnMetadata = (key: unknown, target: object): boolean => store.get(target)?.has(key) ?? false;
  R.hasMetadata = (key: unknown, target: object): boolean => get(key, target) !== undefined;
  R.metadata = (key: unknown, value: unknown) => (target: object) => define(key, value, target);
}
installReflectMetadata();
const x509 = await import("@peculiar/x509");

const crypto: webcrypto.Crypto = webcrypto;
x509.cryptoProvider.set(crypto);

const EC_ALGORITHM: webcrypto.EcKeyGenParams = { name: "ECDSA", namedCurve: "P-256" };
const SIGNING_ALGORITHM: webcrypto.EcdsaParams = { name: "ECDSA", hash: "SHA-256" };
const DAY_MS = 24 * 60 * 60 * 1000;

export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

export interface CertificateAuthority extends KeyPairPem {
  cert: X509.X509Certificate;
  privateKey: webcrypto.CryptoKey;
}

// ---------------------------------------------------------------------------
// Keys and PEM

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString("base64");
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

function pemBody(text: string, label: string): Buffer {
  const m = new RegExp(`-----BEGIN ${label}-----([\\s\\S]*?)-----END ${label}-----`).exec(text);
  if (!m) throw new Error(`no ${label} block in PEM`);
  return Buffer.from(m[1].replace(/\s+/g, ""), "base64");
}

async function generateKeyPair(): Promise<webcrypto.CryptoKeyPair> {
  return (await crypto.subtle.generateKey(EC_ALGORITHM, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
}

async function privateKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  return pem("PRIVATE KEY", await crypto.subtle.exportKey("pkcs8", key));
}

async function publicKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  return pem("PUBLIC KEY", await crypto.subtle.exportKey("spki", key));
}

/** Imports a PEM private key (PKCS#8, SEC1 or PKCS#1) for signing. */
async function importSigningKey(keyPem: string): Promise<{ key: webcrypto.CryptoKey; signing: webcrypto.Algorithm | webcrypto.EcdsaParams }> {
  const ko = createPrivateKey(keyPem);
  const der = ko.export({ format: "der", type: "pkcs8" });
  if (ko.asymmetricKeyType === "ec") {
    const curve = ko.asymmetricKeyDetails?.namedCurve;
    const namedCurve = curve === "secp384r1" ? "P-384" : curve === "secp521r1" ? "P-521" : "P-256";
    const key = await crypto.subtle.importKey("pkcs8", der, { name: "ECDSA", namedCurve }, true, ["sign"]);
    return { key, signing: { name: "ECDSA", hash: namedCurve === "P-256" ? "SHA-256" : namedCurve === "P-384" ? "SHA-384" : "SHA-512" } as webcrypto.EcdsaParams };
  }
  if (ko.asymmetricKeyType === "rsa") {
    const key = await crypto.subtle.importKey("pkcs8", der, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, true, ["sign"]);
    return { key, signing: { name: "RSASSA-PKCS1-v1_5" } };
  }
  throw new Error(`unsupported CA key type ${ko.asymmetricKeyType ?? "unknown"}`);
}

/** A positive random 128-bit serial number in hex. */
function serialNumber(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] &= 0x7f;
  if (bytes[0] === 0) bytes[0] = 1;
  return Buffer.from(bytes).toString("hex");
}

function validity(days: number): { notBefore: Date; notAfter: Date } {
  const now = Date.now();
  // Back-date by an hour so that small clock differences between hosts do not matter.
  return { notBefore: new Date(now - 60 * 60 * 1000), notAfter: new Date(now + days * DAY_MS) };
}

// ---------------------------------------------------------------------------
// Issuing

export interface CAOptions {
  commonName?: string;
  validityDays?: number;
}

/** A self-signed CA: basicConstraints CA=true, keyUsage keyCertSign + cRLSign + digitalSignature. */
export async function createCA(opts: CAOptions = {}): Promise<CertificateAuthority> {
  const keys = await generateKeyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: [{ CN: [opts.commonName ?? "cluster-ca"] }],
    ...validity(opts.validityDays ?? 3650),
    keys,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert, privateKey: keys.privateKey, certPem: cert.toString("pem") + "\n", keyPem: await privateKeyPem(keys.privateKey) };
}

/** Loads a CA from PEM files (any ECDSA or RSA key). */
export async function loadCA(certPem: string, keyPem: string): Promise<CertificateAuthority> {
  const cert = new x509.X509Certificate(certPem);
  const { key } = await importSigningKey(keyPem);
  return { cert, privateKey: key, certPem, keyPem };
}

async function issue(
  ca: CertificateAuthority,
  subject: X509.JsonName,
  extensions: X509.Extension[],
  validityDays: number,
): Promise<KeyPairPem> {
  const keys = await generateKeyPair();
  const { signing } = await importSigningKey(ca.keyPem);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject,
    issuer: ca.cert.subjectName,
    ...validity(validityDays),
    publicKey: keys.publicKey,
    signingKey: ca.privateKey,
    signingAlgorithm: signing,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      ...extensions,
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
    ],
  });
  return { certPem: cert.toString("pem") + "\n", keyPem: await privateKeyPem(keys.privateKey) };
}

/** The in-cluster DNS names of the API service: `<svc>`, `<svc>.default`, `<svc>.default.svc`, `<svc>.default.svc.cluster.local`. */
export function apiServiceDnsNames(profile: PlatformProfile): string[] {
  const svc = profile.apiServiceName;
  return [svc, `${svc}.default`, `${svc}.default.svc`, `${svc}.default.svc.cluster.local`];
}

/** Loopback names every serving certificate carries. */
export const LOOPBACK_HOSTS: readonly string[] = ["127.0.0.1", "localhost", "::1"];

export interface ServingCertOptions {
  commonName?: string;
  /** Extra host names and IP addresses (the loopback names are always included). */
  hosts?: readonly string[];
  validityDays?: number;
  /** Also valid as a client certificate (extended key usage clientAuth), as store members present theirs to each other. */
  clientAuth?: boolean;
}

function uniqueHosts(hosts: readonly string[]): string[] {
  return [...new Set(hosts.map((h) => h.trim()).filter((h) => h.length > 0))];
}

/** A TLS server certificate for the loopback names and `hosts` (IPs become IP SANs). */
export async function createServingCert(ca: CertificateAuthority, opts: ServingCertOptions = {}): Promise<KeyPairPem> {
  const hosts = uniqueHosts([...LOOPBACK_HOSTS, ...(opts.hosts ?? [])]);
  const names = hosts.map((h) => (isIP(h) ? { type: "ip" as const, value: h } : { type: "dns" as const, value: h }));
  return issue(
    ca,
    [{ CN: [opts.commonName ?? "apiserver"] }],
    [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension(opts.clientAuth === true ? [x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth] : [x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(names),
    ],
    opts.validityDays ?? 365,
  );
}

export interface ClientCertOptions {
  /** Becomes the subject CN (the user name). */
  user: string;
  /** Each becomes one subject O (a group). */
  groups?: readonly string[];
  validityDays?: number;
}

/** A TLS client certificate: CN = user, one O per group, extended key usage clientAuth. */
export async function createClientCert(ca: CertificateAuthority, opts: ClientCertOptions): Promise<KeyPairPem> {
  const subject: X509.JsonName = [...(opts.groups ?? []).map((g) => ({ O: [g] })), { CN: [opts.user] }];
  return issue(
    ca,
    subject,
    [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
    ],
    opts.validityDays ?? 365,
  );
}

/** True when the certificate is valid now (and for `marginMs` more) and names every host. */
export function certificateCovers(certPem: string, hosts: readonly string[], now = new Date(), marginMs = DAY_MS): boolean {
  const cert = new NodeX509Certificate(certPem);
  if (new Date(cert.validTo).getTime() - marginMs < now.getTime()) return false;
  return hosts.every((h) => (isIP(h) ? cert.checkIP(h) !== undefined : cert.checkHost(h) !== undefined));
}

// ---------------------------------------------------------------------------
// Files

export interface PkiPaths {
  dir: string;
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  adminCert: string;
  adminKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
}

export function pkiPaths(dataDir: string): PkiPaths {
  const dir = join(dataDir, "pki");
  return {
    dir,
    caCert: join(dir, "ca.crt"),
    caKey: join(dir, "ca.key"),
    servingCert: join(dir, "apiserver.crt"),
    servingKey: join(dir, "apiserver.key"),
    adminCert: join(dir, "admin.crt"),
    adminKey: join(dir, "admin.key"),
    serviceAccountKey: join(dir, "service-account.key"),
    serviceAccountPub: join(dir, "service-account.pub"),
  };
}

export interface Pki {
  paths: PkiPaths;
  ca: KeyPairPem;
  serving: KeyPairPem;
  admin: KeyPairPem;
  serviceAccount: { privateKeyPem: string; publicKeyPem: string };
  /** Files written by this call (empty when everything was reused). */
  created: string[];
}

export interface EnsurePkiOptions {
  /** Adds the profile's in-cluster DNS names of the API service to the serving certificate. */
  profile?: PlatformProfile;
  /** Further host names or IPs for the serving certificate. */
  extraSans?: readonly string[];
  /** Admin identity (default `admin` in group `system:masters`). */
  adminUser?: string;
  adminGroups?: readonly string[];
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

/** Writes atomically (temp file + rename) with the given mode. */
async function writeFileAtomic(path: string, data: string, mode: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
  await writeFile(tmp, data, { mode });
  await chmod(tmp, mode);
  await rename(tmp, path);
}

/**
 * Creates the PKI under `<dataDir>/pki/` once and reuses it afterwards:
 * ca.crt/ca.key, apiserver.crt/key, admin.crt/key, service-account.key/pub.
 */
export async function ensurePki(dataDir: string, opts: EnsurePkiOptions = {}): Promise<Pki> {
  const paths = pkiPaths(dataDir);
  await mkdir(paths.dir, { recursive: true, mode: 0o700 });
  const created: string[] = [];
  const save = async (path: string, data: string, secret: boolean): Promise<void> => {
    await writeFileAtomic(path, data, secret ? 0o600 : 0o644);
    created.push(path);
  };

  // CA: reused when both halves exist; otherwise a new one invalidates everything it signed.
  let caCertPem = await readIfExists(paths.caCert);
  let caKeyPem = await readIfExists(paths.caKey);
  let ca: CertificateAuthority;
  let caIsNew = false;
  if (caCertPem && caKeyPem) {
    ca = await loadCA(caCertPem, caKeyPem);
  } else {
    ca = await createCA({ commonName: opts.profile ? `${opts.profile.apiServiceName}-ca` : "cluster-ca" });
    caCertPem = ca.certPem;
    caKeyPem = ca.keyPem;
    await save(paths.caKey, caKeyPem, true);
    await save(paths.caCert, caCertPem, false);
    caIsNew = true;
  }

  const hosts = uniqueHosts([...LOOPBACK_HOSTS, ...(opts.profile ? apiServiceDnsNames(opts.profile) : []), ...(opts.extraSans ?? [])]);
  let serving: KeyPairPem | undefined;
  const servingCert = await readIfExists(paths.servingCert);
  const servingKey = await readIfExists(paths.servingKey);
  if (!caIsNew && servingCert && servingKey && certificateCovers(servingCert, hosts)) serving = { certPem: servingCert, keyPem: servingKey };
  if (!serving) {
    serving = await createServingCert(ca, { hosts });
    await save(paths.servingKey, serving.keyPem, true);
    await save(paths.servingCert, serving.certPem, false);
  }

  let admin: KeyPairPem | undefined;
  const adminCert = await readIfExists(paths.adminCert);
  const adminKey = await readIfExists(paths.adminKey);
  if (!caIsNew && adminCert && adminKey && certificateCovers(adminCert, [])) admin = { certPem: adminCert, keyPem: adminKey };
  if (!admin) {
    admin = await createClientCert(ca, { user: opts.adminUser ?? "admin", groups: opts.adminGroups ?? ["system:masters"] });
    await save(paths.adminKey, admin.keyPem, true);
    await save(paths.adminCert, admin.certPem, false);
  }

  let saKey = await readIfExists(paths.serviceAccountKey);
  let saPub = await readIfExists(paths.serviceAccountPub);
  if (!saKey || !saPub) {
    const keys = await generateKeyPair();
    saKey = await privateKeyPem(keys.privateKey);
    saPub = await publicKeyPem(keys.publicKey);
    await save(paths.serviceAccountKey, saKey, true);
    await save(paths.serviceAccountPub, saPub, false);
  }

  return {
    paths,
    ca: { certPem: caCertPem, keyPem: caKeyPem },
    serving,
    admin,
    serviceAccount: { privateKeyPem: saKey, publicKeyPem: saPub },
    created,
  };
}

// ---------------------------------------------------------------------------
// Client configuration

export interface KubeconfigParams {
  server: string;
  caPem: string;
  certPem: string;
  keyPem: string;
  user: string;
  clusterName: string;
  contextName: string;
}

const b64 = (s: string): string => Buffer.from(s, "utf8").toString("base64");

/** The client configuration document (`apiVersion: v1`, `kind: Config`) with embedded credentials. */
export function kubeconfigYaml(p: KubeconfigParams): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: p.clusterName, cluster: { server: p.server, "certificate-authority-data": b64(p.caPem) } }],
    users: [{ name: p.user, user: { "client-certificate-data": b64(p.certPem), "client-key-data": b64(p.keyPem) } }],
    contexts: [{ name: p.contextName, context: { cluster: p.clusterName, user: p.user } }],
    "current-context": p.contextName,
    preferences: {},
  });
}

/** Writes the admin client configuration (mode 0600: it holds a private key). */
export async function writeAdminKubeconfig(path: string, p: KubeconfigParams): Promise<void> {
  await writeFileAtomic(path, kubeconfigYaml(p), 0o600);
}

/** The DER bytes of the first certificate of a PEM bundle. */
export function certificateDer(certPem: string): Buffer {
  return pemBody(certPem, "CERTIFICATE");
}
