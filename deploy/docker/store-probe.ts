/**
 * Container health probe of a store node: `node --import tsx deploy/docker/store-probe.ts [host:port]`
 * asks the client API (default 127.0.0.1:2379) for Maintenance Status and exits 0 when the
 * member answers and knows a leader, 1 otherwise (timeout 3 s). Used as the readiness
 * probe: a member without a leader is not counted as available. With a directory as second
 * argument the call is TLS with its ca.crt, client.crt and client.key (the store's
 * client-cert-auth).
 */
import { join } from "node:path";
import { storeStatus } from "../../services/store/server/node-process.ts";
import { grpcChannelCredentials } from "../../shared/tls/grpc-credentials.ts";

const endpoint = process.argv[2] ?? "127.0.0.1:2379";
const tlsDir = process.argv[3];
const tls = grpcChannelCredentials(tlsDir === undefined ? {} : { caFile: join(tlsDir, "ca.crt"), certFile: join(tlsDir, "client.crt"), keyFile: join(tlsDir, "client.key") });

storeStatus(endpoint, 3000, tls.credentials).then(
  (s) => {
    if (s.leader === "0") {
      process.stderr.write(`store ${endpoint}: no leader\n`);
      process.exit(1);
    }
    process.exit(0);
  },
  (err: unknown) => {
    process.stderr.write(`store ${endpoint}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
