/**
 * Proxying of an HTTP/1.1 connection upgrade (WebSocket, SPDY) as raw bytes, the way
 * the platform's upgrade-aware proxy does it: the upgrade request goes to the backend
 * with the upgrade headers of the client (and nothing that identifies the client);
 * when the backend switches protocols (101) its status line and headers are written to
 * the client's socket and the two sockets are piped both ways until either ends; any
 * other answer is handed back untouched so the caller can turn it into an error.
 * Also: whether a request asks for an upgrade, and a plain response written to a raw
 * socket (for upgrade requests refused before any proxying).
 */
import { request as httpRequest, STATUS_CODES, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Duplex } from "node:stream";

/** Request headers that take part in an upgrade handshake (lower case). */
const UPGRADE_HEADERS = ["upgrade", "sec-websocket-key", "sec-websocket-version", "sec-websocket-protocol", "sec-websocket-extensions", "x-stream-protocol-version", "user-agent", "origin"];

/** True when `connection` lists `upgrade` and an `Upgrade` header is present (the platform's IsUpgradeRequest). */
export function isUpgradeRequest(get: (name: string) => string | null | undefined): boolean {
  const connection = get("connection") ?? "";
  return !!get("upgrade") && connection.split(",").some((t) => t.trim().toLowerCase() === "upgrade");
}

/** The upgrade headers of a request, for the backend. */
export function upgradeHeaders(get: (name: string) => string | null | undefined): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = { connection: "Upgrade" };
  for (const h of UPGRADE_HEADERS) {
    const v = get(h);
    if (v) out[h] = v;
  }
  return out;
}

export interface UpgradeBackend {
  url: URL;
  method: string;
  headers: OutgoingHttpHeaders;
  /** TLS client settings for an https: URL. */
  tls?: { cert?: string; key?: string; ca?: string; rejectUnauthorized: boolean; servername?: string };
}

export type UpgradeOutcome = { upgraded: true } | { upgraded: false; response: IncomingMessage };

/** Pipes two sockets both ways; either side ending or failing ends the other. */
export function joinSockets(a: Duplex, b: Duplex): void {
  const end = () => {
    a.destroy();
    b.destroy();
  };
  a.on("error", end).on("close", end);
  b.on("error", end).on("close", end);
  a.pipe(b);
  b.pipe(a);
}

/** The backend's answer line and headers as raw HTTP/1.1 (its own header spelling kept). */
function headLines(res: IncomingMessage): string {
  const lines = [`HTTP/1.1 ${res.statusCode ?? 101} ${res.statusMessage || STATUS_CODES[res.statusCode ?? 101] || ""}`];
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/**
 * Sends the upgrade request to the backend. On 101 the client's socket is joined to
 * the backend's (the bytes the client sent after its request, `clientHead`, go first)
 * and the outcome is `upgraded`; otherwise the backend's response is returned unread.
 * A failed dial rejects with the socket error.
 */
export function proxyUpgrade(client: Duplex, clientHead: Buffer, backend: UpgradeBackend): Promise<UpgradeOutcome> {
  return new Promise((resolve, reject) => {
    const https = backend.url.protocol === "https:";
    const options = {
      host: backend.url.hostname.replace(/^\[|\]$/g, ""),
      port: backend.url.port || (https ? 443 : 80),
      path: `${backend.url.pathname}${backend.url.search}`,
      method: backend.method,
      headers: backend.headers,
      agent: false as const,
      ...(https ? backend.tls : {}),
    };
    const req = (https ? httpsRequest : httpRequest)(options);
    req.on("upgrade", (res, socket, head) => {
      client.write(headLines(res));
      if (head.length > 0) client.write(head);
      if (clientHead.length > 0) socket.write(clientHead);
      joinSockets(client, socket);
      resolve({ upgraded: true });
    });
    req.on("response", (response) => resolve({ upgraded: false, response }));
    req.on("error", reject);
    // The client going away before the backend answers abandons the dial.
    client.once("close", () => req.destroy());
    req.end();
  });
}

/** A complete HTTP/1.1 response on a raw socket, then the socket is closed. */
export function writeRawResponse(socket: Duplex, status: number, headers: Record<string, string>, body: Uint8Array): void {
  if (socket.destroyed) return;
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}`];
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() !== "content-length" && k.toLowerCase() !== "connection" && k.toLowerCase() !== "transfer-encoding") lines.push(`${k}: ${v}`);
  lines.push(`Content-Length: ${body.byteLength}`, "Connection: close");
  socket.end(Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`), Buffer.from(body)]));
}
