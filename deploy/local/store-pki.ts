/**
 * The local cluster's back-end security, made once under `<dir>/store-pki/` and
 * reused by later `up`s (removed by `--fresh`): a CA of its own, one member
 * certificate (serverAuth + clientAuth for the host and loopback) that every store
 * node serves on its client and peer ports and that redis-server serves, one client
 * certificate for the apiserver replicas and operators (etcdctl --cacert/--cert/--key),
 * and a random Redis password. Private keys and the password are mode 0600.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createCA, createClientCert, createServingCert } from "../../services/apiserver/server/certs.ts";

export interface StorePki {
  dir: string;
  caFile: string;
  memberCertFile: string;
  memberKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  redisPassword: string;
}

export function storePkiPaths(clusterDir: string): Omit<StorePki, "redisPassword"> & { passwordFile: string } {
  const dir = join(clusterDir, "store-pki");
  return {
    dir,
    caFile: join(dir, "ca.crt"),
    memberCertFile: join(dir, "member.crt"),
    memberKeyFile: join(dir, "member.key"),
    clientCertFile: join(dir, "client.crt"),
    clientKeyFile: join(dir, "client.key"),
    passwordFile: join(dir, "redis-password"),
  };
}

export async function ensureStorePki(clusterDir: string, host: string): Promise<StorePki> {
  const p = storePkiPaths(clusterDir);
  const all = [p.caFile, p.memberCertFile, p.memberKeyFile, p.clientCertFile, p.clientKeyFile, p.passwordFile];
  if (!all.every((f) => existsSync(f))) {
    mkdirSync(p.dir, { recursive: true, mode: 0o700 });
    const ca = await createCA({ commonName: "store-ca" });
    const member = await createServingCert(ca, { commonName: "store-member", hosts: [host], clientAuth: true });
    const client = await createClientCert(ca, { user: "apiserver-etcd-client" });
    writeFileSync(p.caFile, ca.certPem);
    writeFileSync(p.memberKeyFile, member.keyPem, { mode: 0o600 });
    writeFileSync(p.memberCertFile, member.certPem);
    writeFileSync(p.clientKeyFile, client.keyPem, { mode: 0o600 });
    writeFileSync(p.clientCertFile, client.certPem);
    writeFileSync(p.passwordFile, randomBytes(24).toString("hex"), { mode: 0o600 });
  }
  const { passwordFile, ...paths } = p;
  return { ...paths, redisPassword: readFileSync(passwordFile, "utf8").trim() };
}

/** The store flags for a TLS Redis, and the apiserver's too (same names). */
export function redisTlsArgs(pki: StorePki): string[] {
  return [`--redis-ca-file=${pki.caFile}`, `--redis-cert-file=${pki.clientCertFile}`, `--redis-key-file=${pki.clientKeyFile}`];
}

/** The apiserver's flags for the store's client API. */
export function etcdClientArgs(pki: StorePki): string[] {
  return [`--etcd-cafile=${pki.caFile}`, `--etcd-certfile=${pki.clientCertFile}`, `--etcd-keyfile=${pki.clientKeyFile}`];
}
