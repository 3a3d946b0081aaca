/**
 * HTTP/1.1 exchanges over kept-alive TLS connections, pooled per endpoint
 * (address, port, the name the certificate must carry, CA bundle). A request is
 * written in one write (head and body together) on an idle connection of its
 * endpoint, the most recently used first, or on a new one; the answer is read
 * by Http1ResponseReader, and the connection goes back to the pool when the
 * answer allows it (at most MAX_IDLE_PER_ENDPOINT idle ones are kept; idle
 * connections never hold the process open and are dropped when the peer closes
 * them). The certificate is always verified: against the CA bundle, or the
 * system roots without one; against `servername` when given, else the host.
 * Each exchange has a deadline (one shared timer, deadlines.ts); at the deadline
 * its connection is destroyed and the exchange fails with DeadlineExceeded.
 * Nothing is retried: a request may have been applied by a connection that broke.
 */
import { isIP } from "node:net";
import { connect, createSecureContext, type SecureContext, type TLSSocket } from "node:tls";
import { Deadlines } from "./deadlines.ts";
import { Http1ResponseReader, type Http1Response } from "./http1-response.ts";

export const MAX_IDLE_PER_ENDPOINT = 64;

export interface TlsEndpoint {
  host: string;
  port: number;
  /** The name the server's certificate must carry (and SNI); the host when absent. */
  servername?: string;
  /** PEM CA bundle; system roots when absent. */
  caPem?: string;
}

export class DeadlineExceeded extends Error {
  constructor() {
    super("deadline exceeded");
  }
}

/** The exchange a connection carries now. */
interface Exchange {
  reader: Http1ResponseReader;
  settle(err: Error | undefined, res?: Http1Response): void;
}

class Connection {
  exchange: Exchange | undefined;
  readonly socket: TLSSocket;

  constructor(
    endpoint: TlsEndpoint,
    context: SecureContext,
    private readonly onGone: (c: Connection) => void,
  ) {
    const sni = endpoint.servername ?? (isIP(endpoint.host) ? undefined : endpoint.host);
    this.socket = connect({ host: endpoint.host, port: endpoint.port, servername: sni, secureContext: context, rejectUnauthorized: true });
    this.socket.setNoDelay(true);
    this.socket.on("data", (chunk: Buffer) => {
      const x = this.exchange;
      if (!x) return this.socket.destroy(); // nothing was asked
      try {
        const res = x.reader.push(chunk);
        if (res) x.settle(undefined, res);
      } catch (err) {
        x.settle(err as Error);
      }
    });
    this.socket.on("end", () => {
      this.ended();
      this.onGone(this);
    });
    this.socket.on("close", () => {
      this.ended();
      this.onGone(this);
    });
    this.socket.on("error", (err) => {
      this.exchange?.settle(err);
      this.socket.destroy();
    });
  }

  /** The peer closed: a body that runs to the end is complete now; anything else is an error. */
  private ended(): void {
    const x = this.exchange;
    if (!x) return;
    try {
      x.settle(undefined, x.reader.end());
    } catch (err) {
      x.settle(err as Error);
    }
  }
}

/** Whether an idle connection can carry a request (the peer may have closed it since). */
function usable(c: Connection): boolean {
  return !c.socket.destroyed && c.socket.writable && !c.socket.readableEnded;
}

/** The connections of one endpoint: how many are open, and the idle ones (most recently used last). */
interface EndpointPool {
  key: string;
  open: number;
  idle: Connection[];
}

export class TlsConnections {
  /** Endpoint pools by CA bundle, then by `host port servername`; a pool is dropped when its last connection closes. */
  private readonly pools = new Map<string, Map<string, EndpointPool>>();
  private readonly contexts = new Map<string, SecureContext>();
  private readonly open = new Set<Connection>();
  private readonly deadlines = new Deadlines();

  private context(caPem: string | undefined): SecureContext {
    const key = caPem ?? "";
    let c = this.contexts.get(key);
    if (!c) {
      c = createSecureContext(caPem === undefined ? {} : { ca: caPem });
      this.contexts.set(key, c);
    }
    return c;
  }

  private pool(ep: TlsEndpoint): EndpointPool {
    const ca = ep.caPem ?? "";
    let byAddress = this.pools.get(ca);
    if (!byAddress) {
      byAddress = new Map();
      this.pools.set(ca, byAddress);
    }
    const key = `${ep.host} ${ep.port} ${ep.servername ?? ""}`;
    let pool = byAddress.get(key);
    if (!pool) {
      pool = { key, open: 0, idle: [] };
      byAddress.set(key, pool);
    }
    return pool;
  }

  /** An idle connection of the endpoint that is still usable, or a new one. */
  private connection(ep: TlsEndpoint, pool: EndpointPool): Connection {
    for (let c = pool.idle.pop(); c; c = pool.idle.pop()) {
      if (usable(c)) {
        c.socket.ref();
        return c;
      }
      c.socket.destroy();
    }
    let closed = false;
    const c = new Connection(ep, this.context(ep.caPem), (gone) => {
      const i = pool.idle.indexOf(gone);
      if (i >= 0) pool.idle.splice(i, 1);
      if (!gone.socket.destroyed || closed) return;
      closed = true;
      this.open.delete(gone);
      if (--pool.open > 0) return;
      const byAddress = this.pools.get(ep.caPem ?? "");
      if (byAddress?.get(pool.key) === pool) byAddress.delete(pool.key);
      if (byAddress?.size === 0) this.pools.delete(ep.caPem ?? "");
    });
    pool.open++;
    this.open.add(c);
    return c;
  }

  /**
   * Sends `request` (the whole HTTP/1.1 request: head and body) and resolves with
   * the answer; rejects with the connection's error, an Http1ParseError or
   * DeadlineExceeded after `timeoutMs`.
   */
  exchange(ep: TlsEndpoint, request: string, timeoutMs: number, maxBodyBytes: number): Promise<Http1Response> {
    const pool = this.pool(ep);
    const c = this.connection(ep, pool);
    return new Promise((resolve, reject) => {
      const deadline = this.deadlines.start(timeoutMs, () => x.settle(new DeadlineExceeded()));
      const x: Exchange = {
        reader: new Http1ResponseReader(maxBodyBytes),
        settle: (err, res) => {
          if (c.exchange !== x) return;
          c.exchange = undefined;
          deadline.finish();
          if (err || !res) {
            c.socket.destroy();
            reject(err ?? new Error("no response"));
            return;
          }
          if (res.reusable && usable(c) && pool.idle.length < MAX_IDLE_PER_ENDPOINT) {
            c.socket.unref();
            pool.idle.push(c);
          } else c.socket.destroy();
          resolve(res);
        },
      };
      c.exchange = x;
      c.socket.write(request);
    });
  }

  /** Endpoints with open connections (for tests of the pool's bookkeeping). */
  endpoints(): number {
    let n = 0;
    for (const m of this.pools.values()) n += m.size;
    return n;
  }

  /** Closes every connection; exchanges in flight fail. */
  close(): void {
    for (const c of [...this.open]) c.socket.destroy();
  }
}
