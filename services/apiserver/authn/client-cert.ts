/**
 * Client certificate authentication (`--client-ca-file`): a chain that
 * verifies against the bundle authenticates as the subject's CN with each O as
 * a group. No certificate: no opinion. A certificate that does not verify is
 * an error, so that a request holding nothing else fails with 401 rather than
 * becoming anonymous; another method may still succeed.
 */
import { X509Certificate } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { TLSSocket, DetailedPeerCertificate } from "node:tls";
import { unauthorized } from "../../../shared/api/status.ts";
import { parseCertificateBundle, subjectNames, verifyClientChain } from "./cert-verify.ts";
import { NO_OPINION, type AuthRequest, type AuthResult, type Authenticator } from "./types.ts";

/** The chain the client presented (leaf first), read from the TLS socket; empty without TLS or certificate. */
export function peerCertificatesOf(incoming: IncomingMessage | undefined): X509Certificate[] {
  const socket = incoming?.socket as TLSSocket | undefined;
  if (!socket || typeof socket.getPeerCertificate !== "function") return [];
  const out: X509Certificate[] = [];
  let cert: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  const seen = new Set<string>();
  while (cert && cert.raw && cert.raw.length > 0) {
    const key = cert.raw.toString("base64");
    if (seen.has(key)) break;
    seen.add(key);
    try {
      out.push(new X509Certificate(cert.raw));
    } catch {
      break;
    }
    cert = cert.issuerCertificate;
  }
  return out;
}

export class ClientCertAuthenticator implements Authenticator {
  readonly name = "x509";
  private readonly roots: X509Certificate[];

  constructor(caBundlePem: string, private readonly now: () => Date = () => new Date()) {
    this.roots = parseCertificateBundle(caBundlePem, "client CA bundle");
  }

  async authenticate(req: AuthRequest): Promise<AuthResult> {
    if (req.peerCertificates.length === 0) return NO_OPINION;
    const check = verifyClientChain(req.peerCertificates, this.roots, this.now());
    if (!check.ok) throw unauthorized(`verifying certificate: ${check.reason ?? "invalid"}`);
    const names = subjectNames(req.peerCertificates[0]);
    if (!names.commonName) throw unauthorized("certificate has no common name");
    return { user: { username: names.commonName, groups: names.organizations } };
  }
}
