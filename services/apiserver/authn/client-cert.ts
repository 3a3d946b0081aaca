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
    chain = readPeerChain(socket);
    chainsByConnection.set(socket, chain);
  }
  return chain;
}

/** Chains already parsed, by the fingerprints of their certificates; oldest dropped beyond the bound. */
const chainsByFingerprints = new Map<string, readonly X509Certificate[]>();
const MAX_REMEMBERED_CHAINS = 1024;

/**
 * The peer's chain, parsed once per distinct chain rather than per connection: a
 * client opening many connections with one certificate (each list or watch of a
 * controller) gets the same frozen array, so its verdict is reused too.
 */
function readPeerChain(socket: TLSSocket): readonly X509Certificate[] {
  const raws: Buffer[] = [];
  const prints: string[] = [];
  let cert: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  while (cert && cert.raw && cert.raw.length > 0) {
    const print = cert.fingerprint256 || cert.raw.toString("base64");
    if (prints.includes(print)) break;
    prints.push(print);
    raws.push(cert.raw);
    cert = cert.issuerCertificate;
  }
  if (raws.length === 0) return NONE;
  const key = prints.join(",");
  const known = chainsByFingerprints.get(key);
  if (known) return known;
  const chain: X509Certificate[] = [];
  for (const raw of raws) {
    try {
      chain.push(new X509Certificate(raw));
    } catch {
      break;
    }
  }
  const frozen = Object.freeze(chain);
  if (chainsByFingerprints.size >= MAX_REMEMBERED_CHAINS) {
    const oldest = chainsByFingerprints.keys().next().value;
    if (oldest !== undefined) chainsByFingerprints.delete(oldest);
  }
  chainsByFingerprints.set(key, frozen);
  return frozen;
}

export class ClientCertAuthenticator implements Authenticator {
  readonly name = "x509";
  /** Verdicts per connection's chain, reused until a validity boundary passes. */
  readonly verdicts: ChainVerdicts;

  constructor(caBundlePem: string, private readonly now: () => Date = () => new Date()) {
    this.verdicts = new ChainVerdicts(parseCertificateBundle(caBundlePem, "client CA bundle"));
  }

  /** Synchronous: the chain's verdict is cached per chain, the names per certificate. */
  authenticate(req: AuthRequest): AuthResult {
    if (req.peerCertificates.length === 0) return NO_OPINION;
    const check = this.verdicts.verify(req.peerCertificates, this.now());
    if (!check.ok) throw unauthorized(`verifying certificate: ${check.reason ?? "invalid"}`);
    const names = subjectNames(req.peerCertificates[0]);
    if (!names.commonName) throw unauthorized("certificate has no common name");
    return { user: { username: names.commonName, groups: names.organizations } };
  }
}
