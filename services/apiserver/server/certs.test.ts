import { X509Certificate, createPrivateKey, createPublicKey, sign, verify } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { createServer, request, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { getProfile } from "../../../shared/platform/index.ts";
import {
  apiServiceDnsNames,
  certificateCovers,
  createCA,
  createClientCert,
  createServingCert,
  ensurePki,
  kubeconfigYaml,
  writeAdminKubeconfig,
  type Pki,
} from "./certs.ts";

const profile = getProfile("plat");

interface Seen {
  authorized: boolean;
  cn: string | undefined;
  o: string | string[] | undefined;
}

/** A real TLS server that reports what it saw of the client certificate. */
async function startServer(pki: Pki): Promise<{ server: Server; port: number }> {
  const server = createServer({ key: pki.serving.keyPem, cert: pki.serving.certPem, ca: pki.ca.certPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const socket = req.socket as TLSSocket;
    const peer = socket.getPeerCertificate();
    const seen: Seen = { authorized: socket.authorized, cn: peer?.subject?.CN as string | undefined, o: peer?.subject?.O };
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(seen));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

function get(port: number, opts: { ca: string; cert?: string; key?: string; servername?: string }): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path: "/", method: "GET", ca: opts.ca, cert: opts.cert, key: opts.key, servername: opts.servername, agent: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve(JSON.parse(body) as Seen));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("ensurePki over real TLS", () => {
  let dir: string;
  let pki: Pki;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pki-test-"));
    pki = await ensurePki(dir, { profile, extraSans: ["api.internal.example", "10.0.0.1"] });
    ({ server, port } = await startServer(pki));
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  it("the server sees the admin's CN and O, verified against the CA", async () => {
    const seen = await get(port, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
    expect(seen).toEqual({ authorized: true, cn: "admin", o: "system:masters" });
  });

  it("passes the hostname check for 127.0.0.1 and localhost", async () => {
    await expect(get(port, { ca: pki.ca.certPem })).resolves.toMatchObject({ authorized: false });
    await expect(get(port, { ca: pki.ca.certPem, servername: "localhost" })).resolves.toBeDefined();
    await expect(get(port, { ca: pki.ca.certPem, servername: `${profile.apiServiceName}.default.svc` })).resolves.toBeDefined();
  });

  it("fails the hostname check for a name not in the certificate", async () => {
    await expect(get(port, { ca: pki.ca.certPem, servername: "elsewhere.example" })).rejects.toMatchObject({ code: "ERR_TLS_CERT_ALTNAME_INVALID" });
  });

  it("fails without the CA", async () => {
    const other = await createCA();
    await expect(get(port, { ca: other.certPem })).rejects.toMatchObject({ code: expect.stringMatching(/^(SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)$/) });
  });

  it("a client certificate from another CA is seen but not authorized", async () => {
    const other = await createCA();
    const stranger = await createClientCert(other, { user: "mallory", groups: ["system:masters"] });
    const seen = await get(port, { ca: pki.ca.certPem, cert: stranger.certPem, key: stranger.keyPem });
    expect(seen.authorized).toBe(false);
  });

  it("the serving certificate names loopback, the API service and extra SANs", () => {
    const cert = new X509Certificate(pki.serving.certPem);
    for (const ip of ["127.0.0.1", "::1", "10.0.0.1"]) expect(cert.checkIP(ip), ip).toBe(ip);
    for (const host of ["localhost", "api.internal.example", ...apiServiceDnsNames(profile)]) expect(cert.checkHost(host), host).toBe(host);
    expect(cert.checkHost("other.example")).toBeUndefined();
    expect(cert.checkIssued(new X509Certificate(pki.ca.certPem))).toBe(true);
    expect(cert.verify(new X509Certificate(pki.ca.certPem).publicKey)).toBe(true);
    expect(cert.ca).toBe(false);
  });

  it("the CA is a CA with certSign", () => {
    const ca = new X509Certificate(pki.ca.certPem);
    expect(ca.ca).toBe(true);
    expect(ca.checkIssued(ca)).toBe(true);
    expect(ca.subject).toBe(`CN=${profile.apiServiceName}-ca`);
  });

  it("writes the files with private keys at mode 0600", async () => {
    for (const p of [pki.paths.caKey, pki.paths.servingKey, pki.paths.adminKey, pki.paths.serviceAccountKey]) {
      expect((await stat(p)).mode & 0o777, p).toBe(0o600);
    }
    for (const p of [pki.paths.caCert, pki.paths.servingCert, pki.paths.adminCert, pki.paths.serviceAccountPub]) {
      expect((await readFile(p, "utf8")).startsWith("-----BEGIN "), p).toBe(true);
    }
    expect(pki.created).toHaveLength(8);
  });

  it("reuses every file on the second call", async () => {
    const again = await ensurePki(dir, { profile, extraSans: ["api.internal.example", "10.0.0.1"] });
    expect(again.created).toEqual([]);
    expect(again.ca).toEqual(pki.ca);
    expect(again.serving).toEqual(pki.serving);
    expect(again.admin).toEqual(pki.admin);
    expect(again.serviceAccount).toEqual(pki.serviceAccount);
  });

  it("reissues only the serving certificate when a new SAN is asked for", async () => {
    const more = await ensurePki(dir, { profile, extraSans: ["api.internal.example", "10.0.0.1", "new.example"] });
    expect(more.created).toEqual([more.paths.servingKey, more.paths.servingCert]);
    expect(more.ca).toEqual(pki.ca);
    expect(more.admin).toEqual(pki.admin);
    expect(new X509Certificate(more.serving.certPem).checkHost("new.example")).toBe("new.example");
  });

  it("the service-account key signs and its public key verifies", () => {
    const data = Buffer.from("payload");
    const sig = sign("sha256", data, createPrivateKey(pki.serviceAccount.privateKeyPem));
    expect(verify("sha256", data, createPublicKey(pki.serviceAccount.publicKeyPem), sig)).toBe(true);
    expect(verify("sha256", Buffer.from("other"), createPublicKey(pki.serviceAccount.publicKeyPem), sig)).toBe(false);
  });
});

describe("client certificates", () => {
  it("carry one O per group and CN = user", async () => {
    const ca = await createCA();
    const c = await createClientCert(ca, { user: "system:node:n1", groups: ["system:nodes", "team,a"] });
    const cert = new X509Certificate(c.certPem);
    expect(cert.subject.split("\n")).toEqual(["O=system:nodes", "O=team\\,a", "CN=system:node:n1"]);
    expect(cert.checkIssued(new X509Certificate(ca.certPem))).toBe(true);
    expect(cert.keyUsage).toEqual(["1.3.6.1.5.5.7.3.2"]);
  });

  it("certificateCovers checks names and expiry", async () => {
    const ca = await createCA();
    const s = await createServingCert(ca, { hosts: ["a.example"] });
    expect(certificateCovers(s.certPem, ["a.example", "127.0.0.1", "localhost"])).toBe(true);
    expect(certificateCovers(s.certPem, ["b.example"])).toBe(false);
    expect(certificateCovers(s.certPem, [], new Date(Date.now() + 400 * 24 * 3600 * 1000))).toBe(false);
  });
});

describe("kubeconfig", () => {
  const params = {
    server: "https://127.0.0.1:6443",
    caPem: "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n",
    certPem: "-----BEGIN CERTIFICATE-----\nC\n-----END CERTIFICATE-----\n",
    keyPem: "-----BEGIN PRIVATE KEY-----\nK\n-----END PRIVATE KEY-----\n",
    user: "admin",
    clusterName: "local",
    contextName: "admin@local",
  };

  it("has the client configuration shape with base64 data", () => {
    const doc = parse(kubeconfigYaml(params)) as Record<string, unknown>;
    const b = (s: string): string => Buffer.from(s).toString("base64");
    expect(doc).toEqual({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "local", cluster: { server: "https://127.0.0.1:6443", "certificate-authority-data": b(params.caPem) } }],
      users: [{ name: "admin", user: { "client-certificate-data": b(params.certPem), "client-key-data": b(params.keyPem) } }],
      contexts: [{ name: "admin@local", context: { cluster: "local", user: "admin" } }],
      "current-context": "admin@local",
      preferences: {},
    });
  });

  it("is written with mode 0600", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kubeconfig-test-"));
    try {
      const path = join(dir, "sub", "admin.kubeconfig");
      await writeAdminKubeconfig(path, params);
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect(await readFile(path, "utf8")).toBe(kubeconfigYaml(params));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
