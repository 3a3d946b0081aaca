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
import { parseCertificateBundle, subjectNames } from "./cert-verify.ts";
import { ChainVerdicts } from "./chain-verdicts.ts";
import { NO_OPINION, type AuthRequest, type AuthResult, type Authenticator } from "./types.ts";

const NONE: readonly X509Certificate[] = Object.freeze([]);
/** One chain array per TLS connection: the replica refuses renegotiation, so it cannot change. */
const chainsByConnection = new WeakMap<object, readonly X509Certificate[]>();

/**
 * The chain the client presented (leaf first), read from the TLS socket once per
 * connection; the same frozen array for every request of that connection, empty
 * without TLS or certificate.
 */
export function peerCertificatesOf(incoming: IncomingMessage | undefined): readonly X509Certificate[] {
  const socket = incoming?.socket as TLSSocket | undefined;
  if (!socket || typeof socket.getPeerCertificate !== "function") return NONE;
  let chain = chainsByConnection.get(socket);
  if (!chain) {
    chain = Object.freeze(readPeerChain(socket));
    chainsByConnection.set(socket, chain);
  }
  return chain;
}

function readPeerChain(socket: TLSSocket): X509Certificate[] {
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
  /** Verdicts per connection's chain, reused until a validity boundary passes. */
  readonly verdicts: ChainVerdicts;

  constructor(caBundlePem: string, private readonly now: () => Date = () => new Date()) {
    this.verdicts = new ChainVerdicts(parseCertificateBundle(caBundlePem, "client CA bundle"));
  }

  async authenticate(req: AuthRequest): Promise<AuthResult> {
    if (req.peerCertificates.length === 0) return NO_OPINION;
    const check = this.verdicts.verify(req.peerCertificates, this.now());
    if (!check.ok) throw unauthorized(`verifying certificate: ${check.reason ?? "invalid"}`);
    const names = subjectNames(req.peerCertificates[0]);
    if (!names.commonName) throw unauthorized("certificate has no common name");
    return { user: { username: names.commonName, groups: names.organizations } };
  }
}
