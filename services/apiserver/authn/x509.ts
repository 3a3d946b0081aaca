/**
 * Client certificate authentication: a certificate the TLS layer verified against
 * the client CA authenticates as CN (username) with each O as a group. The server
 * requests but does not require a certificate.
 */
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import type { UserInfo } from "../endpoints/scope.ts";

function asList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** The user of a verified client certificate, or undefined when there is none. */
export function userFromClientCertificate(incoming: IncomingMessage | undefined): UserInfo | undefined {
  const socket = incoming?.socket as TLSSocket | undefined;
  if (!socket || typeof socket.getPeerCertificate !== "function" || !socket.authorized) return undefined;
  const cert = socket.getPeerCertificate();
  if (!cert || !cert.subject) return undefined;
  const cn = asList(cert.subject.CN)[0];
  if (!cn) return undefined;
  return { username: cn, groups: [...asList(cert.subject.O), "system:authenticated"] };
}
