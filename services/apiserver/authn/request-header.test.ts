import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCA, createClientCert, type CertificateAuthority, type KeyPairPem } from "../server/certs.ts";
import { RequestHeaders } from "./headers.ts";
import { defaultAuthenticationOptions } from "./options.ts";
import { userFromHeaders } from "./request-header.ts";
import { clusterPki, startAuthServer, TempDir, type TestServer } from "./testing/harness.ts";

const cfg = { usernameHeaders: ["X-Remote-User"], groupHeaders: ["X-Remote-Group"], extraHeaderPrefixes: ["X-Remote-Extra-"] };

describe("request headers to a user (pure)", () => {
  it("takes the first username header with a value, every group line, and extras", () => {
    const h = RequestHeaders.of({ "x-remote-user": "", "X-Other-User": "b", "X-Remote-Group": ["g1", "g2,g3"], "X-Remote-Extra-Scopes": ["a", "b"], "X-Remote-Extra-Example.com%2fTeam": "t" });
    expect(userFromHeaders(h, { ...cfg, usernameHeaders: ["X-Remote-User", "X-Other-User"] })).toEqual({
      username: "b",
      groups: ["g1", "g2,g3"],
      extra: { scopes: ["a", "b"], "example.com/team": ["t"] },
    });
  });
  it("has no user without a username header", () => {
    expect(userFromHeaders(RequestHeaders.of({ "X-Remote-Group": "g" }), cfg)).toBeUndefined();
  });
  it("keeps a key with a malformed escape as it is", () => {
    expect(userFromHeaders(RequestHeaders.of({ "X-Remote-User": "u", "X-Remote-Extra-a%zz": "v" }), cfg)?.extra).toEqual({ "a%zz": ["v"] });
  });
});

describe("authenticating proxy over HTTPS", () => {
  const dir = new TempDir();
  let srv: TestServer;
  let proxyCa: CertificateAuthority;
  let proxy: KeyPairPem;
  let clusterCa: CertificateAuthority;

  beforeAll(async () => {
    clusterCa = (await clusterPki()).ca;
    proxyCa = await createCA({ commonName: "front-proxy-ca" });
    proxy = await createClientCert(proxyCa, { user: "front-proxy" });
    const o = defaultAuthenticationOptions();
    o.clientCaFile = dir.write("client-ca.crt", clusterCa.certPem);
    o.requestHeader = {
      clientCaFile: dir.write("proxy-ca.crt", proxyCa.certPem),
      allowedNames: ["front-proxy"],
      usernameHeaders: ["X-Remote-User"],
      uidHeaders: [],
      groupHeaders: ["X-Remote-Group"],
      extraHeadersPrefix: ["X-Remote-Extra-"],
    };
    o.anonymousAuth = true;
    srv = await startAuthServer(o);
  });
  afterAll(async () => {
    await srv.close();
    dir.remove();
  });

  const headers = { "X-Remote-User": "alice", "X-Remote-Group": ["dev", "ops"], "X-Remote-Extra-Acme.com%2fProject": "p1" };

  it("trusts the headers from a proxy with a valid certificate", async () => {
    const r = await srv.call({ client: proxy, headers });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ username: "alice", groups: ["dev", "ops", "system:authenticated"], extra: { "acme.com/project": ["p1"] } });
  });

  it("ignores the headers without a proxy certificate", async () => {
    const r = await srv.call({ headers });
    expect(r.status).toBe(200);
    expect(r.body.username).toBe("system:anonymous");
  });

  it("ignores the headers from a normal client certificate (which authenticates as itself)", async () => {
    const client = await createClientCert(clusterCa, { user: "bob" });
    const r = await srv.call({ client, headers });
    expect(r.body.username).toBe("bob");
  });

  it("refuses a proxy certificate with a name that is not allowed", async () => {
    const other = await createClientCert(proxyCa, { user: "not-the-proxy" });
    expect((await srv.call({ client: other, headers })).status).toBe(401);
  });

  it("refuses a certificate of another authority presenting the headers", async () => {
    const forged = await createClientCert(await createCA(), { user: "front-proxy" });
    expect((await srv.call({ client: forged, headers })).status).toBe(401);
  });
});
