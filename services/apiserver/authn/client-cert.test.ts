import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCA, createClientCert, createServingCert, type CertificateAuthority } from "../server/certs.ts";
import { parseCertificateBundle, subjectNames, verifyClientChain } from "./cert-verify.ts";
import { defaultAuthenticationOptions } from "./options.ts";
import { clusterPki, startAuthServer, TempDir, type TestServer } from "./testing/harness.ts";

describe("client certificate authentication over HTTPS", () => {
  let srv: TestServer;
  let ca: CertificateAuthority;
  let other: CertificateAuthority;
  const dir = new TempDir();

  beforeAll(async () => {
    ca = (await clusterPki()).ca;
    other = await createCA({ commonName: "other-ca" });
    const opts = defaultAuthenticationOptions();
    opts.clientCaFile = dir.write("client-ca.crt", ca.certPem);
    opts.anonymousAuth = true;
    srv = await startAuthServer(opts);
  });
  afterAll(async () => {
    await srv.close();
    dir.remove();
  });

  it("authenticates CN as user and each O as a group, plus system:authenticated", async () => {
    const client = await createClientCert(ca, { user: "jane", groups: ["dev", "ops"] });
    const r = await srv.call({ client });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ username: "jane", groups: ["dev", "ops", "system:authenticated"] });
  });

  it("rejects a certificate of another authority with 401 (not anonymous)", async () => {
    const client = await createClientCert(other, { user: "mallory", groups: ["system:masters"] });
    const r = await srv.call({ client });
    expect(r.status).toBe(401);
    expect(r.body.reason).toBe("Unauthorized");
  });

  it("rejects an expired certificate", async () => {
    const client = await createClientCert(ca, { user: "old", validityDays: -1 });
    expect((await srv.call({ client })).status).toBe(401);
  });

  it("rejects a certificate whose key usage is for servers only", async () => {
    const serving = await createServingCert(ca, { commonName: "not-a-client" });
    expect((await srv.call({ client: serving })).status).toBe(401);
  });

  it("is anonymous without a certificate", async () => {
    const r = await srv.call();
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ username: "system:anonymous", groups: ["system:unauthenticated"] });
  });
});

describe("anonymous switched off", () => {
  it("answers 401 to a request without credentials", async () => {
    const opts = defaultAuthenticationOptions();
    opts.anonymousAuth = false;
    const srv = await startAuthServer(opts);
    try {
      expect((await srv.call()).status).toBe(401);
    } finally {
      await srv.close();
    }
  });

  it("is off by default when authorization always allows", async () => {
    const srv = await startAuthServer(defaultAuthenticationOptions(), { deps: { authorizationAlwaysAllow: true } });
    try {
      expect((await srv.call()).status).toBe(401);
    } finally {
      await srv.close();
    }
  });
});

describe("chain verification (pure)", () => {
  it("reads CN and O entries in order", async () => {
    const ca = (await clusterPki()).ca;
    const c = await createClientCert(ca, { user: "system:node:n1", groups: ["system:nodes", "a,b"] });
    const [cert] = parseCertificateBundle(c.certPem);
    expect(subjectNames(cert)).toEqual({ commonName: "system:node:n1", organizations: ["system:nodes", "a,b"] });
  });

  it("reads a certificate's names once (every request of a connection shares its parsed chain), handing each caller its own list", async () => {
    const ca = (await clusterPki()).ca;
    const [cert] = parseCertificateBundle((await createClientCert(ca, { user: "u", groups: ["g1", "g2"] })).certPem);
    const raw = cert.raw;
    let reads = 0;
    Object.defineProperty(cert, "raw", { get: () => (reads++, raw) });
    const first = subjectNames(cert);
    first.organizations.push("added by a caller");
    expect(subjectNames(cert)).toEqual({ commonName: "u", organizations: ["g1", "g2"] });
    expect(reads).toBe(1);
  });

  it("accepts a chain to a root of the bundle and refuses others", async () => {
    const ca = (await clusterPki()).ca;
    const other = await createCA();
    const [leaf] = parseCertificateBundle((await createClientCert(ca, { user: "u" })).certPem);
    const roots = parseCertificateBundle(other.certPem + ca.certPem);
    expect(verifyClientChain([leaf], roots).ok).toBe(true);
    expect(verifyClientChain([leaf], parseCertificateBundle(other.certPem)).ok).toBe(false);
    expect(verifyClientChain([leaf], roots, new Date(Date.now() + 400 * 86400_000)).ok).toBe(false);
    expect(verifyClientChain([], roots).ok).toBe(false);
  });

  it("throws on a bundle without certificates", () => {
    expect(() => parseCertificateBundle("nothing")).toThrow(/no certificate/);
  });
});
