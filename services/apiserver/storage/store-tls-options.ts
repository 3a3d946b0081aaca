/**
 * The replica's TLS towards its store and its Redis: the platform's etcd client
 * flags (`--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`; any of them makes
 * the gRPC channels TLS, the certificate and key are presented for the store's
 * client-cert-auth) and the files of a rediss:// `--redis-url` (its password rides
 * in the URL). Files are re-read when they change (shared/tls).
 */
import type { ChannelCredentials } from "@grpc/grpc-js";
import type { FlagSpec, FlagValues } from "../../../shared/cli/flags.ts";
import { tlsFilesFrom } from "../../../shared/tls/file-flags.ts";
import { grpcChannelCredentials } from "../../../shared/tls/grpc-credentials.ts";
import { REDIS_TLS_FLAGS, redisTls, redisTlsFilesFrom, type RedisTls } from "../../../shared/tls/redis-options.ts";
import type { TlsFilePaths } from "../../../shared/tls/watched-files.ts";

export const STORE_CLIENT_TLS_FLAGS: Record<string, FlagSpec> = {
  "etcd-cafile": { kind: "string", help: "SSL Certificate Authority file used to secure etcd communication." },
  "etcd-certfile": { kind: "string", help: "SSL certification file used to secure etcd communication." },
  "etcd-keyfile": { kind: "string", help: "SSL key file used to secure etcd communication." },
  ...REDIS_TLS_FLAGS,
};

export interface StoreClientTlsFiles {
  store: TlsFilePaths;
  redis: TlsFilePaths;
}

/** The files named by the flags; a certificate without its key (or the reverse) is a FlagError. */
export function storeClientTlsFrom(flags: FlagValues): StoreClientTlsFiles {
  return { store: tlsFilesFrom(flags, { ca: "etcd-cafile", cert: "etcd-certfile", key: "etcd-keyfile" }), redis: redisTlsFilesFrom(flags) };
}

export interface StoreClientTls {
  channel: ChannelCredentials;
  redis: RedisTls;
  close(): void;
}

/** Credentials for the store's gRPC channels and the Redis connection; throws on unreadable files. */
export function openStoreClientTls(files: StoreClientTlsFiles | undefined, redisUrl: string | undefined, onError?: (err: Error) => void): StoreClientTls {
  const channel = grpcChannelCredentials(files?.store ?? {}, onError);
  const redis = redisUrl === undefined || redisUrl === "" ? { options: {}, close: () => undefined } : redisTls(redisUrl, files?.redis ?? {}, onError);
  return {
    channel: channel.credentials,
    redis,
    close() {
      channel.close();
      redis.close();
    },
  };
}
