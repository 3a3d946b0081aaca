/**
 * The serving certificate: `--tls-cert-file`/`--tls-private-key-file` when given;
 * otherwise `<cert-dir>/kubelet.crt` and `kubelet.key`, generated self-signed for the
 * node's names on first start and reused afterwards.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { selfSignedServingCert } from "./pki.ts";

export async function servingCertificate(o: { certFile?: string; keyFile?: string; certDir: string; hosts: string[] }): Promise<{ certPem: string; keyPem: string }> {
  if (o.certFile && o.keyFile) return { certPem: await readFile(o.certFile, "utf8"), keyPem: await readFile(o.keyFile, "utf8") };
  const certPath = join(o.certDir, "kubelet.crt");
  const keyPath = join(o.certDir, "kubelet.key");
  if (existsSync(certPath) && existsSync(keyPath)) return { certPem: await readFile(certPath, "utf8"), keyPem: await readFile(keyPath, "utf8") };
  const made = await selfSignedServingCert(o.hosts);
  await mkdir(o.certDir, { recursive: true, mode: 0o700 });
  await writeFile(keyPath, made.keyPem, { mode: 0o600 });
  await writeFile(certPath, made.certPem, { mode: 0o644 });
  return made;
}
