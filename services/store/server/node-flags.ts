/**
 * Flags of the store node binary (services/store/main.ts), named as etcd names them,
 * and their parsed form.
 */
import { FlagError, type FlagSpec, type FlagValues } from "../../../shared/cli/flags.ts";
import { STORE_TLS_FLAGS, storeTlsConfig, type StoreTlsConfig } from "./tls-flags.ts";

export const STORE_FLAGS: Record<string, FlagSpec> = {
  name: { kind: "string", default: "default", help: "this member's name (a key of --initial-cluster)" },
  "data-dir": { kind: "string", default: "default.store", help: "directory of the write-ahead log and snapshots" },
  "listen-client-urls": { kind: "list", default: ["http://127.0.0.1:2379"], help: "URLs to serve the client (etcd v3) API on" },
  "advertise-client-urls": { kind: "list", help: "client URLs told to other members and clients (default: --listen-client-urls)" },
  "listen-peer-urls": { kind: "list", default: ["http://127.0.0.1:2380"], help: "URLs to serve the peer transport on" },
  "initial-cluster": { kind: "string", default: "", help: "name=peerURL,... of the initial members (default: this member alone)" },
  "initial-cluster-token": { kind: "string", default: "store-cluster", help: "token the cluster id is derived from; the same on every member" },
  "initial-cluster-state": { kind: "string", default: "new", help: "new (bootstrap) or existing (join a running cluster)" },
  "election-timeout": { kind: "number", default: 1000, help: "Raft election timeout in milliseconds" },
  "heartbeat-interval": { kind: "number", default: 100, help: "Raft heartbeat interval in milliseconds" },
  "snapshot-count": { kind: "number", default: 100_000, help: "applied entries between snapshots" },
  "removed-member-linger-max": {
    kind: "duration",
    help: "how long a removed member may keep answering votes before it exits even if the group may still need it, e.g. 30s or 1500ms (default: 20 election timeouts)",
  },
  "redis-url": { kind: "string", help: "Redis URL of the revision stream (the leader publishes to it); none: no publishing" },
  "revision-stream": { kind: "string", default: "revisions", help: "name of the revision stream" },
  "max-request-bytes": { kind: "number", default: 1.5 * 1024 * 1024, help: "largest client write accepted" },
  "quota-backend-bytes": { kind: "number", default: 2 * 1024 * 1024 * 1024, help: "space quota of the state; writes beyond it raise the NOSPACE alarm" },
  "experimental-corrupt-check-time": { kind: "duration", default: 0, help: "interval of the leader's hash comparison across members, e.g. 1m (0: off)" },
  profile: { kind: "string", default: "plat", help: "naming profile: plat or kubernetes" },
  ...STORE_TLS_FLAGS,
  help: { kind: "boolean", default: false, help: "print the flags" },
};

export interface InitialMember {
  name: string;
  peerUrls: string[];
}

export interface NodeConfig {
  name: string;
  dataDir: string;
  listenClientUrls: URL[];
  advertiseClientUrls: string[];
  listenPeerUrls: URL[];
  initialCluster: InitialMember[];
  initialClusterState: "new" | "existing";
  initialClusterToken: string;
  electionTimeoutMs: number;
  heartbeatIntervalMs: number;
  snapshotCount: number;
  /** Upper bound of a removed member's lingering (RaftNodeOptions.removedLingerMaxMs); undefined: the node's default. */
  removedMemberLingerMaxMs: number | undefined;
  redisUrl: string | undefined;
  revisionStream: string;
  maxRequestBytes: number;
  quotaBackendBytes: number;
  /** 0: no periodic corruption check. */
  corruptCheckTimeMs: number;
  profile: string;
  /** Client API, peer transport and Redis TLS files (tls-flags.ts). */
  tls: StoreTlsConfig;
}

function urls(list: unknown, flag: string): URL[] {
  return (list as string[]).map((u) => {
    let url: URL;
    try {
      url = new URL(u);
    } catch {
      throw new FlagError(`invalid URL "${u}" for --${flag}`);
    }
    if ((url.protocol !== "http:" && url.protocol !== "https:") || url.port === "") throw new FlagError(`--${flag}: "${u}" must be http(s)://host:port`);
    return url;
  });
}

/** "a=http://h:1,a=http://h:2,b=http://h:3" -> members in order of first appearance. */
export function parseInitialCluster(text: string): InitialMember[] {
  const members = new Map<string, string[]>();
  for (const part of text.split(",").filter((p) => p.trim() !== "")) {
    const eq = part.indexOf("=");
    if (eq <= 0) throw new FlagError(`--initial-cluster: "${part}" is not name=url`);
    const name = part.slice(0, eq).trim();
    const url = part.slice(eq + 1).trim();
    urls([url], "initial-cluster");
    members.set(name, [...(members.get(name) ?? []), url]);
  }
  return [...members].map(([name, peerUrls]) => ({ name, peerUrls }));
}

export function nodeConfig(flags: FlagValues): NodeConfig {
  const listenClientUrls = urls(flags["listen-client-urls"], "listen-client-urls");
  const listenPeerUrls = urls(flags["listen-peer-urls"], "listen-peer-urls");
  const name = String(flags.name);
  const advertised = flags["advertise-client-urls"] as string[];
  let initialCluster = parseInitialCluster(String(flags["initial-cluster"]));
  if (initialCluster.length === 0) initialCluster = [{ name, peerUrls: listenPeerUrls.map((u) => u.origin) }];
  if (!initialCluster.some((m) => m.name === name)) throw new FlagError(`--initial-cluster has no member named "${name}"`);
  const state = String(flags["initial-cluster-state"]);
  if (state !== "new" && state !== "existing") throw new FlagError(`--initial-cluster-state must be new or existing, not "${state}"`);
  const positive = (flag: string): number => {
    const n = Number(flags[flag]);
    if (!Number.isInteger(n) || n <= 0) throw new FlagError(`--${flag} must be a positive integer`);
    return n;
  };
  const electionTimeoutMs = positive("election-timeout");
  const heartbeatIntervalMs = positive("heartbeat-interval");
  if (electionTimeoutMs < 5 * heartbeatIntervalMs) throw new FlagError("--election-timeout must be at least 5 times --heartbeat-interval");
  // parseFlags gives a duration in milliseconds (never negative); sub-millisecond parts are dropped.
  const linger = flags["removed-member-linger-max"];
  const removedMemberLingerMaxMs = linger === undefined ? undefined : Math.floor(Number(linger));
  return {
    name,
    dataDir: String(flags["data-dir"]),
    listenClientUrls,
    advertiseClientUrls: advertised.length > 0 ? advertised : listenClientUrls.map((u) => u.origin),
    listenPeerUrls,
    initialCluster,
    initialClusterState: state,
    initialClusterToken: String(flags["initial-cluster-token"]),
    electionTimeoutMs,
    heartbeatIntervalMs,
    snapshotCount: positive("snapshot-count"),
    removedMemberLingerMaxMs,
    redisUrl: flags["redis-url"] === undefined || flags["redis-url"] === "" ? undefined : String(flags["redis-url"]),
    revisionStream: String(flags["revision-stream"]),
    maxRequestBytes: positive("max-request-bytes"),
    quotaBackendBytes: positive("quota-backend-bytes"),
    corruptCheckTimeMs: Math.floor(Number(flags["experimental-corrupt-check-time"] ?? 0)),
    profile: String(flags.profile),
    tls: storeTlsConfig(flags, { client: listenClientUrls, peer: listenPeerUrls }),
  };
}
