/**
 * PEM files for mTLS tests of the store and Redis: one CA, a member certificate
 * (serverAuth + clientAuth, for 127.0.0.1/localhost, as store members present it
 * to each other), a client certificate, and a client certificate from an unrelated
 * CA (to be refused). Written under `dir`; `reissueMember()` replaces the member
 * files with a new certificate from the same CA (for reload tests).
 */
import { X509Certificate } from "node:crypto";
import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createCA, createClientCert, createServingCert, type CertificateAuthority, type KeyPairPem } from "../../services/apiserver/server/certs.ts";

export interface PemPair {
  certFile: string;
  keyFile: string;
}

export interface TlsFiles {
  dir: string;
  caFile: string;
  caPem: string;
  member: PemPair & KeyPairPem;
  client: PemPair & KeyPairPem;
  foreignClient: PemPair & KeyPairPem;
  /** Writes a new member certificate over the member files (atomically) and returns its serial number. */
  reissueMember(): Promise<string>;
}

async function writePair(dir: string, name: string, pair: KeyPairPem): Promise<PemPair & KeyPairPem> {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  await writeFile(keyFile, pair.keyPem, { mode: 0o600 });
  await writeFile(certFile, pair.certPem);
  return { certFile, keyFile, ...pair };
}

async function memberCert(ca: CertificateAuthority): Promise<KeyPairPem> {
  return createServingCert(ca, { commonName: "store-member", clientAuth: true });
}

export function serialOf(certPem: string): string {
  return new X509Certificate(certPem).serialNumber;
}

export async function writeTlsFiles(dir: string): Promise<TlsFiles> {
  const ca = await createCA({ commonName: "store-test-ca" });
  const foreignCa = await createCA({ commonName: "unrelated-ca" });
  const caFile = join(dir, "ca.crt");
  await writeFile(caFile, ca.certPem);
  const member = await writePair(dir, "member", await memberCert(ca));
  const client = await writePair(dir, "client", await createClientCert(ca, { user: "root" }));
  const foreignClient = await writePair(dir, "foreign-client", await createClientCert(foreignCa, { user: "root" }));
  return {
    dir,
    caFile,
    caPem: ca.certPem,
    member,
    client,
    foreignClient,
    async reissueMember() {
      const next = await memberCert(ca);
      // Key first, then certificate, each by rename: a reader sees a mismatched pair at worst, which is ignored until both are new.
      await writeFile(`${member.keyFile}.new`, next.keyPem, { mode: 0o600 });
      await writeFile(`${member.certFile}.new`, next.certPem);
      await rename(`${member.keyFile}.new`, member.keyFile);
      await rename(`${member.certFile}.new`, member.certFile);
      return serialOf(next.certPem);
    },
  };
}
