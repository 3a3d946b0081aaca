/**
 * Seeded fuzzing of client configuration files (shared/client/kubeconfig.ts), the
 * way a client reads them: one document resolved for its current context, and
 * several files written to disk, merged and resolved with command-line overrides.
 * Contract for every generated input: the result is a usable configuration (an
 * https server) or a KubeconfigError with a one-line message, never another
 * exception, and each read takes bounded CPU time (it runs on the caller's event loop;
 * CI bounds it loosely because the machine is shared, the long run uses 50 ms).
 * `FUZZ_SEED` replays a run; `LONG=1` (npm run test:long) runs 25× as many cases.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeconfigError, loadMergedKubeconfig, resolveKubeconfig, resolveMerged, type ClientConfig } from "../../shared/client/kubeconfig.ts";
import { arbitraryKubeconfigText } from "./config-arbitraries.ts";
import { cpuMs } from "./cpu-time.ts";

const LONG = process.env.LONG === "1";
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const RUNS = LONG ? 5000 : 200;
const MAX_CASE_MS = LONG ? 50 : 1000;
const params = { seed: SEED, numRuns: RUNS, endOnFailure: true } as const;

let dir: string;
let slowest = 0;
const outcomes = { resolved: 0, refused: 0 };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "fuzz-kubeconfig-"));
  writeFileSync(join(dir, "ca.crt"), "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
  mkdirSync(join(dir, "sub", "dir"), { recursive: true });
  writeFileSync(join(dir, "sub", "dir", "file"), "x");
});

afterAll(() => {
  process.stdout.write(`fuzz kubeconfig: slowest read ${slowest.toFixed(1)} ms; ${JSON.stringify(outcomes)}\n`);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs one read; anything but a configuration or a one-line KubeconfigError fails the property. */
function readOnce(read: () => ClientConfig): void {
  const got: { config?: ClientConfig; failure?: unknown } = {};
  const ms = cpuMs(() => {
    try {
      got.config = read();
    } catch (err) {
      got.failure = err;
    }
  });
  const { config, failure } = got;
  if (!config) {
    if (!(failure instanceof KubeconfigError)) throw new Error(`not a KubeconfigError: ${failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure)}`, { cause: failure });
    if (failure.message.includes("\n")) throw new Error(`a multi-line message: ${JSON.stringify(failure.message)}`, { cause: failure });
    outcomes.refused++;
  }
  slowest = Math.max(slowest, ms);
  if (ms > MAX_CASE_MS) throw new Error(`one read took ${ms.toFixed(1)} ms`);
  if (config) {
    outcomes.resolved++;
    if (!config.server.startsWith("https://")) throw new Error(`resolved a server that is not https: ${config.server}`);
  }
}

describe(`client configuration files under fuzzing (seed ${SEED}, ${RUNS} runs)`, () => {
  it("one document resolved for its current context", () => {
    fc.assert(
      fc.property(arbitraryKubeconfigText(), (text) => readOnce(() => resolveKubeconfig(text, { source: "fuzz.yaml", base: dir }))),
      params,
    );
  });

  it("several files merged and resolved with overrides", () => {
    const override = fc.option(fc.constantFrom("a", "b", "prod", "__proto__", "missing"), { nil: undefined });
    fc.assert(
      fc.property(fc.array(arbitraryKubeconfigText(), { minLength: 1, maxLength: 3 }), fc.record({ context: override, cluster: override, user: override, namespace: override }), (texts, overrides) => {
        const files = texts.map((text, i) => {
          const file = join(dir, `config-${i}`);
          writeFileSync(file, text);
          return file;
        });
        readOnce(() => resolveMerged(loadMergedKubeconfig([...files, join(dir, "absent")], { explicit: false }), overrides));
      }),
      params,
    );
  });

  it("the generator reaches both outcomes (the oracle works)", () => {
    expect(outcomes.resolved).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
  });
});
