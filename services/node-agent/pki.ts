/**
 * The agent's key material (ECDSA P-256, SHA-256 signatures, PKCS#8 PEM keys): a
 * self-signed serving certificate for its host names when no `--tls-cert-file` is given
 * (as the platform's agent does), and PKCS#10 certificate requests for TLS bootstrap
 * (subject CN = user, one O per group).
 */
import { createPrivateKey, createPublicKey, webcrypto } from "node:crypto";
import { isIP } from "node:net";
import type * as X509 from "@peculiar/x509";

/**
 * The X.509 library resolves its algorithm registry through `Reflect` metadata; a
 * per-object store is enough, installed once before the library loads (a process that
 * already has one keeps it).
 */
function ensureReflectMetadata(): void {
  const R = Reflect as unknown as Record<string, unknown>;
  if (typeof R.getMetadata === "function") return;
  const own = new WeakMap<object, Map<unknown, unknown>>();
  const lookup = (key: unknown, target: object): unknown => {
    let t: object | null = target;
    while (t) {
      const entries = own.get(t);
      if (entries?.has(key)) return entries.get(key);
      t = Object.getPrototypeOf(t) as object | null;
    }
    return undefined;
  };
  const define = (key: unknown, value: unknown, target: object): void => {
    const entries = own.get(target) ?? new Map<unknown, unknown>();
    entries.set(key, value);
    own.set(target, entries);
  };
  Object.assign(R, {
    defineMetadata: define,
    getMetadata: lookup,
    getOwnMetadata: (key: unknown, target: object) => own.get(target)?.get(key),
    hasMetadata: (key: unknown, target: object) => lookup(key, target) !== undefined,
    hasOwnMetadata: (key: unknown, target: object) => own.get(target)?.has(key) ?? false,
    metadata: (key: unknown, value: unknown) => (target: object) => define(key, value, target),
  });
}
ensureReflectMetadata();
const x509 = await import("@peculiar/x509");
x509.cryptoProvider.set(webcrypto);

const KEY_ALGORITHM: webcrypto.EcKeyGenParams = { name: "ECDSA", namedCurve: "P-256" };
const SIGNING: webcrypto.EcdsaParams = { name: "ECDSA", hash: "SHA-256" };

function toPem(label: string, der: ArrayBuffer): string {
  const lines = Buffer.from(der).toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

export interface GeneratedKey {
  keys: webcrypto.CryptoKeyPair;
  keyPem: string;
  publicKeyPem: string;
}

async function withPems(keys: webcrypto.CryptoKeyPair): Promise<GeneratedKey> {
  return {
    keys,
    keyPem: toPem("PRIVATE KEY", await webcrypto.subtle.exportKey("pkcs8", keys.privateKey)),
    publicKeyPem: toPem("PUBLIC KEY", await webcrypto.subtle.exportKey("spki", keys.publicKey)),
  };
}

export async function generateKey(): Promise<GeneratedKey> {
  return withPems((await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair);
}

/** A P-256 key pair from its PKCS#8 PEM private key (written by `generateKey`). */
export async function importKey(keyPem: string): Promise<GeneratedKey> {
  const privateObject = createPrivateKey(keyPem);
  const privateKey = await webcrypto.subtle.importKey("pkcs8", privateObject.export({ format: "der", type: "pkcs8" }), KEY_ALGORITHM, true, ["sign"]);
  const spki = createPublicKey(privateObject).export({ format: "der", type: "spki" });
  const publicKey = await webcrypto.subtle.importKey("spki", spki, KEY_ALGORITHM, true, ["verify"]);
  return withPems({ privateKey, publicKey });
}

function subjectOf(user: string, groups: readonly string[]): X509.JsonName {
  return [...groups.map((g) => ({ O: [g] })), { CN: [user] }];
}

function subjectAltNames(hosts: readonly string[]): X509.SubjectAlternativeNameExtension {
  return new x509.SubjectAlternativeNameExtension(hosts.map((h) => (isIP(h) ? { type: "ip" as const, value: h } : { type: "dns" as const, value: h })));
}

/** A PEM certificate request for `user` in `groups`; with `hosts`, their DNS and IP subject alternative names. */
export async function certificateRequestPem(key: GeneratedKey, user: string, groups: readonly string[], hosts: readonly string[] = []): Promise<string> {
  const extensions = hosts.length > 0 ? [subjectAltNames(hosts)] : [];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subjectOf(user, groups), keys: key.keys, signingAlgorithm: SIGNING, extensions });
  return csr.toString("pem");
}

/** A self-signed serving certificate (one year) for `hosts` (IPs become IP SANs), CN `<host>@<unix time>`. */
export async function selfSignedServingCert(hosts: readonly string[]): Promise<{ certPem: string; keyPem: string }> {
  const key = await generateKey();
  const now = Date.now();
  const serial = Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)));
  serial[0] &= 0x7f;
  serial[0] ||= 1;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial.toString("hex"),
    name: [{ CN: [`${hosts[0] ?? "localhost"}@${Math.floor(now / 1000)}`] }],
    notBefore: new Date(now - 60 * 60 * 1000),
    notAfter: new Date(now + 365 * 24 * 60 * 60 * 1000),
    keys: key.keys,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      subjectAltNames(hosts),
    ],
  });
  return { certPem: cert.toString("pem"), keyPem: key.keyPem };
}
