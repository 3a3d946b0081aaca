/**
 * Client certificate chain verification against a CA bundle, done here rather
 * than by the TLS layer: the server requests a certificate without requiring
 * one, and two different bundles (client CA, request-header CA) judge the
 * same chain. Also reads the subject's CN and O entries from the DER.
 *
 * A chain is valid when the leaf and every intermediate are within their
 * validity period, each certificate is signed by the next, intermediates and
 * the anchor are CAs, the anchor is one of the bundle's certificates, and the
 * leaf's extended key usage (if present) allows client authentication.
 */
import { X509Certificate } from "node:crypto";

const OID_CN = "2.5.4.3";
const OID_O = "2.5.4.10";
const EKU_CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
const EKU_ANY = "2.5.29.37.0";
const MAX_DEPTH = 10;

/** Parses every certificate of a PEM bundle; throws when there is none. */
export function parseCertificateBundle(pem: string, what = "certificate bundle"): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`${what}: no certificate found`);
  return blocks.map((b, i) => {
    try {
      return new X509Certificate(b);
    } catch (err) {
      throw new Error(`${what}: certificate ${i + 1} is invalid: ${(err as Error).message}`, { cause: err });
    }
  });
}

function within(cert: X509Certificate, now: Date): boolean {
  return new Date(cert.validFrom).getTime() <= now.getTime() && now.getTime() <= new Date(cert.validTo).getTime();
}

function signedBy(child: X509Certificate, parent: X509Certificate): boolean {
  try {
    return child.checkIssued(parent) && child.verify(parent.publicKey);
  } catch {
    return false;
  }
}

export interface ChainCheck {
  ok: boolean;
  /** Why it failed: safe to log (no certificate contents beyond the subject). */
  reason?: string;
}

/** Verifies `chain` (leaf first, then the intermediates the client sent) against `roots`. */
export function verifyClientChain(chain: readonly X509Certificate[], roots: readonly X509Certificate[], now = new Date()): ChainCheck {
  const leaf = chain[0];
  if (!leaf) return { ok: false, reason: "no client certificate" };
  if (!within(leaf, now)) return { ok: false, reason: "certificate has expired or is not yet valid" };
  const eku = leaf.keyUsage;
  if (eku && eku.length > 0 && !eku.includes(EKU_CLIENT_AUTH) && !eku.includes(EKU_ANY)) {
    return { ok: false, reason: "certificate specifies an incompatible key usage" };
  }
  const intermediates = chain.slice(1);
  let current = leaf;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const anchor = roots.find((r) => r.ca && within(r, now) && signedBy(current, r));
    if (anchor) return { ok: true };
    // A bundle may hold the leaf's own (self-signed) certificate as an anchor.
    if (depth === 0 && roots.some((r) => r.raw.equals(current.raw) && r.ca)) return { ok: true };
    const next = intermediates.find((c) => c !== current && c.ca && within(c, now) && signedBy(current, c));
    if (!next) break;
    current = next;
  }
  return { ok: false, reason: "certificate signed by unknown authority" };
}

// ---------------------------------------------------------------------------
// Subject names from DER

interface Tlv {
  tag: number;
  start: number;
  end: number;
}

function readTlv(buf: Buffer, offset: number): Tlv {
  const tag = buf[offset];
  let len = buf[offset + 1];
  let start = offset + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4) throw new Error("unsupported DER length");
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[start + i];
    start += n;
  }
  const end = start + len;
  if (end > buf.length || tag === undefined) throw new Error("truncated DER");
  return { tag, start, end };
}

function children(buf: Buffer, tlv: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let p = tlv.start; p < tlv.end; ) {
    const c = readTlv(buf, p);
    out.push(c);
    p = c.end;
  }
  return out;
}

function oid(buf: Buffer, t: Tlv): string {
  const bytes = buf.subarray(t.start, t.end);
  const parts: number[] = [Math.floor(bytes[0] / 40), bytes[0] % 40];
  let v = 0;
  for (let i = 1; i < bytes.length; i++) {
    v = v * 128 + (bytes[i] & 0x7f);
    if (!(bytes[i] & 0x80)) {
      parts.push(v);
      v = 0;
    }
  }
  return parts.join(".");
}

function decodeString(buf: Buffer, t: Tlv): string {
  const bytes = buf.subarray(t.start, t.end);
  switch (t.tag) {
    case 0x1e: {
      // BMPString: UCS-2 big endian
      const swapped = Buffer.from(bytes);
      swapped.swap16();
      return swapped.toString("utf16le");
    }
    case 0x14: // T61String, read as Latin-1
      return bytes.toString("latin1");
    default:
      return bytes.toString("utf8");
  }
}

export interface SubjectNames {
  commonName?: string;
  organizations: string[];
}

/** Names read per certificate object: a connection's chain is parsed once and shared (client-cert.ts), so every request on it reads the same object. */
const namesOf = new WeakMap<X509Certificate, SubjectNames>();

/** CN and the O entries (in order) of a certificate's subject; the result is the caller's own (a fresh list each call). */
export function subjectNames(cert: X509Certificate): SubjectNames {
  let names = namesOf.get(cert);
  if (!names) namesOf.set(cert, (names = readSubjectNames(cert)));
  return { ...names, organizations: [...names.organizations] };
}

function readSubjectNames(cert: X509Certificate): SubjectNames {
  const der = cert.raw;
  const certSeq = readTlv(der, 0);
  const tbs = children(der, certSeq)[0];
  let fields = children(der, tbs);
  if (fields[0]?.tag === 0xa0) fields = fields.slice(1); // explicit version
  // serialNumber, signature, issuer, validity, subject
  const subject = fields[4];
  const out: SubjectNames = { organizations: [] };
  if (!subject) return out;
  for (const rdn of children(der, subject)) {
    for (const atv of children(der, rdn)) {
      const [type, value] = children(der, atv);
      if (!type || !value) continue;
      const id = oid(der, type);
      if (id === OID_CN) out.commonName = decodeString(der, value); // the last CN wins, as the platform reads names
      else if (id === OID_O) out.organizations.push(decodeString(der, value));
    }
  }
  return out;
}
