/**
 * X.509 for the controller manager (its own copy: services do not import one another):
 * a self-signed serving certificate for its HTTPS port, and issuing a certificate for a
 * PKCS#10 request with a CA certificate and key (the CSR signer). ECDSA P-256 keys for
 * what it makes; a CA key may be ECDSA or RSA.
 */
import { createPrivateKey, webcrypto } from "node:crypto";
import { isIP } from "node:net";
import type * as X509 from "@peculiar/x509";

/**
 * @peculiar/x509 asks for the `Reflect` metadata functions at load time; a small
 * per-object store is enough for it (installed once, before the import).
 */
function provideReflectMetadata(): void {
  const api = Reflect as unknown as Record<string, unknown>;
  if (typeof api.getMetadata === "function") return;
  const tables = new WeakMap<object, Map<unknown, unknown>>();
  const table = (target: object): Map<unknown, unknown> => {
    let t = tables.get(target);
    if (!t) tables.set(target, (t = new Map()));
    return t;
  };
  const lookup = (key: unknown, target: object): unknown => {
    for (let o: object | null = target; o; o = Object.getPrototypeOf(o) as object | null) if (tables.get(o)?.has(key)) return tables.get(o)?.get(key);
    return undefined;
  };
  Object.assign(api, {
    defineMetadata: (key: unknown, value: unknown, target: object) => table(target).set(key, value),
    getOwnMetadata: (key: unknown, target: object) => tables.get(target)?.get(key),
    getMetadata: lookup,
    hasOwnMetadata: (key: unknown, target: object) => tables.get(target)?.has(key) ?? false,
    hasMetadata: (key: unknown, target: object) => lookup(key, target) !== undefined,
    metadata: (key: unknown, value: unknown) => (target: object) => table(target).set(key, value),
  });
}
provideReflectMetadata();
const x509 = await import("@peculiar/x509");
x509.cryptoProvider.set(webcrypto);

const EC: webcrypto.EcKeyGenParams = { name: "ECDSA", namedCurve: "P-256" };

function toPem(label: string, der: ArrayBuffer): string {
  const lines = Buffer.from(der).toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

function serial(): string {
  const b = webcrypto.getRandomValues(new Uint8Array(16));
  b[0] = (b[0] & 0x7f) | 0x01;
  return Buffer.from(b).toString("hex");
}

export interface ServingPair {
  certPem: string;
  keyPem: string;
}

/** A self-signed serving certificate (its own CA) for `hosts` (DNS names and IPs), valid one year. */
export async function selfSignedServing(commonName: string, hosts: readonly string[]): Promise<ServingPair> {
  const keys = (await webcrypto.subtle.generateKey(EC, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: [{ CN: [`${commonName}@${Math.floor(now / 1000)}`] }],
    notBefore: new Date(now - 3_600_000),
    notAfter: new Date(now + 365 * 86_400_000),
    keys,
    signingAlgorithm: { name: "ECDSA", hash: "SHA-256" },
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.keyCertSign, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(hosts.map((h) => (isIP(h) ? { type: "ip" as const, value: h } : { type: "dns" as const, value: h }))),
    ],
  });
  return { certPem: cert.toString("pem") + "\n", keyPem: toPem("PRIVATE KEY", await webcrypto.subtle.exportKey("pkcs8", keys.privateKey)) };
}

/** A CA certificate and key (PEM) valid for `validityMs` from now (test fixtures, short-lived signers). */
export async function createSigningCA(commonName: string, validityMs: number): Promise<ServingPair> {
  const keys = (await webcrypto.subtle.generateKey(EC, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: [{ CN: [commonName] }],
    notBefore: new Date(now - 3_600_000),
    notAfter: new Date(now + validityMs),
    keys,
    signingAlgorithm: { name: "ECDSA", hash: "SHA-256" },
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString("pem") + "\n", keyPem: toPem("PRIVATE KEY", await webcrypto.subtle.exportKey("pkcs8", keys.privateKey)) };
}

/** A PKCS#10 request (PEM) and its key for `subject` (`CN=…, O=…`) and optional SANs (test fixtures, node agents). */
export async function createRequest(commonName: string, organizations: readonly string[], sans: { dns?: string[]; ip?: string[] } = {}): Promise<{ csrPem: string; keyPem: string }> {
  const keys = (await webcrypto.subtle.generateKey(EC, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const names = [...(sans.dns ?? []).map((value) => ({ type: "dns" as const, value })), ...(sans.ip ?? []).map((value) => ({ type: "ip" as const, value }))];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: [{ CN: [commonName] }, ...organizations.map((o) => ({ O: [o] }))],
    keys,
    signingAlgorithm: { name: "ECDSA", hash: "SHA-256" },
    extensions: names.length ? [new x509.SubjectAlternativeNameExtension(names)] : [],
  });
  return { csrPem: csr.toString("pem"), keyPem: toPem("PRIVATE KEY", await webcrypto.subtle.exportKey("pkcs8", keys.privateKey)) };
}

export interface SigningCA {
  cert: X509.X509Certificate;
  key: webcrypto.CryptoKey;
  algorithm: webcrypto.EcdsaParams | webcrypto.Algorithm;
}

/** Loads the cluster signing CA (`--cluster-signing-cert-file`, `--cluster-signing-key-file`). */
export async function loadSigningCA(certPem: string, keyPem: string): Promise<SigningCA> {
  const cert = new x509.X509Certificate(certPem);
  const ko = createPrivateKey(keyPem);
  const der = ko.export({ format: "der", type: "pkcs8" });
  if (ko.asymmetricKeyType === "ec") {
    const c = ko.asymmetricKeyDetails?.namedCurve;
    const namedCurve = c === "secp384r1" ? "P-384" : c === "secp521r1" ? "P-521" : "P-256";
    const hash = namedCurve === "P-256" ? "SHA-256" : namedCurve === "P-384" ? "SHA-384" : "SHA-512";
    return { cert, key: await webcrypto.subtle.importKey("pkcs8", der, { name: "ECDSA", namedCurve }, false, ["sign"]), algorithm: { name: "ECDSA", hash } };
  }
  if (ko.asymmetricKeyType === "rsa") {
    return { cert, key: await webcrypto.subtle.importKey("pkcs8", der, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["sign"]), algorithm: { name: "RSASSA-PKCS1-v1_5" } };
  }
  throw new Error(`unsupported signing key type ${ko.asymmetricKeyType ?? "unknown"}`);
}

export interface ParsedRequest {
  subject: { commonName: string; organizations: string[] };
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
  publicKeyAlgorithm: string;
}

function sanOf(csr: X509.Pkcs10CertificateRequest): X509.SubjectAlternativeNameExtension | undefined {
  return csr.extensions.find((e): e is X509.SubjectAlternativeNameExtension => e instanceof x509.SubjectAlternativeNameExtension);
}

/** Parses and checks the self-signature of a PEM PKCS#10 request. */
export async function parseRequest(pem: string): Promise<{ csr: X509.Pkcs10CertificateRequest; parsed: ParsedRequest }> {
  const csr = new x509.Pkcs10CertificateRequest(pem);
  if (!(await csr.verify())) throw new Error("the request's signature does not verify");
  const name = csr.subjectName.toJSON();
  const values = (type: string) => name.flatMap((rdn) => rdn[type] ?? []);
  const san = sanOf(csr);
  const names = san?.names.toJSON() ?? [];
  const pick = (type: string) => names.filter((n) => n.type === type).map((n) => n.value);
  return {
    csr,
    parsed: {
      subject: { commonName: values("CN")[0] ?? "", organizations: values("O") },
      dnsNames: pick("dns"),
      ipAddresses: pick("ip"),
      emailAddresses: pick("email"),
      uris: pick("url"),
      publicKeyAlgorithm: csr.publicKey.algorithm.name,
    },
  };
}

/** Key usages by their names in a CertificateSigningRequest. */
const KEY_USAGE: Record<string, number> = {
  "digital signature": x509.KeyUsageFlags.digitalSignature,
  "content commitment": x509.KeyUsageFlags.nonRepudiation,
  "key encipherment": x509.KeyUsageFlags.keyEncipherment,
  "key agreement": x509.KeyUsageFlags.keyAgreement,
  "data encipherment": x509.KeyUsageFlags.dataEncipherment,
  "cert sign": x509.KeyUsageFlags.keyCertSign,
  "crl sign": x509.KeyUsageFlags.cRLSign,
  "encipher only": x509.KeyUsageFlags.encipherOnly,
  "decipher only": x509.KeyUsageFlags.decipherOnly,
};
const EXT_USAGE: Record<string, string> = {
  "server auth": x509.ExtendedKeyUsage.serverAuth,
  "client auth": x509.ExtendedKeyUsage.clientAuth,
  "code signing": x509.ExtendedKeyUsage.codeSigning,
  "email protection": x509.ExtendedKeyUsage.emailProtection,
  "timestamping": x509.ExtendedKeyUsage.timeStamping,
  "ocsp signing": x509.ExtendedKeyUsage.ocspSigning,
};

/** Issues a certificate for the request: its subject, names and key; the usages given; notAfter capped by the CA's. */
export async function issueForRequest(ca: SigningCA, csr: X509.Pkcs10CertificateRequest, usages: readonly string[], durationMs: number, nowMs = Date.now()): Promise<string> {
  let keyUsage = 0;
  const ext: string[] = [];
  for (const u of usages) {
    if (KEY_USAGE[u] !== undefined) keyUsage |= KEY_USAGE[u];
    else if (EXT_USAGE[u]) ext.push(EXT_USAGE[u]);
  }
  const san = sanOf(csr);
  const notBefore = new Date(nowMs - 5 * 60_000);
  const caEnd = ca.cert.notAfter.getTime();
  const notAfter = new Date(Math.min(nowMs + durationMs, caEnd));
  const extensions: X509.Extension[] = [new x509.BasicConstraintsExtension(false, undefined, true)];
  if (keyUsage) extensions.push(new x509.KeyUsagesExtension(keyUsage, true));
  if (ext.length) extensions.push(new x509.ExtendedKeyUsageExtension(ext));
  if (san) extensions.push(new x509.SubjectAlternativeNameExtension(san.names.toJSON()));
  extensions.push(await x509.AuthorityKeyIdentifierExtension.create(ca.cert));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: csr.subjectName,
    issuer: ca.cert.subjectName,
    notBefore,
    notAfter,
    publicKey: csr.publicKey,
    signingKey: ca.key,
    signingAlgorithm: ca.algorithm,
    extensions,
  });
  return cert.toString("pem") + "\n";
}
