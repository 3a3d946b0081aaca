import { defineConfig } from "vitest/config";

// Unit tests sit beside the code; cross-service tests live under test/.
//
// Two groups, run one after the other: the unit tests of services/ and shared/
// (in-process, light) run two files at a time; then the cross-service tests
// and the unit tests that start clusters of child processes run one file at a
// time, because they assert failover and timing figures that a second heavy
// file on a 2-core machine would disturb.
const PROCESS_CLUSTER_UNIT_TESTS = [
  "services/store/server/cluster-tool.test.ts",
  "services/store/server/etcdctl.test.ts",
  "services/store/node/ready-order.test.ts",
  "services/store/node/raft-node.test.ts",
  "services/store/wal/wal.crash.test.ts",
  "services/apiserver/server/request-path.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    reporters: ["default"],
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["services/**/*.test.ts", "shared/**/*.test.ts"],
          exclude: ["**/node_modules/**", ...PROCESS_CLUSTER_UNIT_TESTS],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/**/*.test.ts", ...PROCESS_CLUSTER_UNIT_TESTS],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
