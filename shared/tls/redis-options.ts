/**
 * TLS and authentication of a Redis connection (ioredis) from its URL and files:
 * - `redis://[:password@]host:port` is plaintext, `rediss://` is TLS (ioredis reads
 *   the user name and password from the URL and sends AUTH);
 * - with a CA file the server must chain to it; with a certificate and key they are
 *   presented (Redis's `tls-auth-clients`). The files are re-read when they change,
 *   and the next (re)connection uses them;
 * - files without a rediss:// URL are an Error (they would be silently unused).
 * `redactRedisUrl` hides the password for logs.
 */
import type { ConnectionOptions } from "node:tls";
import type { FlagSpec, FlagValues } from "../cli/flags.ts";
import { tlsFilesFrom } from "./file-flags.ts";
import { WatchedTlsFiles, type TlsFilePaths, type TlsMaterial } from "./watched-files.ts";

/** The Redis TLS flags of every service that connects to the revision stream. */
export const REDIS_TLS_FLAGS: Record<string, FlagSpec> = {
  "redis-ca-file": { kind: "string", help: "CA bundle that the rediss:// server's certificate must chain to" },
  "redis-cert-file": { kind: "string", help: "client certificate presented to a rediss:// server" },
  "redis-key-file": { kind: "string", help: "key of --redis-cert-file" },
};

/** The files of REDIS_TLS_FLAGS; a certificate without its key (or the reverse) is a FlagError. */
export function redisTlsFilesFrom(flags: FlagValues): TlsFilePaths {
  return tlsFilesFrom(flags, { ca: "redis-ca-file", cert: "redis-cert-file", key: "redis-key-file" });
}

export interface RedisTls {
  /** Options for ioredis (`tls` only for rediss://); `tls` is updated in place on reload. */
  options: { tls?: ConnectionOptions };
  close(): void;
}

function isTlsUrl(url: string): boolean {
  return /^rediss(\+sentinel)?:\/\//i.test(url);
}

function apply(target: ConnectionOptions, m: TlsMaterial): void {
  target.ca = m.ca;
  target.cert = m.cert;
  target.key = m.key;
}

export function redisTls(url: string, files: TlsFilePaths = {}, onError?: (err: Error) => void): RedisTls {
  const anyFile = files.caFile !== undefined || files.certFile !== undefined || files.keyFile !== undefined;
  if (!isTlsUrl(url)) {
    if (anyFile) throw new Error("Redis TLS files need a rediss:// URL");
    return { options: {}, close: () => undefined };
  }
  if (!anyFile) return { options: { tls: {} }, close: () => undefined };
  const watched = new WatchedTlsFiles(files, { onError });
  const tls: ConnectionOptions = {};
  apply(tls, watched.current());
  watched.onChange((m) => apply(tls, m));
  return { options: { tls }, close: () => watched.close() };
}

/** The URL with its password replaced by "xxxxx" (for logs and errors). */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password === "") return url;
    u.password = "xxxxx";
    return u.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, "//xxxxx@");
  }
}
