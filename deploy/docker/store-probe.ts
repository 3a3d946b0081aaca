/**
 * Container health probe of a store node: `node --import tsx deploy/docker/store-probe.ts [host:port]`
 * asks the client API (default 127.0.0.1:2379) for Maintenance Status and exits 0 when the
 * member answers and knows a leader, 1 otherwise (timeout 3 s). Used as the readiness
 * probe: a member without a leader is not counted as available.
 */
import { storeStatus } from "../../services/store/server/node-process.ts";

const endpoint = process.argv[2] ?? "127.0.0.1:2379";

storeStatus(endpoint, 3000).then(
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
