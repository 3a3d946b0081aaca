// Connections of the peer stream: TCP, or TLS when the member's peer TLS says
// so, always with Nagle's algorithm off (a Raft message is written the moment
// the node hands it over; a small append or its answer must not wait for the
// previous segment's ACK).
//
// Contracts:
// - dialPeer returns at once; writes before the connection is up are buffered
//   by the socket. A connection (TCP connect and TLS handshake) that is not up
//   within connectTimeoutMs is destroyed with an error.
// - framed() cuts a socket's bytes into frames (frames.ts); a bad frame or a
//   frame handler that throws destroys the socket with that error.
// - PeerTls gives the options in use now: the server's are read again on
//   every change (new connections get them), a dial reads the current ones.

import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect, type ConnectionOptions, type TlsOptions } from "node:tls";
import { FRAME_HEADER_BYTES, FrameReader, sealFrame, type Frame, type FrameKind } from "./frames.ts";

export interface PeerTls {
  /** Options of the TLS server now; undefined: the peer port is plaintext. */
  server(): TlsOptions | undefined;
  /** TLS options towards a peer now; undefined: plaintext. */
  client(): ConnectionOptions | undefined;
  /** Calls `listener` after the certificate files changed; returns the unsubscriber. */
  onChange(listener: () => void): () => void;
}

export const CONNECT_TIMEOUT_MS = 5000;

/** "http://h:p", "https://h:p" or "h:p" (IPv6 hosts in brackets) → host and port; undefined without a port number. */
export function peerAddress(url: string): { host: string; port: number } | undefined {
  const hostPort = url.replace(/^[a-z]+:\/\//i, "").replace(/\/+$/, "");
  const colon = hostPort.lastIndexOf(":");
  if (colon <= 0) return undefined;
  const port = Number(hostPort.slice(colon + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535) return undefined;
  const host = hostPort.slice(0, colon).replace(/^\[(.*)\]$/, "$1");
  return { host, port };
}

export function dialPeer(address: { host: string; port: number }, tls: PeerTls | undefined, connectTimeoutMs = CONNECT_TIMEOUT_MS): Socket {
  const options = tls?.client();
  const socket = options === undefined ? netConnect({ host: address.host, port: address.port }) : tlsConnect({ ...options, host: address.host, port: address.port });
  socket.setNoDelay(true);
  const timer = setTimeout(() => socket.destroy(new Error(`peer connection to ${address.host}:${address.port} not up within ${connectTimeoutMs} ms`)), connectTimeoutMs);
  timer.unref();
  socket.once(options === undefined ? "connect" : "secureConnect", () => clearTimeout(timer));
  socket.once("close", () => clearTimeout(timer));
  return socket;
}

/** Feeds the socket's frames to `onFrame`, in order. */
export function framed(socket: Socket, onFrame: (frame: Frame) => void): void {
  const reader = new FrameReader();
  socket.on("data", (chunk: Buffer) => {
    try {
      for (const f of reader.push(chunk)) {
        if (socket.destroyed) return;
        onFrame(f);
      }
    } catch (e) {
      socket.destroy(e instanceof Error ? e : new Error(String(e)));
    }
  });
}

/** Writes one frame whose encoder left FRAME_HEADER_BYTES of headroom. */
export function writeFrame(socket: Socket, kind: FrameKind, encode: (headroom: number) => Buffer): boolean {
  return socket.write(sealFrame(kind, encode(FRAME_HEADER_BYTES)));
}
