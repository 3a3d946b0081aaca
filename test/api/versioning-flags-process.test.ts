/**
 * The versioning flags on the server process (issue 24): a locked gate stops start-up
 * with exit code 2 and the platform's message before anything is written (the other bad
 * values, a removed gate and a --show-hidden-metrics-for-version other than the previous
 * release among them, are a table in version-options.test.ts: the same parsing main runs
 * first); a deprecated or GA gate set is warned about in the log; `--help` states each gate's stage, default and whether
 * setting it still has an effect. All the processes run at once.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runServerMain, type MainRun } from "../support/server-main-run.ts";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "versioning-flags-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every run ends by itself (a refused flag, or --help); the limit only guards a start-up slowed by load (three tsx starts at once took over 55 s at load 18). */
function runMain(args: string[]): Promise<MainRun> {
  return runServerMain(["--data-dir", dir, "--secure-port", "0", ...args], 90_000);
}

const runs: Partial<Record<"locked" | "help" | "warned", ReturnType<typeof runMain>>> = {};

describe("versioning flags on the process", () => {
  beforeAll(() => {
    runs.locked = runMain(["--feature-gates=AuthorizeWithSelectors=false"]);
    runs.help = runMain(["--help"]);
    // Setting a deprecated and a GA gate is allowed and warned about; the bad --runtime-config key then ends the run.
    runs.warned = runMain(["--feature-gates=AggregatedDiscoveryRemoveBetaType=true,RetryGenerateName=true", "--runtime-config=frobs.example.com/v1"]);
  });

  it("a locked gate set against its lock: exit code 2, the platform's message, nothing written", async () => {
    const locked = await runs.locked!;
    expect(locked.code).toBe(2);
    expect(locked.stderr.split("\n")[0]).toBe("error: invalid argument for --feature-gates: cannot set feature gate AuthorizeWithSelectors to false, feature is locked to true");
    expect(await readdir(dir)).toEqual([]);
  }, 100_000);

  it("setting a deprecated or a GA gate logs a warning at start-up", async () => {
    const warned = await runs.warned!;
    expect(warned.code, warned.stderr).toBe(1);
    const output = `${warned.stdout}${warned.stderr}`;
    expect(output).toContain("Setting deprecated feature gate AggregatedDiscoveryRemoveBetaType=true. It will be removed in a future release.");
    expect(output).toContain("Setting GA feature gate RetryGenerateName=true. It will be removed in a future release.");
  }, 100_000);

  it("--help states each gate's stage and default", async () => {
    const out = await runs.help!;
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("AllowUnsafeMalformedObjectDeletion=true|false (ALPHA - default=false)");
    expect(out.stdout).toContain("MutatingAdmissionPolicy=true|false (BETA - default=false)");
    expect(out.stdout).toContain("ConsistentListFromCache (GA, locked to true: setting it has no effect)");
    expect(out.stdout).toContain("kube=1.32..1.35(default:1.35)");
    expect(out.stdout).toContain("--show-hidden-metrics-for-version");
  }, 100_000);
});
