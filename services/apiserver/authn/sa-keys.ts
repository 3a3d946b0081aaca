/**
 * Service account keys: verification keys from PEM files
 * (`--service-account-key-file`, repeatable: public or private RSA/ECDSA keys
 * and certificates, several blocks per file) and the signing key
 * (`--service-account-signing-key-file`). The key id is the platform's:
 * base64url(SHA-256(DER of the public key)).
 */
import { createHash, createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from "node:crypto";

export interface ServiceAccountPublicKey {
  key: KeyObject;
  kid: string;
  /** Algorithms this key verifies. */
  algorithms: string[];
}

export interface ServiceAccountSigningKey {
  key: KeyObject;
  kid: string;
  alg: string;
}

export function keyId(publicKey: KeyObject): string {
  const der = publicKey.export({ type: "spki", format: "der" });
  return createHash("sha256").update(der).digest("base64url");
}

function algorithmsOf(key: KeyObject): string[] {
  if (key.asymmetricKeyType === "rsa") return ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"];
  if (key.asymmetricKeyType === "ec") {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === "prime256v1") return ["ES256"];
    if (curve === "secp384r1") return ["ES384"];
    if (curve === "secp521r1") return ["ES512"];
  }
  throw new Error(`unsupported service account key type ${key.asymmetricKeyType ?? "unknown"}${key.asymmetricKeyDetails?.namedCurve ? ` (${key.asymmetricKeyDetails.namedCurve})` : ""}`);
}

function signingAlgorithm(key: KeyObject): string {
  return algorithmsOf(key)[0];
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/** Every public key in a PEM text (private keys give their public half). */
export function parsePublicKeys(pem: string, source = "key file"): ServiceAccountPublicKey[] {
  const out: ServiceAccountPublicKey[] = [];
  for (const m of pem.matchAll(BLOCK)) {
    const label = m[1];
    const block = m[0];
    let key: KeyObject;
    try {
      if (label === "CERTIFICATE") key = new X509Certificate(block).publicKey;
      else if (label.includes("PRIVATE KEY")) key = createPublicKey(createPrivateKey(block));
      else if (label.includes("PUBLIC KEY")) key = createPublicKey(block);
      else continue;
    } catch (err) {
      throw new Error(`${source}: invalid ${label}: ${(err as Error).message}`, { cause: err });
    }
    out.push({ key, kid: keyId(key), algorithms: algorithmsOf(key) });
  }
  if (out.length === 0) throw new Error(`${source}: no public or private key found`);
  return out;
}

/** The first private key of a PEM text. */
export function parseSigningKey(pem: string, source = "signing key file"): ServiceAccountSigningKey {
  for (const m of pem.matchAll(BLOCK)) {
    if (!m[1].includes("PRIVATE KEY")) continue;
    let key: KeyObject;
    try {
      key = createPrivateKey(m[0]);
    } catch (err) {
      throw new Error(`${source}: invalid private key: ${(err as Error).message}`, { cause: err });
    }
    return { key, kid: keyId(createPublicKey(key)), alg: signingAlgorithm(key) };
  }
  throw new Error(`${source}: no private key found`);
}
