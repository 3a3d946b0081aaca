/**
 * The gRPC credentials of a store node, from its TLS flags (tls-flags.ts):
 * - the client API: TLS on https:// listen URLs; an http:// URL is plaintext even
 *   with certificate files (logged as a warning, as etcd does);
 * - lease calls that followers forward to the leader's client API present the
 *   node's client-side certificate (--cert-file/--key-file) and trust
 *   --trusted-ca-file, so they pass the leader's client-cert-auth;
 * - the peer transport: TLS server on an https:// peer URL, and TLS towards the
 *   other members whenever peer files are given (their certificate and key are
 *   presented, so the peer certificate needs both serverAuth and clientAuth).
 * Certificates are re-read when their files change (shared/tls/watched-files.ts).
 */
import type { ChannelCredentials, ServerCredentials } from "@grpc/grpc-js";
import type { Logger } from "pino";
import { grpcChannelCredentials, grpcServerCredentials, type GrpcServerTlsFiles, type Watched } from "../../../shared/tls/grpc-credentials.ts";
import type { NodeConfig } from "./node-flags.ts";

export interface NodeCredentials {
  server: Watched<ServerCredentials>;
  channel: Watched<ChannelCredentials>;
  close(): void;
}

function reloadError(log: Logger, side: string): (err: Error) => void {
  return (err) => log.warn({ err: err.message, side }, "certificate files changed but cannot be used; keeping the previous ones");
}

function forSide(tls: GrpcServerTlsFiles, https: boolean, log: Logger, side: string, urls: readonly URL[]): NodeCredentials {
  const onError = reloadError(log, side);
  if (!https && tls.certFile !== undefined) log.warn({ side, urls: urls.map((u) => u.origin) }, "scheme is http while key and cert files are present; ignoring key and cert files");
  const server = grpcServerCredentials(https ? tls : {}, onError);
  const channel = grpcChannelCredentials({ certFile: tls.certFile, keyFile: tls.keyFile, caFile: tls.trustedCaFile }, onError);
  return {
    server,
    channel,
    close() {
      server.close();
      channel.close();
    },
  };
}

/** Credentials of the client API (server side) and of forwarded lease calls (channel side). */
export function clientCredentials(config: NodeConfig, log: Logger): NodeCredentials {
  const https = config.listenClientUrls.some((u) => u.protocol === "https:");
  return forSide(config.tls.client, https, log, "client", config.listenClientUrls);
}

/** Credentials of the peer transport: its server, and its channels to the other members. */
export function peerCredentials(config: NodeConfig, log: Logger): NodeCredentials {
  const https = config.listenPeerUrls[0]?.protocol === "https:";
  return forSide(config.tls.peer, https, log, "peer", config.listenPeerUrls);
}
