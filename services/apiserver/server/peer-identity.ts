/**
 * The client-certificate user of a TLS connection, read once per connection.
 *
 * Contract: what `userFromClientCertificate` reads (the peer certificate's subject
 * and the handshake's `authorized` verdict) is fixed for the life of a connection:
 * the replica's TLS server refuses renegotiation (`NO_RENEGOTIATION_SECURE_OPTIONS`;
 * TLS 1.3 has none), so no later handshake can present another certificate.
 * The first request of a connection decides for all of them; entries are keyed
 * by the socket object and go away with it. Reading the certificate costs tens of
 * microseconds per call (it converts the whole certificate to a JS object).
 */
import type { IncomingMessage } from "node:http";
import { constants } from "node:crypto";
import { userFromClientCertificate } from "../authn/x509.ts";
import type { UserInfo } from "../endpoints/scope.ts";

/** `secureOptions` for the replica's TLS server: renegotiation is refused. */
export const NO_RENEGOTIATION_SECURE_OPTIONS = constants.SSL_OP_NO_RENEGOTIATION;

const byConnection = new WeakMap<object, { user: UserInfo | undefined }>();

/** The user of the connection's verified client certificate (undefined: none); a fresh copy per call. */
export function connectionCertificateUser(incoming: IncomingMessage | undefined): UserInfo | undefined {
  const socket = incoming?.socket;
  if (!socket) return userFromClientCertificate(incoming);
  let entry = byConnection.get(socket);
  if (!entry) {
    entry = { user: userFromClientCertificate(incoming) };
    byConnection.set(socket, entry);
  }
  const user = entry.user;
  return user && { username: user.username, groups: [...user.groups] };
}
