/**
 * The ceiling of the API benchmark, in its own process: a bare node:https server with
 * the apiserver's serving certificate that asks for and verifies client certificates
 * against the same CA (the same TLS work per connection as the apiserver), and answers
 * each request with bytes captured from the apiserver for the same call. It reads a
 * request's whole body before answering, as the apiserver does.
 *
 * A bare watch fan-out: `GET /fanout` holds a chunked response open; `POST /fanout`
 * writes `{"type":"ADDED","object":<body>}\n` to every open one and answers 201 with
 * the body: the least a server can do to deliver one event to every watcher.
 *
 * Protocol over IPC:
 *   parent → {type:"start", tls}                                    child → {type:"started", port, pid}
 *   parent → {type:"route", route}                                  child → {type:"routed"}
 *   parent → {type:"watchers"}                                      child → {type:"watchers", open}
 * Routes match by method and path prefix (the query is ignored); later routes win.
 */
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";

export interface CeilingTls {
  key: string;
  cert: string;
  ca: string;
}

export interface CeilingRoute {
  method: string;
  pathPrefix: string;
  status: number;
  contentType: string;
  /** Base64 of the body. */
  body: string;
}

export type CeilingRequest = { type: "start"; tls: CeilingTls } | { type: "route"; route: CeilingRoute } | { type: "watchers" };
export type CeilingReply = { type: "started"; port: number; pid: number } | { type: "routed" } | { type: "watchers"; open: number };

interface Route {
  method: string;
  pathPrefix: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const routes: Route[] = [];
const watchers = new Set<ServerResponse>();

function find(method: string, path: string): Route | undefined {
  for (let i = routes.length - 1; i >= 0; i--) if (routes[i].method === method && path.startsWith(routes[i].pathPrefix)) return routes[i];
  return undefined;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? "/").split("?")[0];
  if (path === "/fanout" && req.method === "GET") {
    res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
    res.flushHeaders();
    watchers.add(res);
    res.on("close", () => watchers.delete(res));
    return;
  }
  void readBody(req).then(
    (body) => {
      if (path === "/fanout" && req.method === "POST") {
        const frame = Buffer.concat([Buffer.from('{"type":"ADDED","object":'), body, Buffer.from("}\n")]);
        for (const w of watchers) w.write(frame);
        res.writeHead(201, { "content-type": "application/json", "content-length": String(body.length) }).end(body);
        return;
      }
      const route = find(req.method ?? "GET", path);
      if (!route) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(route.status, route.headers).end(route.body);
    },
    () => res.destroy(),
  );
}

function start(tls: CeilingTls): Promise<Server> {
  const server = createServer({ key: tls.key, cert: tls.cert, ca: tls.ca, requestCert: true, rejectUnauthorized: true }, handle);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

function main(): void {
  const send = (m: CeilingReply): void => void process.send?.(m);
  process.on("message", (m: CeilingRequest) => {
    if (m.type === "start") {
      void start(m.tls).then((server) => send({ type: "started", port: (server.address() as { port: number }).port, pid: process.pid }));
    } else if (m.type === "route") {
      const body = Buffer.from(m.route.body, "base64");
      routes.push({ method: m.route.method, pathPrefix: m.route.pathPrefix, status: m.route.status, headers: { "content-type": m.route.contentType, "content-length": String(body.length) }, body });
      send({ type: "routed" });
    } else {
      send({ type: "watchers", open: watchers.size });
    }
  });
  process.on("disconnect", () => process.exit(0));
}

if (process.send) main();
