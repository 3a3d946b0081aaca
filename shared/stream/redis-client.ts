/**
 * A Redis client (ioredis) from a URL, direct or through Sentinel:
 * - `redis://[:password@]host:port[/db]` and `rediss://…` (TLS) connect directly
 *   (ioredis reads them itself);
 * - `redis+sentinel://[[user]:password@]host:port[,host:port…]/master[/db]` (and
 *   `rediss+sentinel://`, TLS to the master) asks the listed Sentinels for the
 *   current master of `master` and follows it across failovers (ioredis asks again
 *   after every lost connection, and a demoted master's READONLY answer reconnects).
 *   The password is the data nodes' (the Sentinels are asked without one).
 * A malformed sentinel URL is an Error naming what is wrong.
 */
import { Redis, type RedisOptions } from "ioredis";

export type RedisTarget =
  | { kind: "direct"; url: string }
  | { kind: "sentinel"; sentinels: Array<{ host: string; port: number }>; name: string; username?: string; password?: string; db: number; tls: boolean };

const SENTINEL_SCHEME = /^(rediss?)\+sentinel:\/\/(.*)$/i;
const DEFAULT_SENTINEL_PORT = 26379;

function hostPort(s: string, url: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(s);
  if (!m) throw new Error(`invalid Redis sentinel address "${s}" in ${redact(url)}`);
  const port = m[2] === undefined ? DEFAULT_SENTINEL_PORT : Number(m[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`invalid Redis sentinel port "${m[2]}" in ${redact(url)}`);
  return { host: m[1].replace(/^\[|\]$/g, ""), port };
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, "//xxxxx@");
}

/** Parses a Redis URL: direct, or Sentinel with its addresses and master name. */
export function parseRedisUrl(url: string): RedisTarget {
  const m = SENTINEL_SCHEME.exec(url);
  if (!m) return { kind: "direct", url };
  const rest = m[2].replace(/[?#].*$/, "");
  const at = rest.lastIndexOf("@", rest.indexOf("/") === -1 ? rest.length : rest.indexOf("/"));
  const auth = at === -1 ? undefined : rest.slice(0, at);
  const afterAuth = at === -1 ? rest : rest.slice(at + 1);
  const slash = afterAuth.indexOf("/");
  const hosts = slash === -1 ? afterAuth : afterAuth.slice(0, slash);
  const path = slash === -1 ? "" : afterAuth.slice(slash + 1);
  const [name = "", dbText] = path.split("/");
  if (hosts === "") throw new Error(`Redis sentinel URL ${redact(url)} names no sentinel (redis+sentinel://host:port[,host:port]/master)`);
  if (name === "") throw new Error(`Redis sentinel URL ${redact(url)} names no master (redis+sentinel://host:port[,host:port]/master)`);
  const db = dbText === undefined || dbText === "" ? 0 : Number(dbText);
  if (!Number.isInteger(db) || db < 0) throw new Error(`invalid Redis database "${dbText}" in ${redact(url)}`);
  const target: RedisTarget = { kind: "sentinel", sentinels: hosts.split(",").map((h) => hostPort(h.trim(), url)), name: decodeURIComponent(name), db, tls: m[1].toLowerCase() === "rediss" };
  if (auth !== undefined) {
    const colon = auth.indexOf(":");
    const user = colon === -1 ? "" : decodeURIComponent(auth.slice(0, colon));
    const password = decodeURIComponent(colon === -1 ? auth : auth.slice(colon + 1));
    if (user !== "") target.username = user;
    if (password !== "") target.password = password;
  }
  return target;
}

/** A client for `url` with `options` (connection behaviour, TLS options of a rediss URL). */
export function redisClient(url: string, options: RedisOptions = {}): Redis {
  const target = parseRedisUrl(url);
  if (target.kind === "direct") return new Redis(url, options);
  const { tls, ...rest } = options;
  return new Redis({
    ...rest,
    sentinels: target.sentinels,
    name: target.name,
    db: target.db,
    ...(target.username !== undefined ? { username: target.username } : {}),
    ...(target.password !== undefined ? { password: target.password } : {}),
    ...(target.tls ? { tls: tls ?? {}, enableTLSForSentinelMode: true } : {}),
    reconnectOnError: (err) => (/READONLY/.test(err.message) ? 2 : false),
  });
}
