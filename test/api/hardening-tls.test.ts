/**
 * The shared TLS flags (shared/tls/options.ts) as any service's HTTPS server uses
 * them: parsed from a command line with the shared flag table, applied to a real
 * node HTTPS server on 127.0.0.1, probed by real TLS clients. With
 * --tls-min-version=VersionTLS13 a client offering only TLS 1.2 is refused; bad
 * values are one-line start-up errors naming the value.
 */
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { connect, type ConnectionOptions } from "node:tls";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseFlagSet } from "../../shared/cli/flags.ts";
import { TLS_FLAG_SPECS, tlsFlagsFrom, tlsServerOptions } from "../../shared/tls/options.ts";
import { createCA, createServingCert, type CertificateAuthority, type KeyPairPem } from "../../services/apiserver/server/certs.ts";

let ca: CertificateAuthority;
let serving: KeyPairPem;
let server: Server | undefined;

beforeAll(async () => {
  ca = await createCA({ commonName: "shared-tls-test-ca" });
  serving = await createServingCert(ca);
});

afterEach(async () => {
  const s = server;
  server = undefined;
  if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
});

/** Options of a service started with `args`, as its main would compute them. */
function optionsFor(args: string[]) {
  return tlsServerOptions(tlsFlagsFrom(parseFlagSet(args, { ...TLS_FLAG_SPECS }).values));
}

async function serve(args: string[]): Promise<number> {
  const s = createServer({ key: serving.keyPem, cert: serving.certPem, ...optionsFor(args) }, (_req, res) => res.end("ok"));
  server = s;
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  return (s.address() as AddressInfo).port;
}

function handshake(port: number, o: ConnectionOptions): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, ca: ca.certPem, ...o }, () => {
      const version = socket.getProtocol();
      socket.destroy();
      resolve(version);
    });
    socket.on("error", (err) => {
      socket.destroy();
      reject(err);
    });
  });
}

describe("shared TLS flags on a real HTTPS server", () => {
  it("--tls-min-version=VersionTLS13 refuses a client offering only TLS 1.2", async () => {
    const port = await serve(["--tls-min-version=VersionTLS13"]);
    await expect(handshake(port, { minVersion: "TLSv1.2", maxVersion: "TLSv1.2" })).rejects.toThrow(/alert protocol version/);
    await expect(handshake(port, {})).resolves.toBe("TLSv1.3");
  });

  it("the defaults accept TLS 1.2 with a secure suite and refuse a CBC-SHA256 one", async () => {
    const port = await serve([]);
    const tls12 = { minVersion: "TLSv1.2", maxVersion: "TLSv1.2" } as const;
    await expect(handshake(port, { ...tls12, ciphers: "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES128-GCM-SHA256" })).resolves.toBe("TLSv1.2");
    await expect(handshake(port, { ...tls12, ciphers: "ECDHE-RSA-AES128-SHA256:ECDHE-ECDSA-AES128-SHA256" })).rejects.toThrow(/alert handshake failure/);
  });

  it.each([
    [["--tls-min-version=VersionTLS14"], 'unknown tls version "VersionTLS14"'],
    [["--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_BOGUS"], "Cipher suite TLS_BOGUS not supported or doesn't exist"],
    [["--tls-min-version=VersionTLS13", "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"], "cipher suites may not be specified when --tls-min-version is 'VersionTLS13'"],
  ])("%j is a one-line start-up error", (args, message) => {
    let thrown: unknown;
    try {
      optionsFor(args);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toBe(message);
  });
});
