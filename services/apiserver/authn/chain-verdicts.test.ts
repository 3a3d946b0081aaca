import { X509Certificate } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { Agent, request } from "node:https";
import type { AddressInfo } from "node:net";
import { connect as tlsConnect, createServer as createTlsServer } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCA, createClientCert, createServingCert, type CertificateAuthority, type KeyPairPem } from "../server/certs.ts";
import { ChainVerdicts } from "./chain-verdicts.ts";
import { peerCertificatesOf } from "./client-cert.ts";
import { defaultAuthenticationOptions } from "./options.ts";
import { clusterPki, startAuthServer, TempDir, type TestServer } from "./testing/harness.ts";

const DAY = 24 * 60 * 60 * 1000;

describe("chain verdicts", () => {
  let ca: CertificateAuthority;
  let other: CertificateAuthority;
  beforeAll(async () => {
    ca = await createCA({ commonName: "verdict-ca" });
    other = await createCA({ commonName: "verdict-other" });
  });

  it("reuses a verdict for the same chain until a validity boundary passes, and verifies again across it", async () => {
    const client = await createClientCert(ca, { user: "jane", validityDays: 2 });
    const leaf = new X509Certificate(client.certPem);
    const chain = Object.freeze([leaf]);
    const verdicts = new ChainVerdicts([new X509Certificate(ca.certPem)]);
    const now = Date.now();
    const expiry = Date.parse(leaf.validTo);

    const table: Array<[string, number, boolean, number]> = [
      ["first use verifies", now, true, 1],
      ["same chain a minute later reuses", now + 60_000, true, 1],
      ["at notAfter still valid, reused", expiry, true, 1],
      ["just after notAfter verifies again: expired", expiry + 1, false, 2],
      ["a day later reuses the expired verdict", expiry + DAY, false, 2],
      ["clock back before the boundary verifies again", now, true, 3],
    ];
    for (const [what, t, ok, computed] of table) {
      const check = verdicts.verify(chain, new Date(t));
      expect([what, check.ok, verdicts.computed]).toEqual([what, ok, computed]);
    }
    expect(verdicts.verify(chain, new Date(expiry + 1)).reason).toBe("certificate has expired or is not yet valid");
  });

  it("keys verdicts by chain array: another array is verified on its own", async () => {
    const good = new X509Certificate((await createClientCert(ca, { user: "a" })).certPem);
    const foreign = new X509Certificate((await createClientCert(other, { user: "b" })).certPem);
    const verdicts = new ChainVerdicts([new X509Certificate(ca.certPem)]);
    const t = new Date();
    expect(verdicts.verify([good], t).ok).toBe(true);
    expect(verdicts.verify([foreign], t)).toEqual({ ok: false, reason: "certificate signed by unknown authority" });
    expect(verdicts.computed).toBe(2);
  });

  it("a root's expiry is a boundary too", async () => {
    const shortCa = await createCA({ commonName: "short-ca", validityDays: 1 });
    const leaf = new X509Certificate((await createClientCert(shortCa, { user: "c", validityDays: 30 })).certPem);
    const root = new X509Certificate(shortCa.certPem);
    const verdicts = new ChainVerdicts([root]);
    const chain = [leaf];
    expect(verdicts.verify(chain, new Date()).ok).toBe(true);
    expect(verdicts.verify(chain, new Date(Date.parse(root.validTo) + 1)).ok).toBe(false);
    expect(verdicts.computed).toBe(2);
  });
});

describe("client certificates per connection over HTTPS", () => {
  let srv: TestServer;
  let ca: CertificateAuthority;
  const dir = new TempDir();

  beforeAll(async () => {
    ca = (await clusterPki()).ca;
    const opts = defaultAuthenticationOptions();
    opts.clientCaFile = dir.write("client-ca.crt", ca.certPem);
    opts.anonymousAuth = true;
    srv = await startAuthServer(opts);
  });
  afterAll(async () => {
    await srv.close();
    dir.remove();
  });

  function whoami(agent: Agent): Promise<{ user: unknown; port: number | undefined }> {
    return new Promise((resolve, reject) => {
      const req = request(new URL("/whoami", srv.url), { agent, ca: srv.ca.certPem, headers: { accept: "application/json" } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ user: JSON.parse(Buffer.concat(chunks).toString("utf8")), port: res.socket?.localPort }));
      });
      req.on("error", reject);
      req.end();
    });
  }

  it("every request of a kept-alive connection is its certificate's user; another connection is its own", async () => {
    const jane = await createClientCert(ca, { user: "jane", groups: ["dev"] });
    const joe = await createClientCert(ca, { user: "joe" });
    const janeAgent = new Agent({ keepAlive: true, maxSockets: 1, cert: jane.certPem, key: jane.keyPem });
    const joeAgent = new Agent({ keepAlive: true, maxSockets: 1, cert: joe.certPem, key: joe.keyPem });
    try {
      const first = await whoami(janeAgent);
      const second = await whoami(janeAgent);
      expect(second.port).toBe(first.port);
      for (const r of [first, second]) expect(r.user).toEqual({ username: "jane", groups: ["dev", "system:authenticated"] });
      expect((await whoami(joeAgent)).user).toEqual({ username: "joe", groups: ["system:authenticated"] });
      expect((await whoami(janeAgent)).user).toEqual({ username: "jane", groups: ["dev", "system:authenticated"] });
    } finally {
      janeAgent.destroy();
      joeAgent.destroy();
    }
  });
});

describe("client certificate chains across connections", () => {
  it("connections presenting the same chain share one parsed chain (and so one verdict); another certificate gets its own", async () => {
    const ca = await createCA({ commonName: "shared-chain-ca" });
    const serving = await createServingCert(ca, { hosts: ["127.0.0.1"] });
    const jane = await createClientCert(ca, { user: "jane" });
    const joe = await createClientCert(ca, { user: "joe" });
    const chains: (readonly X509Certificate[])[] = [];
    const server = createTlsServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false }, (socket) => {
      chains.push(peerCertificatesOf({ socket } as unknown as IncomingMessage));
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    const connectAs = (pair: KeyPairPem) =>
      new Promise<void>((resolve, reject) => {
        const socket = tlsConnect({ host: "127.0.0.1", port, ca: ca.certPem, cert: pair.certPem, key: pair.keyPem }, () => socket.resume());
        socket.on("end", () => (socket.destroy(), resolve()));
        socket.on("error", reject);
      });
    try {
      await connectAs(jane);
      await connectAs(jane);
      await connectAs(joe);
    } finally {
      server.close();
    }
    expect(chains).toHaveLength(3);
    expect(chains[0].length).toBeGreaterThan(0);
    expect(chains[1]).toBe(chains[0]);
    expect(chains[2]).not.toBe(chains[0]);
    expect(chains[2][0].subject).toContain("CN=joe");
  });
});
