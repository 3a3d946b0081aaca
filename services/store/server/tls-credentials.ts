/**
 * The gRPC credentials of a store node, from its TLS flags (tls-flags.ts):
 * - the client API: TLS on https:// listen URLs; an http:// URL is plaintext even
 *   with certificate files (logged as a warning, as etcd does);
 * - lease calls that followers forward to the leader's client API present the
 *   node's client-side certificate (--cert-file/--key-file) and trust
 *   --trusted-ca-file, so they pass the leader's client-cert-auth;
 * - the peer transport (node:tls options for transport/peer-socket.ts): TLS
 *   server on an https:// peer URL, requiring a client certificate of the peer
 *   CA when one is given; TLS towards the other members whenever peer files are
 *   given (their certificate and key are presented, so the peer certificate
 *   needs both serverAuth and clientAuth; without a CA file the system's roots
 *   verify the other member).
 * Certificates are re-read when their files change (shared/tls/watched-files.ts).
 */
import type { ChannelCredentials, ServerCredentials } from "@grpc/grpc-js";
import type { Logger } from "pino";
import { grpcChannelCredentials, grpcServerCredentials, usesTls, type GrpcServerTlsFiles, type Watched } from "../../../shared/tls/grpc-credentials.ts";
import { WatchedTlsFiles } from "../../../shared/tls/watched-files.ts";
import type { PeerTls } from "../transport/peer-socket.ts";
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

/** TLS of the peer transport: its server, and its connections to the other members. */
export function peerTls(config: NodeConfig, log: Logger): PeerTls & { close(): void } {
  const tls = config.tls.peer;
  const https = config.listenPeerUrls[0]?.protocol === "https:";
  if (!https && tls.certFile !== undefined) log.warn({ side: "peer", urls: config.listenPeerUrls.map((u) => u.origin) }, "scheme is http while key and cert files are present; ignoring key and cert files");
  const client = { certFile: tls.certFile, keyFile: tls.keyFile, caFile: tls.trustedCaFile };
  if (!usesTls(client)) return { server: () => undefined, client: () => undefined, onChange: () => () => undefined, close: () => undefined };
  if (https && tls.clientCertAuth === true && tls.trustedCaFile === undefined) throw new Error("client-cert-auth needs a trusted CA file");
  const files = new WatchedTlsFiles(client, { onError: reloadError(log, "peer") });
  const serving = https && tls.certFile !== undefined;
  return {
    server() {
      if (!serving) return undefined;
      const m = files.current();
      const verify = m.ca !== undefined || tls.clientCertAuth === true;
      return { cert: m.cert, key: m.key, ca: m.ca, requestCert: verify, rejectUnauthorized: verify };
    },
    client() {
      const m = files.current();
      return { cert: m.cert, key: m.key, ca: m.ca };
    },
    onChange: (listener) => files.onChange(() => listener()),
    close: () => files.close(),
  };
}
