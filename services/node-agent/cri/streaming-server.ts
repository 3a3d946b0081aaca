/**
 * A container runtime's streaming server (what a CRI runtime's Exec, Attach and
 * PortForward answer a URL of): plain HTTP on loopback, one single-use URL per call,
 * valid for one minute (the runtime's request cache). A URL is used by an upgrade
 * request:
 * - `/exec/<token>`, `/attach/<token>`: WebSocket with the channel protocol v5 or v4
 *   (shared/stream/channel-protocol.ts, channel-session.ts), or `Upgrade: SPDY/3.1` with
 *   the same protocol names in `X-Stream-Protocol-Version` (spdy-remote-command.ts); exec
 *   runs the command as a real child process (so stdin, output and exit codes are
 *   real; on a pseudo-terminal that follows the client's resizes for a tty exec,
 *   tty-process.ts), attach joins the container's main process;
 * - `/portforward/<token>`: WebSocket with the port-forward tunnel protocol, SPDY/3.1
 *   carried in binary messages, or `Upgrade: SPDY/3.1` with `portforward.<domain>` in
 *   `X-Stream-Protocol-Version` (port-forward-session.ts).
 * Protocol names are those of the group domain the server is started with. A SPDY
 * upgrade is negotiated as the platform's streaming servers do: the first of the
 * client's versions that is served here is answered in `X-Stream-Protocol-Version`
 * with the 101; none offered is a 400 and none served a 403 listing the served ones in
 * `X-Accepted-Stream-Protocol-Versions`.
 * Anything else answers plain text: 404 for an unknown or used URL, 400 for a request
 * that is not an upgrade or offers no WebSocket subprotocol spoken here.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { chooseChannelProtocol, streamProtocols, type StreamProtocols } from "../../../shared/stream/channel-protocol.ts";
import { writeRawResponse } from "../../../shared/stream/upgrade-proxy.ts";
import { runChannelSession, type ChannelOptions, type ProcessOutcome, type StreamProcess } from "./channel-session.ts";
import { PortForwardSession, type PortTarget } from "./port-forward-session.ts";
import type { ByteTransport } from "./spdy-connection.ts";
import { SpdyRemoteCommandSession } from "./spdy-remote-command.ts";
import { spawnTtyProcess } from "./tty-process.ts";

const SPDY_UPGRADE = "spdy/3.1";
const PROTOCOL_VERSION_HEADER = "X-Stream-Protocol-Version";
const TEXT = { "content-type": "text/plain; charset=utf-8" };

const TOKEN_TTL_MS = 60_000;

export interface ExecSpec extends ChannelOptions {
  cmd: string[];
}

export interface AttachSpec extends ChannelOptions {
  /** The container's main process (never ended by a session). */
  process: StreamProcess;
}

export interface PortForwardSpec {
  podName: string;
  target: PortTarget;
}

type Pending = { kind: "exec"; spec: ExecSpec } | { kind: "attach"; spec: AttachSpec } | { kind: "portforward"; spec: PortForwardSpec };

/** Runs a command as a child process, as a session sees it. */
export function spawnProcess(cmd: string[]): StreamProcess {
  const child = spawn(cmd[0], cmd.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
  const done = new Promise<ProcessOutcome>((resolve) => {
    child.once("error", (err: NodeJS.ErrnoException) =>
      resolve({ error: `OCI runtime exec failed: exec failed: unable to start container process: exec: ${JSON.stringify(cmd[0])}: ${err.code === "ENOENT" ? "executable file not found in $PATH" : err.message}: unknown` }),
    );
    child.once("close", (code, signal) => resolve({ exitCode: code ?? (signal ? 128 + 9 : 1) }));
  });
  return { stdin: child.stdin, stdout: child.stdout, stderr: child.stderr, done, kill: () => child.exitCode === null && child.kill("SIGKILL") };
}

/** The process of an exec: on a pseudo-terminal for a tty exec. */
function execProcess(spec: ExecSpec): StreamProcess {
  return spec.tty ? spawnTtyProcess(spec.cmd) : spawnProcess(spec.cmd);
}

export class StreamingServer {
  private readonly pending = new Map<string, { at: number; request: Pending }>();
  /**
   * The subprotocol chosen for each upgrade request. ws refuses the port-forward tunnel's
   * name (a `/` is no token character), so the offer is taken out of the request before ws
   * sees it and the answer header is added here.
   */
  private readonly chosen = new WeakMap<IncomingMessage, string>();
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 16 * 1024 * 1024 });
  /** Sockets of SPDY sessions (detached from the HTTP server once upgraded). */
  private readonly spdySockets = new Set<Duplex>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly protocols: StreamProtocols,
  ) {
    server.on("request", (req, res) => {
      const known = this.peek(req.url ?? "");
      res.writeHead(known ? 400 : 404, { "content-type": "text/plain; charset=utf-8" });
      res.end(known ? "Upgrade request required" : "404 page not found");
    });
    server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
    this.wss.on("headers", (headers: string[], req: IncomingMessage) => {
      const protocol = this.chosen.get(req);
      if (protocol) headers.push(`Sec-WebSocket-Protocol: ${protocol}`);
    });
  }

  static async start(groupDomain: string, host = "127.0.0.1"): Promise<StreamingServer> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    return new StreamingServer(server, `http://${host}:${port}`, streamProtocols(groupDomain));
  }

  exec(spec: ExecSpec): string {
    return this.register({ kind: "exec", spec });
  }

  attach(spec: AttachSpec): string {
    return this.register({ kind: "attach", spec });
  }

  portForward(spec: PortForwardSpec): string {
    return this.register({ kind: "portforward", spec });
  }

  async close(): Promise<void> {
    for (const ws of this.wss.clients) ws.terminate();
    for (const socket of this.spdySockets) socket.destroy();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private register(request: Pending): string {
    const now = Date.now();
    for (const [token, p] of this.pending) if (now - p.at > TOKEN_TTL_MS) this.pending.delete(token);
    const token = randomBytes(12).toString("base64url");
    this.pending.set(token, { at: now, request });
    return `${this.url}/${request.kind}/${token}`;
  }

  private parse(path: string): { kind: string; token: string } | undefined {
    const m = /^\/(exec|attach|portforward)\/([\w-]+)$/.exec(new URL(path, "http://runtime").pathname);
    return m ? { kind: m[1], token: m[2] } : undefined;
  }

  private peek(path: string): Pending | undefined {
    const p = this.parse(path);
    const entry = p && this.pending.get(p.token);
    return entry && entry.request.kind === p.kind && Date.now() - entry.at <= TOKEN_TTL_MS ? entry.request : undefined;
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on("error", () => undefined);
    const request = this.peek(req.url ?? "");
    if (!request) return writeRawResponse(socket, 404, TEXT, Buffer.from("404 page not found"));
    if ((req.headers.upgrade ?? "").toLowerCase() === SPDY_UPGRADE) return this.upgradeSpdy(req, socket, head, request);
    const offered = (req.headers["sec-websocket-protocol"] ?? "").split(",").map((p) => p.trim());
    const websocket = (req.headers.upgrade ?? "").toLowerCase() === "websocket";
    const tunnel = this.protocols.portForwardTunnel;
    const protocol = request.kind === "portforward" ? (offered.includes(tunnel) ? tunnel : undefined) : chooseChannelProtocol(offered, this.protocols.channel);
    if (!websocket || !protocol) {
      const text = websocket ? `none of the offered subprotocols [${offered.join(" ")}] is supported` : `unsupported upgrade ${JSON.stringify(req.headers.upgrade ?? "")}: only WebSocket and SPDY/3.1 streams are served`;
      return writeRawResponse(socket, 400, TEXT, Buffer.from(text));
    }
    this.pending.delete(this.parse(req.url ?? "")?.token ?? "");
    this.chosen.set(req, protocol);
    delete req.headers["sec-websocket-protocol"];
    this.wss.handleUpgrade(req, socket, head, (ws) => this.serve(ws, protocol, request));
  }

  /** A `Upgrade: SPDY/3.1` request: version negotiation, the 101, then the session on the raw socket. */
  private upgradeSpdy(req: IncomingMessage, socket: Duplex, head: Buffer, request: Pending): void {
    const raw = req.headers[PROTOCOL_VERSION_HEADER.toLowerCase()];
    const offered = (Array.isArray(raw) ? raw : [raw ?? ""]).flatMap((v) => v.split(",")).map((p) => p.trim()).filter((p) => p !== "");
    const served = request.kind === "portforward" ? [this.protocols.portForward] : [...this.protocols.channel];
    if (offered.length === 0) return writeRawResponse(socket, 400, TEXT, Buffer.from(`unable to upgrade: ${PROTOCOL_VERSION_HEADER} is required`));
    const protocol = offered.find((p) => served.includes(p));
    if (!protocol) {
      const text = `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(" ")}], server accepts [${served.join(" ")}]`;
      return writeRawResponse(socket, 403, { ...TEXT, "X-Accepted-Stream-Protocol-Versions": served.join(", ") }, Buffer.from(text));
    }
    this.pending.delete(this.parse(req.url ?? "")?.token ?? "");
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n${PROTOCOL_VERSION_HEADER}: ${protocol}\r\n\r\n`);
    this.spdySockets.add(socket);
    const transport: ByteTransport = { send: (bytes) => void (socket.writable && socket.write(bytes)), close: () => socket.end() };
    const session = this.spdySession(transport, request);
    socket.on("data", (chunk: Buffer) => session.receive(chunk));
    socket.on("close", () => {
      this.spdySockets.delete(socket);
      session.close();
    });
    if (head.length > 0) session.receive(head);
  }

  private spdySession(transport: ByteTransport, request: Pending): { receive(chunk: Buffer): void; close(): void } {
    if (request.kind === "exec") return new SpdyRemoteCommandSession(transport, request.spec, () => execProcess(request.spec));
    if (request.kind === "attach") return new SpdyRemoteCommandSession(transport, request.spec, () => ({ ...request.spec.process, kill: undefined }));
    return new PortForwardSession(transport, request.spec.target, request.spec.podName);
  }

  private serve(ws: WebSocket, protocol: string, request: Pending): void {
    if (request.kind === "exec") return runChannelSession(ws, protocol, execProcess(request.spec), request.spec);
    if (request.kind === "attach") return runChannelSession(ws, protocol, { ...request.spec.process, kill: undefined }, request.spec);
    const session = new PortForwardSession({ send: (bytes) => ws.readyState === ws.OPEN && ws.send(bytes), close: () => ws.close(1000) }, request.spec.target, request.spec.podName);
    ws.on("message", (data: Buffer, isBinary: boolean) => (isBinary ? session.receive(data) : undefined));
    ws.on("close", () => session.close());
    ws.on("error", () => session.close());
  }
}
