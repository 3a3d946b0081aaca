/**
 * The local haproxy configuration: TCP mode (TLS stays end to end, client
 * certificates reach the replicas), round robin over the apiserver replicas.
 *
 * Failover contract: a replica is checked with an HTTPS `GET /readyz` every
 * 250 ms and taken out after 2 failures (marked up again after 2 successes), and a
 * new connection that cannot reach its server is retried (3 times, the last ones
 * on another replica: `option redispatch 1`), so kill -9 of one replica costs new
 * requests well under a second (the killed process's connections close with it).
 * A replica taken out keeps its open sessions: on SIGTERM it fails /readyz first
 * and finishes what it serves (server/shutdown.ts), so cutting them would fail
 * requests a graceful shutdown completes. `retry-on` (empty response, response
 * timeout) is not used: haproxy applies it only in HTTP mode and ignores it in TCP mode.
 */

export interface HaproxyBackend {
  name: string;
  /** host:port of the replica's secure port. */
  address: string;
}

export interface HaproxySettings {
  bind: string;
  backends: readonly HaproxyBackend[];
}

/** Check cadence of the replicas (haproxy time format). */
export const READYZ_CHECK = { inter: "250ms", fall: 2, rise: 2 } as const;

export function haproxyConfig({ bind, backends }: HaproxySettings): string {
  const { inter, fall, rise } = READYZ_CHECK;
  return [
    "global",
    "  maxconn 4096",
    "defaults",
    "  mode tcp",
    "  timeout connect 1s",
    "  timeout check 1s",
    "  timeout client 1h",
    "  timeout server 1h",
    "  retries 3",
    "  option redispatch 1",
    "frontend apiserver",
    `  bind ${bind}`,
    "  default_backend replicas",
    "backend replicas",
    "  balance roundrobin",
    "  option httpchk GET /readyz",
    "  http-check expect status 200",
    `  default-server check check-ssl verify none inter ${inter} fastinter ${inter} downinter ${inter} fall ${fall} rise ${rise}`,
    ...backends.map((b) => `  server ${b.name} ${b.address}`),
    "",
  ].join("\n");
}
