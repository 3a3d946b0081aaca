/**
 * `--tls-min-version` and `--tls-cipher-suites`: the name mapping as a table, then
 * real TLS clients against replicas that offer only refused suites or versions.
 */
import { connect, type ConnectionOptions } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../../../test/support/apiserver.ts";
import { createCA, createServingCert, type CertificateAuthority, type KeyPairPem } from "./certs.ts";
import { tlsServerOptions, type TlsFlags } from "./tls-options.ts";

describe("TLS flags", () => {
  it("defaults to TLS 1.2 and the platform's secure suites", () => {
    const o = tlsServerOptions();
    expect(o.minVersion).toBe("TLSv1.2");
    expect(o.handshakeTimeout).toBe(32_000);
    const suites = String(o.ciphers).split(":");
    expect(suites).toContain("ECDHE-ECDSA-AES128-GCM-SHA256");
    expect(suites).toContain("ECDHE-RSA-CHACHA20-POLY1305");
    expect(suites).toContain("ECDHE-ECDSA-AES256-SHA");
    expect(suites.filter((s) => /SHA256$|SHA384$/.test(s) && /CBC|-AES\d+-SHA\d+$/.test(s) && !s.includes("GCM"))).toEqual([]);
    expect(suites.filter((s) => /CCM|ARIA|^AES|^DES|RC4/.test(s))).toEqual([]);
  });

  it.each<[TlsFlags, string | RegExp]>([
    [{ minVersion: "VersionTLS13" }, "TLSv1.3"],
    [{ minVersion: "VersionTLS10" }, "TLSv1"],
    [{ minVersion: "VersionTLS11" }, "TLSv1.1"],
    [{ minVersion: "TLSv1.2" }, /^unknown tls version "TLSv1.2"$/],
    [{ cipherSuites: ["TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256x"] }, /^Cipher suite TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256x not supported or doesn't exist$/],
    [{ cipherSuites: ["ECDHE-ECDSA-AES128-GCM-SHA256"] }, /^Cipher suite ECDHE-ECDSA-AES128-GCM-SHA256 not supported/],
    [{ minVersion: "VersionTLS13", cipherSuites: ["TLS_AES_128_GCM_SHA256"] }, /cipher suites may not be specified when --tls-min-version is 'VersionTLS13'/],
  ])("%j → %s", (flags, expected) => {
    if (typeof expected === "string") expect(tlsServerOptions(flags).minVersion).toBe(expected);
    else expect(() => tlsServerOptions(flags)).toThrow(expected);
  });

  it("maps the platform's names to OpenSSL names, keeping TLS 1.3 suites always on", () => {
    const o = tlsServerOptions({ cipherSuites: ["TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "TLS_AES_128_GCM_SHA256"] });
    expect(o.ciphers).toBe("TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-SHA256");
  });
});

/** Resolves with the negotiated version and suite, or rejects with the handshake error. */
function handshake(port: number, ca: string, o: ConnectionOptions): Promise<{ version: string | null; cipher: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, ca, ...o }, () => {
      const out = { version: socket.getProtocol(), cipher: socket.getCipher().name };
      socket.destroy();
      resolve(out);
    });
    socket.on("error", (err) => {
      socket.destroy();
      reject(err);
    });
  });
}

describe("TLS handshakes against a replica", () => {
  let ca: CertificateAuthority;
  let serving: KeyPairPem;
  const started: TestApiserver[] = [];

  /** A replica serving this file's certificate with the given TLS flags. */
  async function replicaWith(flags: TlsFlags): Promise<TestApiserver["replica"]> {
    const api = await startTestApiserver({ tls: { key: serving.keyPem, cert: serving.certPem, ...flags } });
    started.push(api);
    return api.replica;
  }

  beforeAll(async () => {
    ca = await createCA({ commonName: "tls-test-ca" });
    serving = await createServingCert(ca);
  });

  afterAll(async () => {
    for (const api of started) await api.close();
  });

  it("refuses clients that offer only CBC-SHA256/384 or CCM suites, or only TLS 1.1 or 1.0", async () => {
    const r = await replicaWith({});
    const tls12 = { minVersion: "TLSv1.2", maxVersion: "TLSv1.2" } as const;
    await expect(handshake(r.port, ca.certPem, { ...tls12, ciphers: "ECDHE-ECDSA-AES128-GCM-SHA256" })).resolves.toEqual({ version: "TLSv1.2", cipher: "ECDHE-ECDSA-AES128-GCM-SHA256" });
    for (const refused of ["ECDHE-ECDSA-AES128-SHA256", "ECDHE-ECDSA-AES256-SHA384", "ECDHE-ECDSA-AES128-CCM", "ECDHE-ECDSA-AES128-CCM8"]) {
      await expect(handshake(r.port, ca.certPem, { ...tls12, ciphers: refused }), refused).rejects.toThrow(/alert handshake failure/);
    }
    for (const old of ["TLSv1.1", "TLSv1"] as const) {
      await expect(handshake(r.port, ca.certPem, { minVersion: old, maxVersion: old, ciphers: "DEFAULT@SECLEVEL=0" }), old).rejects.toThrow(/alert protocol version/);
    }
    await expect(handshake(r.port, ca.certPem, { minVersion: "TLSv1.3" })).resolves.toMatchObject({ version: "TLSv1.3" });
  });

  it("serves only the configured suites, and only TLS 1.3 with --tls-min-version=VersionTLS13", async () => {
    const r = await replicaWith({ cipherSuites: ["TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"] });
    const tls12 = { minVersion: "TLSv1.2", maxVersion: "TLSv1.2" } as const;
    await expect(handshake(r.port, ca.certPem, { ...tls12, ciphers: "ECDHE-ECDSA-AES256-GCM-SHA384" })).resolves.toMatchObject({ cipher: "ECDHE-ECDSA-AES256-GCM-SHA384" });
    await expect(handshake(r.port, ca.certPem, { ...tls12, ciphers: "ECDHE-ECDSA-AES128-GCM-SHA256" })).rejects.toThrow(/alert handshake failure/);

    const only13 = await replicaWith({ minVersion: "VersionTLS13" });
    await expect(handshake(only13.port, ca.certPem, tls12)).rejects.toThrow(/alert protocol version/);
    await expect(handshake(only13.port, ca.certPem, {})).resolves.toMatchObject({ version: "TLSv1.3" });
  });

  it("does not start with an unknown suite or version", async () => {
    await expect(replicaWith({ cipherSuites: ["TLS_FANCY_NEW_SUITE"] })).rejects.toThrow("Cipher suite TLS_FANCY_NEW_SUITE not supported or doesn't exist");
    await expect(replicaWith({ minVersion: "VersionTLS14" })).rejects.toThrow('unknown tls version "VersionTLS14"');
  });
});
