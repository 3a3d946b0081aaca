import { readdirSync } from "node:fs";
import { defineConfig } from "vitest/config";

// Unit tests sit beside the code; cross-service tests live under test/.
//
// Three groups, run one after the other: the unit tests of services/ and shared/
// and the API tests against in-process replicas run two files at a time; then
// the tests that start clusters of child processes (store members, replicas,
// node agents) run one file at a time, because they assert failover and timing
// figures that a second heavy file on a 2-core machine would disturb; last, the
// process tests that assert no timing figure run two at a time again.
//
// The first group shares one module graph per worker (`isolate: false`): most of
// its files load the whole apiserver, and loading it again for each of 417 files
// cost more time than the tests themselves (on this 2-core machine: 516 s isolated,
// 216 s shared, the same 6,358 tests). That holds only while no file leaves state behind: each one
// closes the servers, timers and mocks it opens, and none writes module-level
// state another reads. The order is free: the group passes in shuffled order.

/** Files that start processes, kept in the one-at-a-time group wherever they live. */
const PROCESS_CLUSTER_TESTS = [
  "test/api/aggregation-process.test.ts",
  "test/api/encryption-processes.test.ts",
  "test/api/versioning-flags-process.test.ts",
  "test/api/versioning-runtime-config-process.test.ts",
  "test/api/feature-gates-services.test.ts",
  "services/store/server/cluster-tool.test.ts",
  "services/store/node/ready-order.test.ts",
  "services/store/node/raft-node.test.ts",
  "services/store/wal/wal.crash.test.ts",
  "services/apiserver/server/request-path.test.ts",
];

/**
 * Files that start real processes (store members, etcd, Redis, clients) but assert no failover or timing
 * figure: conformance suites, real clients against one replica, chart and certificate flows. They spend
 * most of their time waiting on child processes and disks, so they run two at a time, after the
 * one-at-a-time group.
 */
const PAIRED_PROCESS_TESTS = [
  "services/store/server/etcdctl.test.ts",
  "test/api/watch-memory.test.ts",
  "test/controllers/certificates.test.ts",
  "test/controllers/health.test.ts",
  "test/deploy/chart-credentials.test.ts",
  "test/deploy/helm-dry-run.test.ts",
  "test/e2e/aggregated-discovery.test.ts",
  "test/e2e/authorization-modes.test.ts",
  "test/e2e/client-node.test.ts",
  "test/e2e/cluster-node-agents.test.ts",
  "test/e2e/helm-crd.test.ts",
  "test/e2e/helm.test.ts",
  "test/e2e/kubectl-admission.test.ts",
  "test/e2e/kubectl-crd.test.ts",
  "test/e2e/kubectl-debian.test.ts",
  "test/e2e/kubectl-exec.test.ts",
  "test/e2e/kubectl-pods.test.ts",
  "test/e2e/kubectl-pods-logs.test.ts",
  "test/e2e/kubectl-port-forward.test.ts",
  "test/e2e/kubectl.test.ts",
  "test/e2e/python-client.test.ts",
  "test/e2e/tls-request-after-large-answer.test.ts",
  "test/storage/etcd-backend-conformance.test.ts",
  "test/storage/etcd-backend-prefix.test.ts",
  "test/storage/grpc-kv.test.ts",
  "test/storage/redis-tls.test.ts",
  "test/storage/storage.test.ts",
  "test/storage/store-copy.test.ts",
  "test/storage/store-tls.test.ts",
];

/** Long runs (`*.long.test.ts`) belong to `npm run test:long` (LONG=1) only: never skipped, just not collected. */
const LONG_ONLY = process.env.LONG === "1" ? [] : ["**/*.long.test.ts"];

/** Folders of cross-service tests that drive in-process replicas and short-lived clients (flat folders of test files). */
const IN_PROCESS_TEST_DIRS = ["test/api", "test/cli", "test/fuzz", "test/lint"];

/** Files elsewhere under test/ that start no cluster: pure checks, chart rendering and linting with short-lived helm processes. */
const IN_PROCESS_TEST_FILES = [
  "test/chaos/checks.test.ts",
  "test/chaos/cluster-checks.test.ts",
  "test/deploy/docker-files.test.ts",
  "test/deploy/helm-lint.test.ts",
  "test/deploy/helm-template.test.ts",
  "test/deploy/helm-tls.test.ts",
  "test/deploy/k6-scripts.test.ts",
  "test/loadtest/k6-thresholds.test.ts",
  "test/storage/status-mapping.test.ts",
  "test/storage/storage-snapshots.test.ts",
  "test/storage/update-from-cache.test.ts",
  "test/storage/watch-cache-key-index.test.ts",
  "test/storage/write-outcome.test.ts",
  "test/support/linearizability/kv-model.test.ts",
  "test/support/linearizability/random-histories.test.ts",
];

const inProcessTests = [
  ...IN_PROCESS_TEST_DIRS.flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => f.endsWith(".test.ts"))
      .map((f) => `${dir}/${f}`),
  ),
  ...IN_PROCESS_TEST_FILES,
].filter((f) => !PROCESS_CLUSTER_TESTS.includes(f));

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
          include: ["services/**/*.test.ts", "shared/**/*.test.ts", ...inProcessTests],
          exclude: ["**/node_modules/**", ...LONG_ONLY, ...PROCESS_CLUSTER_TESTS, ...PAIRED_PROCESS_TESTS],
          maxWorkers: 2,
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/**/*.test.ts", ...PROCESS_CLUSTER_TESTS],
          exclude: ["**/node_modules/**", ...LONG_ONLY, ...inProcessTests, ...PAIRED_PROCESS_TESTS],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: "integration-pairs",
          include: PAIRED_PROCESS_TESTS,
          exclude: ["**/node_modules/**", ...LONG_ONLY],
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
