/**
 * Reads the subject organizations out of a PEM PKCS#10 certificate request with a
 * minimal DER walker (CertificationRequest → CertificationRequestInfo → subject
 * Name → RDNs → AttributeTypeAndValue with type 2.5.4.10). Pure; errors are texts.
 */
interface Tlv {
  tag: number;
  start: number;
  end: number;
}

function readTlv(buf: Buffer, at: number, limit: number): Tlv {
  if (at + 2 > limit) throw new Error("truncated DER");
  const tag = buf[at];
  let len = buf[at + 1];
  let p = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || p + n > limit) throw new Error("bad DER length");
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[p + i];
    p += n;
  }
  if (p + len > limit) throw new Error("truncated DER");
  return { tag, start: p, end: p + len };
}

function children(buf: Buffer, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let p = parent.start; p < parent.end; ) {
    const t = readTlv(buf, p, parent.end);
    out.push(t);
    p = t.end;
  }
  return out;
}

const OID_ORGANIZATION = Buffer.from([0x55, 0x04, 0x0a]);

function decodeString(buf: Buffer, t: Tlv): string {
  const bytes = buf.subarray(t.start, t.end);
  if (t.tag === 0x1e) {
    let s = "";
    for (let i = 0; i + 1 < bytes.length; i += 2) s += String.fromCharCode(bytes[i] * 256 + bytes[i + 1]);
    return s;
  }
  return t.tag === 0x14 ? bytes.toString("latin1") : bytes.toString("utf8");
}

/** The O= values of the request's subject, or the reason it cannot be read. */
export function csrOrganizations(pem: string): string[] | { error: string } {
  const m = /-----BEGIN CERTIFICATE REQUEST-----([\s\S]*?)-----END CERTIFICATE REQUEST-----/.exec(pem);
  if (!m) return { error: "PEM block type must be CERTIFICATE REQUEST" };
  try {
    const der = Buffer.from(m[1].replace(/\s+/g, ""), "base64");
    const root = readTlv(der, 0, der.length);
    const info = children(der, root)[0];
    const subject = children(der, info)[1];
    if (root.tag !== 0x30 || info?.tag !== 0x30 || subject?.tag !== 0x30) throw new Error("not a certificate request");
    const out: string[] = [];
    for (const rdn of children(der, subject)) {
      for (const atv of children(der, rdn)) {
        const [type, value] = children(der, atv);
        if (type?.tag === 0x06 && value && der.subarray(type.start, type.end).equals(OID_ORGANIZATION)) out.push(decodeString(der, value));
      }
    }
    return out;
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}
