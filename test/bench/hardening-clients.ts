/**
 * Child process of the hardening benchmark: it holds the clients, so that their TLS
 * and parsing work runs outside the process that measures /livez. Protocol over IPC
 * (one request at a time):
 *   parent → {type:"lists", target, path, count}     child → {type:"listed", ok, bytes, ms}
 *     `count` concurrent GETs of `path`, bodies counted and dropped;
 *   parent → {type:"connect", target, count}         child → {type:"connected", open}
 *     `count` TLS connections that complete the handshake and send nothing;
 *   parent → {type:"watch", target, path, count}     child → {type:"watching", open}
 *     `count` watches of `path` answered 200 and kept open, frames dropped;
 *   parent → {type:"close"}                          child → {type:"closed", stillOpen}
 *     ends every connection and watch opened so far.
 * Connections are opened at most `OPEN_PARALLELISM` at a time (the server's accept backlog).
 */
import { Agent, request } from "node:https";
import { connect, type TLSSocket } from "node:tls";

export interface ClientTarget {
  url: string;
  ca: string;
  cert: string;
  key: string;
}

export type HardeningRequest =
  | { type: "lists"; target: ClientTarget; path: string; count: number }
  | { type: "connect"; target: ClientTarget; count: number }
  | { type: "watch"; target: ClientTarget; path: string; count: number }
  | { type: "close" };

export type HardeningReply =
  | { type: "listed"; ok: number; bytes: number; ms: number }
  | { type: "connected"; open: number }
  | { type: "watching"; open: number }
  | { type: "closed"; stillOpen: number };

const OPEN_PARALLELISM = 100;

interface Closable {
  end(): void;
  open: boolean;
}

const held: Closable[] = [];

async function inBatches(count: number, open: () => Promise<boolean>): Promise<number> {
  let next = 0;
  let ok = 0;
  await Promise.all(
    Array.from({ length: Math.min(OPEN_PARALLELISM, count) }, async () => {
      while (next < count) {
        next++;
        if (await open()) ok++;
      }
    }),
  );
  return ok;
}

function list(agent: Agent, url: URL): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { agent }, (res) => {
      let bytes = 0;
      res.on("data", (c: Buffer) => (bytes += c.length));
      res.on("end", () => resolve(res.statusCode === 200 ? bytes : -1));
      res.on("error", () => resolve(-1));
    });
    req.on("error", () => resolve(-1));
    req.end();
  });
}

function tlsConnection(t: ClientTarget): Promise<boolean> {
  const url = new URL(t.url);
  return new Promise((resolve) => {
    const socket: TLSSocket = connect({ host: url.hostname, port: Number(url.port), ca: t.ca, cert: t.cert, key: t.key, ALPNProtocols: ["http/1.1"] });
    const entry: Closable = { open: false, end: () => socket.destroy() };
    socket.once("secureConnect", () => {
      entry.open = true;
      held.push(entry);
      resolve(true);
    });
    socket.on("close", () => {
      entry.open = false;
      resolve(false); // closed before the handshake completed (no-op after it)
    });
    socket.on("error", () => resolve(false));
  });
}

function watch(agent: Agent, url: URL): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { agent }, (res) => {
      const entry: Closable = { open: res.statusCode === 200, end: () => req.destroy() };
      held.push(entry);
      res.on("data", () => {});
      res.on("end", () => (entry.open = false));
      res.on("error", () => (entry.open = false));
      resolve(res.statusCode === 200);
    });
    req.on("error", () => resolve(false));
    req.on("close", () => resolve(false)); // no-op once answered
    req.end();
  });
}

async function handle(m: HardeningRequest): Promise<HardeningReply> {
  switch (m.type) {
    case "lists": {
      const agent = new Agent({ ca: m.target.ca, cert: m.target.cert, key: m.target.key, keepAlive: false, maxSockets: Infinity });
      const started = Date.now();
      const sizes = await Promise.all(Array.from({ length: m.count }, () => list(agent, new URL(m.path, m.target.url))));
      agent.destroy();
      return { type: "listed", ok: sizes.filter((b) => b >= 0).length, bytes: sizes.reduce((a, b) => a + Math.max(0, b), 0), ms: Date.now() - started };
    }
    case "connect":
      return { type: "connected", open: await inBatches(m.count, () => tlsConnection(m.target)) };
    case "watch": {
      const agent = new Agent({ ca: m.target.ca, cert: m.target.cert, key: m.target.key, keepAlive: false, maxSockets: Infinity });
      return { type: "watching", open: await inBatches(m.count, () => watch(agent, new URL(m.path, m.target.url))) };
    }
    case "close": {
      const stillOpen = held.filter((h) => h.open).length;
      for (const h of held.splice(0)) h.end();
      return { type: "closed", stillOpen };
    }
  }
}

if (process.send) {
  process.on("message", (m: HardeningRequest) => {
    void handle(m).then((reply) => process.send?.(reply));
  });
}
