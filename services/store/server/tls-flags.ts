/**
 * TLS flags of the store node, named as etcd names them: the client API
 * (`--cert-file`, `--key-file`, `--trusted-ca-file`, `--client-cert-auth`), the
 * peer transport (`--peer-…`), and the files for a TLS Redis (`--redis-…-file`,
 * used with a rediss:// `--redis-url`). A listen URL is https:// exactly when its
 * side has a certificate; an https URL without one is a flag error (etcd refuses
 * it too), an http URL with one is served plaintext after a warning, as etcd does.
 */
import { FlagError, type FlagSpec, type FlagValues } from "../../../shared/cli/flags.ts";
import type { GrpcServerTlsFiles } from "../../../shared/tls/grpc-credentials.ts";
import { tlsFilesFrom } from "../../../shared/tls/file-flags.ts";
import { REDIS_TLS_FLAGS, redisTlsFilesFrom } from "../../../shared/tls/redis-options.ts";
import type { TlsFilePaths } from "../../../shared/tls/watched-files.ts";

export const STORE_TLS_FLAGS: Record<string, FlagSpec> = {
  "cert-file": { kind: "string", help: "path to the client server TLS certificate file" },
  "key-file": { kind: "string", help: "path to the client server TLS key file" },
  "trusted-ca-file": { kind: "string", help: "path to the client server TLS trusted CA file (client certificates are then required)" },
  "client-cert-auth": { kind: "boolean", default: false, help: "require and verify client certificates on the client API" },
  "peer-cert-file": { kind: "string", help: "path to the peer server TLS certificate file (also presented to other members)" },
  "peer-key-file": { kind: "string", help: "path to the peer server TLS key file" },
  "peer-trusted-ca-file": { kind: "string", help: "path to the peer server TLS trusted CA file" },
  "peer-client-cert-auth": { kind: "boolean", default: false, help: "require and verify peer certificates on the peer transport" },
  ...REDIS_TLS_FLAGS,
};

export interface StoreTlsConfig {
  client: GrpcServerTlsFiles;
  peer: GrpcServerTlsFiles;
  redis: TlsFilePaths;
}

/** The TLS part of the flags; throws FlagError when a side's files or URLs do not fit together. */
export function storeTlsConfig(flags: FlagValues, listen: { client: readonly URL[]; peer: readonly URL[] }): StoreTlsConfig {
  const side = (prefix: string, auth: string): GrpcServerTlsFiles => {
    const files = tlsFilesFrom(flags, { ca: `${prefix}trusted-ca-file`, cert: `${prefix}cert-file`, key: `${prefix}key-file` });
    return { certFile: files.certFile, keyFile: files.keyFile, trustedCaFile: files.caFile, clientCertAuth: flags[auth] === true };
  };
  const client = side("", "client-cert-auth");
  const peer = side("peer-", "peer-client-cert-auth");
  const check = (tls: GrpcServerTlsFiles, prefix: string, auth: string, urls: readonly URL[], urlFlag: string): void => {
    if (tls.clientCertAuth === true && tls.trustedCaFile === undefined) throw new FlagError(`--${auth} needs --${prefix}trusted-ca-file`);
    if (tls.trustedCaFile !== undefined && tls.certFile === undefined) throw new FlagError(`--${prefix}trusted-ca-file needs --${prefix}cert-file and --${prefix}key-file`);
    const https = urls.find((u) => u.protocol === "https:");
    if (https !== undefined && tls.certFile === undefined) throw new FlagError(`--${urlFlag}: TLS key/cert (--${prefix}cert-file, --${prefix}key-file) must be provided for ${https.origin}`);
  };
  check(client, "", "client-cert-auth", listen.client, "listen-client-urls");
  check(peer, "peer-", "peer-client-cert-auth", listen.peer, "listen-peer-urls");
  return { client, peer, redis: redisTlsFilesFrom(flags) };
}
