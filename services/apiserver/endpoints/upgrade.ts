/**
 * Upgrade requests (WebSocket, SPDY) on a replica: node's server hands them to its
 * `upgrade` event with the raw socket instead of a response. Each one is turned into a
 * web Request and run through the same application (every filter: authentication,
 * audit, impersonation, flow control, authorization) with the socket registered
 * against the Request. A handler that proxied the stream marks the connection taken
 * (`upgradeConnection(request).taken = true`); otherwise the handler's response (an error Status, usually) is
 * written to the socket as a plain HTTP/1.1 answer and the connection closed.
 */
import type { IncomingMessage, Server } from "node:http";
import type { ServerType } from "@hono/node-server";
import type { Duplex } from "node:stream";
import { writeRawResponse } from "../../../shared/stream/upgrade-proxy.ts";

export interface UpgradeConnection {
  socket: Duplex;
  /** Bytes the client sent after its request. */
  head: Buffer;
  /** Set by the handler that answered on the socket itself (a proxied stream). */
  taken: boolean;
}

const connections = new WeakMap<Request, UpgradeConnection>();

/** The raw connection of an upgrade request; undefined for other requests. */
export function upgradeConnection(request: Request): UpgradeConnection | undefined {
  return connections.get(request);
}

type Fetch = (request: Request, env: { incoming: IncomingMessage }) => Response | Promise<Response>;

function asRequest(incoming: IncomingMessage): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) headers.append(incoming.rawHeaders[i], incoming.rawHeaders[i + 1]);
  const host = incoming.headers.host ?? "localhost";
  return new Request(`https://${host}${incoming.url ?? "/"}`, { method: incoming.method ?? "GET", headers });
}

/** Serves upgrade requests of `server` through `fetch` (the replica's application). */
export function serveUpgrades(server: ServerType, fetch: Fetch, log?: (msg: string, fields: Record<string, unknown>) => void): void {
  // The replica serves HTTP/1.1 over TLS: its server is a node https (so http) Server.
  (server as Server).on("upgrade", (incoming: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => undefined);
    let request: Request;
    try {
      request = asRequest(incoming);
    } catch {
      return writeRawResponse(socket, 400, { "content-type": "text/plain; charset=utf-8" }, Buffer.from("400 Bad Request"));
    }
    const connection: UpgradeConnection = { socket, head, taken: false };
    connections.set(request, connection);
    void (async () => {
      try {
        const response = await fetch(request, { incoming });
        if (connection.taken) return;
        const headers: Record<string, string> = {};
        response.headers.forEach((v, k) => (headers[k] = v));
        writeRawResponse(socket, response.status, headers, new Uint8Array(await response.arrayBuffer()));
      } catch (err) {
        log?.("upgrade request failed", { path: incoming.url, error: err instanceof Error ? err.message : String(err) });
        if (!connection.taken) writeRawResponse(socket, 500, { "content-type": "text/plain; charset=utf-8" }, Buffer.from("Internal Server Error"));
      }
    })();
  });
}
