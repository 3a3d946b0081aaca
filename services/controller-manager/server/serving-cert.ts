/**
 * The serving certificate of the controller manager's HTTPS port: `--tls-cert-file` and
 * `--tls-private-key-file` when given; otherwise a self-signed pair for localhost,
 * 127.0.0.1 and the host name, kept as `<cert-dir>/<name>.crt` and `.key` (reused on
 * the next start) or only in memory when `--cert-dir` is empty, as the platform does.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { selfSignedServing, type ServingPair } from "../pki/x509.ts";

export async function servingPair(opts: { certFile?: string; keyFile?: string; certDir?: string; name: string; bindAddress: string }): Promise<ServingPair> {
  if (opts.certFile && opts.keyFile) return { certPem: readFileSync(opts.certFile, "utf8"), keyPem: readFileSync(opts.keyFile, "utf8") };
  const hosts = ["localhost", "127.0.0.1", hostname()];
  if (opts.bindAddress !== "0.0.0.0" && opts.bindAddress !== "::" && !hosts.includes(opts.bindAddress)) hosts.push(opts.bindAddress);
  if (!opts.certDir) return selfSignedServing(opts.name, hosts);
  const cert = join(opts.certDir, `${opts.name}.crt`);
  const key = join(opts.certDir, `${opts.name}.key`);
  if (existsSync(cert) && existsSync(key)) return { certPem: readFileSync(cert, "utf8"), keyPem: readFileSync(key, "utf8") };
  const pair = await selfSignedServing(opts.name, hosts);
  mkdirSync(opts.certDir, { recursive: true, mode: 0o755 });
  writeFileSync(cert, pair.certPem, { mode: 0o644 });
  writeFileSync(key, pair.keyPem, { mode: 0o600 });
  return pair;
}
