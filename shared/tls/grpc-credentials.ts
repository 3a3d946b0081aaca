/**
 * gRPC credentials from PEM files that reload on change (watched-files.ts), with
 * etcd's semantics:
 * - a server with a certificate and key serves TLS; with a trusted CA file or
 *   client-cert-auth it requires and verifies a client certificate (etcd turns
 *   RequireAndVerifyClientCert on for either); client-cert-auth without a CA
 *   file is a start-up error;
 * - a channel with a CA file verifies the server against it (the host name or IP
 *   of the target must be in the server certificate) and presents the
 *   certificate and key when given; without any file it is plaintext.
 * Each result owns its file watcher: `close()` stops it.
 */
import { credentials, experimental, ServerCredentials, type ChannelCredentials } from "@grpc/grpc-js";
import { WatchedTlsFiles, type TlsFilePaths } from "./watched-files.ts";

export interface GrpcServerTlsFiles {
  certFile?: string;
  keyFile?: string;
  trustedCaFile?: string;
  clientCertAuth?: boolean;
}

export interface Watched<T> {
  credentials: T;
  /** Whether the credentials are TLS (URLs are https://). */
  secure: boolean;
  close(): void;
}

type OnError = (err: Error) => void;

/** Server credentials; throws an Error on inconsistent flags or unreadable files. */
export function grpcServerCredentials(tls: GrpcServerTlsFiles, onError?: OnError): Watched<ServerCredentials> {
  const hasPair = tls.certFile !== undefined || tls.keyFile !== undefined;
  if (!hasPair) {
    if (tls.trustedCaFile !== undefined || tls.clientCertAuth === true) throw new Error("client certificate authentication needs a serving certificate and key");
    return { credentials: ServerCredentials.createInsecure(), secure: false, close: () => undefined };
  }
  if (tls.clientCertAuth === true && tls.trustedCaFile === undefined) throw new Error("client-cert-auth needs a trusted CA file");
  const identity = new WatchedTlsFiles({ certFile: tls.certFile, keyFile: tls.keyFile }, { onError });
  const ca = tls.trustedCaFile === undefined ? null : new WatchedTlsFiles({ caFile: tls.trustedCaFile }, { onError });
  const creds = experimental.createCertificateProviderServerCredentials(identity, ca, ca !== null);
  return {
    credentials: creds,
    secure: true,
    close() {
      identity.close();
      ca?.close();
    },
  };
}

/** Whether any file of a client's TLS is given (then the channel is TLS). */
export function usesTls(paths: TlsFilePaths): boolean {
  return paths.caFile !== undefined || paths.certFile !== undefined || paths.keyFile !== undefined;
}

/**
 * Channel credentials; plaintext without files. Without a CA file the server is
 * verified against the system's roots.
 */
export function grpcChannelCredentials(paths: TlsFilePaths, onError?: OnError): Watched<ChannelCredentials> {
  if (!usesTls(paths)) return { credentials: credentials.createInsecure(), secure: false, close: () => undefined };
  const identity = paths.certFile === undefined && paths.keyFile === undefined ? null : new WatchedTlsFiles({ certFile: paths.certFile, keyFile: paths.keyFile }, { onError });
  if (paths.caFile === undefined) {
    const m = identity?.current();
    identity?.close();
    return { credentials: credentials.createSsl(null, m?.key ?? null, m?.cert ?? null), secure: true, close: () => undefined };
  }
  const ca = new WatchedTlsFiles({ caFile: paths.caFile }, { onError });
  return {
    credentials: experimental.createCertificateProviderChannelCredentials(ca, identity),
    secure: true,
    close() {
      ca.close();
      identity?.close();
    },
  };
}
