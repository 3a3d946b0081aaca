/**
 * The agent's HTTPS server. Every request is authenticated (client certificate, bearer
 * token via TokenReview, or anonymous when enabled: otherwise 401 `Unauthorized`) and
 * authorized (SubjectAccessReview on nodes/<subresource>: 403 `Forbidden (...)`) before
 * routing, so an unknown path is 404 only for an allowed caller. Routes: GET /healthz,
 * GET /pods (the pods bound to this node as a PodList), GET /containerLogs/{namespace}/{pod}/{container}
 * (streaming/container-logs.ts), POST /run/{namespace}/{pod}[/{uid}]/{container}
 * (run-in-container.ts; the `cmd` form parameter, body before query), and, with the
 * ContainerCheckpoint gate on, POST /checkpoint/{namespace}/{pod}/{container}. Upgrade
 * requests (exec, attach, portForward: streaming/remote-command.ts) pass the same
 * authentication and authorization, and a refusal is written to the raw socket.
 */
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { writeRawResponse } from "../../../shared/stream/upgrade-proxy.ts";
import type { AddressInfo } from "node:net";
import type { LogFn } from "../../../shared/observability/logger.ts";
import type { CheckpointOutcome } from "../checkpoint.ts";
import type { RunOutcome } from "../run-in-container.ts";
import { formValue } from "./form-value.ts";
import type { DelegatedAuth } from "./delegated-auth.ts";
import { requestAttributes } from "./request-attributes.ts";
import type { ApiObject } from "../../../shared/client/object-client.ts";

export interface AgentServerOptions {
  nodeName: string;
  address: string;
  port: number;
  tls: { certPem: string; keyPem: string; clientCaPem?: string };
  auth: DelegatedAuth;
  fineGrainedAuthz: boolean;
  checkpointEnabled: boolean;
  pods: () => ApiObject[];
  healthy: () => Promise<string | undefined>;
  checkpoint: (namespace: string, pod: string, container: string, timeouts: string[]) => Promise<CheckpointOutcome>;
  /** GET /containerLogs/{namespace}/{pod}/{container} (streaming/container-logs.ts). */
  containerLogs?: (namespace: string, pod: string, container: string, query: URLSearchParams, req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** POST /run/{namespace}/{pod}/{container} with the `cmd` command line (run-in-container.ts). */
  run?: (namespace: string, pod: string, container: string, cmdLine: string) => Promise<RunOutcome>;
  /** Upgrade requests: /exec, /attach, /portForward (streaming/remote-command.ts). */
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer, url: URL) => Promise<void>;
  log: LogFn;
}

export interface AgentServer {
  url: string;
  port: number;
  /** Serves with another certificate from the next TLS handshake on (serving certificate rotation). */
  setCertificate(certPem: string, keyPem: string): void;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body), "x-content-type-options": "nosniff" });
  res.end(body);
}

const TEXT = "text/plain; charset=utf-8";
const CHECKPOINT_PATH = /^\/checkpoint\/([^/]+)\/([^/]+)\/([^/]+)\/?$/;
const CONTAINER_LOGS_PATH = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)\/?$/;
/** /run/{namespace}/{pod}/{container} or /run/{namespace}/{pod}/{uid}/{container}. */
const RUN_PATH = /^\/run\/([^/]+)\/([^/]+)\/(?:[^/]+\/)?([^/]+)\/?$/;

async function route(o: AgentServerOptions, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const path = url.pathname;
  const method = req.method ?? "GET";
  if (path === "/healthz") {
    if (method !== "GET" && method !== "HEAD") return send(res, 405, TEXT, "405: Method Not Allowed");
    const problem = await o.healthy();
    return problem ? send(res, 500, TEXT, `[-]syncloop failed: ${problem}\nhealthz check failed\n`) : send(res, 200, TEXT, "ok");
  }
  if (path === "/pods" || path === "/pods/") {
    if (method !== "GET") return send(res, 405, TEXT, "405: Method Not Allowed");
    return send(res, 200, "application/json", JSON.stringify({ kind: "PodList", apiVersion: "v1", metadata: {}, items: o.pods() }));
  }
  const logs = CONTAINER_LOGS_PATH.exec(path);
  if (logs && o.containerLogs) {
    if (method !== "GET") return send(res, 405, TEXT, "405: Method Not Allowed");
    const [ns, pod, container] = logs.slice(1).map((s) => decodeURIComponent(s));
    return o.containerLogs(ns, pod, container, url.searchParams, req, res);
  }
  const run = RUN_PATH.exec(path);
  if (run && o.run) {
    if (method !== "POST") return send(res, 405, TEXT, "405: Method Not Allowed");
    const [ns, pod, container] = run.slice(1).map((s) => decodeURIComponent(s));
    const out = await o.run(ns, pod, container, await formValue(req, url.searchParams, "cmd"));
    res.writeHead(out.status, { ...(out.contentType ? { "content-type": out.contentType } : {}), "content-length": out.body.length, "x-content-type-options": "nosniff" });
    res.end(out.body);
    return;
  }
  const m = CHECKPOINT_PATH.exec(path);
  if (m && o.checkpointEnabled) {
    if (method !== "POST") return send(res, 405, TEXT, "405: Method Not Allowed");
    const [ns, pod, container] = m.slice(1).map((s) => decodeURIComponent(s));
    const out = await o.checkpoint(ns, pod, container, url.searchParams.getAll("timeout"));
    return send(res, out.status, out.contentType, out.body);
  }
  send(res, 404, TEXT, "404 page not found");
}

type Admission = { ok: true } | { ok: false; status: number; text: string };

/** Authentication, then authorization of any of the path's attributes. */
async function admit(o: AgentServerOptions, req: IncomingMessage, url: URL): Promise<Admission> {
  const authn = await o.auth.authenticate(req);
  if (!authn.ok) {
    if (authn.error) o.log("warn", "unable to authenticate the request", { error: authn.error });
    return { ok: false, status: 401, text: "Unauthorized" };
  }
  const attrs = requestAttributes(req.method ?? "GET", url.pathname, o.nodeName, o.fineGrainedAuthz);
  for (const a of attrs) {
    const d = await o.auth.authorize(authn.user, a);
    if (d.error) {
      o.log("error", "authorization error", { user: authn.user.username, verb: a.verb, subresource: a.subresource, error: d.error });
      return { ok: false, status: 500, text: `Authorization error (user=${authn.user.username}, verb=${a.verb}, resource=${a.resource}, subresource=${a.subresource})` };
    }
    if (d.allowed) return { ok: true };
  }
  const first = attrs[0];
  return { ok: false, status: 403, text: `Forbidden (user=${authn.user.username}, verb=${first.verb}, resource=${first.resource}, subresource(s)=[${attrs.map((a) => a.subresource).join(" ")}])\n` };
}

async function handle(o: AgentServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "https://node-agent");
  const verdict = await admit(o, req, url);
  if (!verdict.ok) return send(res, verdict.status, TEXT, verdict.text);
  return route(o, req, res, url);
}

async function handleUpgrade(o: AgentServerOptions, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
  const url = new URL(req.url ?? "/", "https://node-agent");
  const verdict = await admit(o, req, url);
  if (!verdict.ok) return writeRawResponse(socket, verdict.status, { "content-type": TEXT }, Buffer.from(verdict.text));
  if (!o.upgrade) return writeRawResponse(socket, 404, { "content-type": TEXT }, Buffer.from("404 page not found"));
  return o.upgrade(req, socket, head, url);
}

export async function startAgentServer(o: AgentServerOptions): Promise<AgentServer> {
  const server: Server = createServer(
    { cert: o.tls.certPem, key: o.tls.keyPem, ca: o.tls.clientCaPem, requestCert: !!o.tls.clientCaPem, rejectUnauthorized: false },
    (req, res) => {
      handle(o, req, res).catch((err: unknown) => {
        o.log("error", "request failed", { path: req.url, error: err instanceof Error ? err.message : String(err) });
        if (!res.headersSent) send(res, 500, TEXT, "Internal Server Error");
        else res.destroy();
      });
    },
  );
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => undefined);
    handleUpgrade(o, req, socket, head).catch((err: unknown) => {
      o.log("error", "upgrade request failed", { path: req.url, error: err instanceof Error ? err.message : String(err) });
      writeRawResponse(socket, 500, { "content-type": TEXT }, Buffer.from("Internal Server Error"));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.address, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = o.address.includes(":") ? `[${o.address}]` : o.address;
  return {
    url: `https://${host}:${port}`,
    port,
    setCertificate: (certPem, keyPem) => server.setSecureContext({ cert: certPem, key: keyPem, ca: o.tls.clientCaPem }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
