/**
 * The local haproxy configuration: TCP mode (TLS stays end to end, client
 * certificates reach the replicas), round robin over the apiserver replicas.
 *
 * Failover contract, with few probes while all is well:
 * - A healthy replica is checked with an HTTPS `GET /readyz` every 2 s (haproxy's
 *   default `inter`, which the platform's own haproxy example keeps). A failed check
 *   switches to a check every 250 ms (`fastinter`): 2 failures take it out, so a
 *   replica that starts draining (SIGTERM: /readyz fails first) is out ≤ 2.25 s
 *   after; a replica that is out is checked every 250 ms (`downinter`) and back
 *   after 2 successes.
 * - kill -9 does not wait for the 2 s check: haproxy watches the replicas' connections
 *   (`observe layer4`), and the first connection a replica refuses or does not accept
 *   in time switches its checks to 250 ms at once (`error-limit 1`, `on-error
 *   fastinter`), so it is out ≤ 0.5 s after. That connection is retried at once on the
 *   other replica (`retries 3`, `option redispatch 1`: every retry goes elsewhere), so
 *   new requests do not fail; only those in flight on the killed process's connections
 *   are lost (they close with it). Marking the replica down on that first error
 *   (`on-error mark-down`) would be slower: haproxy delays a retry by min(1 s,
 *   `timeout connect`) when at most one server is up, which with two replicas is the
 *   state the mark-down itself creates.
 * - A replica taken out keeps its open sessions: on SIGTERM it fails /readyz first
 *   and finishes what it serves (server/shutdown.ts), so cutting them would fail
 *   requests a graceful shutdown completes. `retry-on` (empty response, response
 *   timeout) is not used: haproxy applies it only in HTTP mode and ignores it in TCP mode.
 * - Checks resume their TLS session (haproxy's `ssl-reuse` default), so a check costs a
 *   replica a resumed handshake and one /readyz.
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

/** Check cadence of the replicas (haproxy time format): while up, while changing state, while down. */
export const READYZ_CHECK = { inter: "2s", fastinter: "250ms", downinter: "250ms", fall: 2, rise: 2 } as const;

export function haproxyConfig({ bind, backends }: HaproxySettings): string {
  const { inter, fastinter, downinter, fall, rise } = READYZ_CHECK;
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
    `  default-server check check-ssl verify none inter ${inter} fastinter ${fastinter} downinter ${downinter} fall ${fall} rise ${rise} observe layer4 error-limit 1 on-error fastinter`,
    ...backends.map((b) => `  server ${b.name} ${b.address}`),
    "",
  ].join("\n");
}
