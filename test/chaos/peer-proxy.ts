/**
 * A TCP proxy of ours in front of one store member's peer port: the other members
 * reach the member only through it (their --initial-cluster names the proxy's
 * address), so traffic between members can be cut or slowed without root.
 *
 * Contract:
 * - `pass`: bytes are forwarded as they come.
 * - `delay(ms)`: each chunk is forwarded `ms` later, in order.
 * - `block(pids)`: connections whose client is one of `pids` (found through
 *   /proc: the socket's inode among the process's descriptors), or every
 *   connection when `pids` is "all", are cut, and new ones are held open and
 *   their bytes dropped, as a partition looks to TCP; `pass` cuts the held ones so
 *   that their clients reconnect. A client that cannot be identified passes.
 */
import { createServer, connect, type Server, type Socket } from "node:net";
import { socketInodes, socketOwner } from "../support/socket-owner.ts";

export type Blocked = "none" | "all" | readonly number[];

interface Link {
  client: Socket;
  upstream?: Socket;
  /** Pid of the client's process, when found. */
  pid: number | undefined;
  held: boolean;
}

export class PeerProxy {
  private readonly links = new Set<Link>();
  private blocked: Blocked = "none";
  private delayMs = 0;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly target: { host: string; port: number },
    /** Pids a client may be (the store members), read when a connection comes. */
    private readonly candidates: () => number[],
  ) {
    server.on("connection", (s) => this.accept(s));
  }

  static async start(target: { host: string; port: number }, candidates: () => number[]): Promise<PeerProxy> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    return new PeerProxy(server, (server.address() as { port: number }).port, target, candidates);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  private isBlocked(pid: number | undefined): boolean {
    if (this.blocked === "all") return true;
    if (this.blocked === "none" || pid === undefined) return false;
    return this.blocked.includes(pid);
  }

  private accept(client: Socket): void {
    const pid = client.remotePort === undefined ? undefined : socketOwner(socketInodes(client.remotePort), this.candidates());
    const link: Link = { client, pid, held: false };
    this.links.add(link);
    client.on("error", () => this.cut(link));
    client.on("close", () => this.cut(link));
    if (this.isBlocked(link.pid)) {
      link.held = true;
      client.on("data", () => {});
      return;
    }
    const upstream = connect(this.target.port, this.target.host);
    link.upstream = upstream;
    upstream.on("error", () => this.cut(link));
    upstream.on("close", () => this.cut(link));
    this.pipe(client, upstream);
    this.pipe(upstream, client);
  }

  /** Forwards in order: a chunk never overtakes a delayed one, even when the delay is lifted. */
  private pipe(from: Socket, to: Socket): void {
    const queue: Array<{ due: number; chunk: Buffer }> = [];
    let timer: NodeJS.Timeout | undefined;
    const drain = () => {
      timer = undefined;
      const now = performance.now();
      while (queue.length > 0 && queue[0].due <= now) {
        const { chunk } = queue.shift() as { chunk: Buffer };
        if (to.writable) to.write(chunk);
      }
      if (queue.length > 0) timer = setTimeout(drain, queue[0].due - now);
    };
    from.on("data", (chunk: Buffer) => {
      if (this.delayMs === 0 && queue.length === 0) {
        to.write(chunk);
        return;
      }
      queue.push({ due: performance.now() + this.delayMs, chunk });
      if (timer === undefined) timer = setTimeout(drain, this.delayMs);
    });
    from.on("close", () => clearTimeout(timer));
  }

  private cut(link: Link): void {
    if (!this.links.delete(link)) return;
    link.client.destroy();
    link.upstream?.destroy();
  }

  /** Cuts the matching connections and holds new ones (see the file header). */
  block(blocked: Blocked): void {
    this.blocked = blocked;
    for (const link of [...this.links]) if (!link.held && this.isBlocked(link.pid)) this.cut(link);
  }

  delay(ms: number): void {
    this.delayMs = ms;
  }

  /** Back to forwarding: no delay, nothing blocked, held connections cut. */
  pass(): void {
    this.blocked = "none";
    this.delayMs = 0;
    for (const link of [...this.links]) if (link.held) this.cut(link);
  }

  async stop(): Promise<void> {
    for (const link of [...this.links]) this.cut(link);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
