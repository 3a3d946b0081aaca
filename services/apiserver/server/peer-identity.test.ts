import { mkdtemp, rm } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensurePki, type Pki } from "./certs.ts";
import { connectionCertificateUser, NO_RENEGOTIATION_SECURE_OPTIONS } from "./peer-identity.ts";

/** A stand-in for a verified TLS socket that counts certificate reads. */
function fakeConnection(cn: string, orgs: string[]): { incoming: IncomingMessage; reads: () => number } {
  let reads = 0;
  const socket = {
    authorized: true,
    getPeerCertificate() {
      reads++;
      return { subject: { CN: cn, O: orgs } };
    },
  };
  return { incoming: { socket } as unknown as IncomingMessage, reads: () => reads };
}

describe("connectionCertificateUser", () => {
  it("reads the certificate once per connection and answers the same user on every request", () => {
    const a = fakeConnection("alice", ["devs"]);
    const first = connectionCertificateUser(a.incoming);
    const second = connectionCertificateUser(a.incoming);
    expect(first).toEqual({ username: "alice", groups: ["devs", "system:authenticated"] });
    expect(second).toEqual(first);
    expect(a.reads()).toBe(1);
  });

  it("keeps connections apart and hands out copies", () => {
    const a = fakeConnection("alice", []);
    const b = fakeConnection("bob", ["ops"]);
    const fromA = connectionCertificateUser(a.incoming);
    fromA?.groups.push("system:masters");
    expect(connectionCertificateUser(b.incoming)?.username).toBe("bob");
    expect(connectionCertificateUser(a.incoming)).toEqual({ username: "alice", groups: ["system:authenticated"] });
  });

  it("has no user without a verified certificate", () => {
    const socket = { authorized: false, getPeerCertificate: () => ({ subject: { CN: "mallory" } }) };
    expect(connectionCertificateUser({ socket } as unknown as IncomingMessage)).toBeUndefined();
    expect(connectionCertificateUser(undefined)).toBeUndefined();
  });
});

describe("renegotiation", () => {
  let dir: string;
  let pki: Pki;
  let server: Server;
  let port: number;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "peer-identity-"));
    pki = await ensurePki(dir);
    server = createServer({ key: pki.serving.keyPem, cert: pki.serving.certPem, ca: pki.ca.certPem, requestCert: true, rejectUnauthorized: false, secureOptions: NO_RENEGOTIATION_SECURE_OPTIONS }, (_req, res) => res.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  it("is refused, so a connection cannot swap its client certificate", async () => {
    const socket: TLSSocket = connect({ host: "127.0.0.1", port, ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem, servername: "localhost", maxVersion: "TLSv1.2" });
    await new Promise<void>((resolve, reject) => {
      socket.once("secureConnect", () => resolve());
      socket.once("error", reject);
    });
    const outcome = await new Promise<string>((resolve) => {
      socket.on("error", (err) => resolve(`error: ${err.message}`));
      socket.on("close", () => resolve("closed"));
      socket.renegotiate({ rejectUnauthorized: false }, (err) => resolve(err ? `error: ${err.message}` : "renegotiated"));
    });
    socket.destroy();
    expect(outcome).not.toBe("renegotiated");
  });
});
