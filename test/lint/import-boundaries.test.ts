// The dependency rules, proven through the ESLint API with the repository's own configuration:
// each fixture is linted as if it sat at the given path and must (or must not) be reported.
// `npm run lint` applies the same rule to the whole tree.
import { resolve } from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const eslint = new ESLint({ cwd: root });

async function boundaryErrors(path: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: resolve(root, path) });
  return result.messages.filter((m) => m.ruleId === "plat/import-boundaries").map((m) => m.message);
}

const cases: Array<{ name: string; path: string; source: string; error: RegExp }> = [
  {
    name: "a service importing another service",
    path: "services/node-agent/fixture.ts",
    source: `import { x } from "../apiserver/registry/catalog.ts";\nexport const y = x;\n`,
    error: /services\/node-agent must not import services\/apiserver/,
  },
  {
    name: "a service re-exporting another service",
    path: "services/controller-manager/fixture.ts",
    source: `export * from "../store/mvcc/index.ts";\n`,
    error: /services\/controller-manager must not import services\/store/,
  },
  {
    name: "a service importing another service dynamically",
    path: "services/apiserver/registry/fixture.ts",
    source: `export const m = import("../../store/main.ts");\n`,
    error: /services\/apiserver must not import services\/store/,
  },
  {
    name: "shared code importing a service",
    path: "shared/client/fixture.ts",
    source: `import type { Catalog } from "../../services/apiserver/registry/catalog.ts";\nexport type C = Catalog;\n`,
    error: /shared\/ must not import services\/apiserver/,
  },
  {
    name: "shipped code importing a testing/ harness",
    path: "services/apiserver/authz/fixture.ts",
    source: `import { profile } from "./testing/harness.ts";\nexport const p = profile;\n`,
    error: /shipped code must not import test code \(services\/apiserver\/authz\/testing\/harness\.ts\)/,
  },
  {
    name: "shipped code importing a testdata/ program",
    path: "services/store/wal/fixture.ts",
    source: `import "./testdata/crash-writer.ts";\n`,
    error: /shipped code must not import test code \(services\/store\/wal\/testdata\/crash-writer\.ts\)/,
  },
  {
    name: "shipped code importing test/",
    path: "shared/observability/fixture.ts",
    source: `import { seededRng } from "../../test/support/seeded-rng.ts";\nexport const r = seededRng;\n`,
    error: /shipped code must not import test code \(test\/support\/seeded-rng\.ts\)/,
  },
  {
    name: "shipped code importing a test file",
    path: "services/store/wal/fixture.ts",
    source: `import "./wal.test.ts";\n`,
    error: /shipped code must not import test code/,
  },
  {
    name: "the Raft core importing the simulator",
    path: "services/store/raft/fixture.ts",
    source: `import { runSchedule } from "./sim/simulator.ts";\nexport const r = runSchedule;\n`,
    error: /shipped code must not import test code \(services\/store\/raft\/sim\/simulator\.ts\)/,
  },
  {
    name: "storage importing the server layer",
    path: "services/apiserver/storage/fixture.ts",
    source: `import { startReplica } from "../server/replica.ts";\nexport const s = startReplica;\n`,
    error: /apiserver storage\/ must not import the server layer/,
  },
  {
    name: "registry importing the server layer",
    path: "services/apiserver/registry/fixture.ts",
    source: `import type { AppConfig } from "../server/app.ts";\nexport type A = AppConfig;\n`,
    error: /apiserver registry\/ must not import the server layer/,
  },
  {
    name: "endpoints importing the server layer",
    path: "services/apiserver/endpoints/handlers/fixture.ts",
    source: `export { startReplica } from "../../server/replica.ts";\n`,
    error: /apiserver endpoints\/ must not import the server layer/,
  },
];

describe("import boundaries", () => {
  for (const c of cases) {
    it(`reports ${c.name}`, async () => {
      const errors = await boundaryErrors(c.path, c.source);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(c.error);
    });
  }

  it("allows what the rules allow", async () => {
    const allowed: Array<[string, string]> = [
      ["services/embedded/fixture.ts", `import "../store/main.ts";\nimport "../apiserver/main.ts";\n`],
      ["services/apiserver/server/fixture.ts", `import "../storage/kv.ts";\nimport "../registry/catalog.ts";\nimport "../../../shared/api/status.ts";\n`],
      ["services/apiserver/authz/rbac-fixture.test.ts", `import "./testing/harness.ts";\nimport "../../../test/support/ports.ts";\n`],
      ["services/apiserver/authz/testing/fixture.ts", `import "../../../../test/support/https-call.ts";\n`],
      ["services/store/raft/sim/fixture.ts", `import "./test-cluster.ts";\nimport "../rawnode.ts";\n`],
      ["test/e2e/fixture.test.ts", `import "../../services/apiserver/server/replica.ts";\nimport "../../services/store/main.ts";\n`],
      ["shared/api/fixture.ts", `import "../platform/index.ts";\nimport "node:fs";\nimport "yaml";\n`],
    ];
    for (const [path, source] of allowed) expect(await boundaryErrors(path, source), path).toEqual([]);
  });
});
