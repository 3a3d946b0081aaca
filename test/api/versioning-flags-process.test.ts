/**
 * The versioning flags on the server process (issue 24): a locked gate stops start-up
 * with exit code 2 and the platform's message before anything is written (the other bad
 * values are a table in version-options.test.ts); `--help` states each gate's stage,
 * default and whether setting it still has an effect. Both processes run at once.
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

function runMain(args: string[]): Promise<MainRun> {
  return runServerMain(["--data-dir", dir, "--secure-port", "0", ...args]);
}

const runs: { locked?: ReturnType<typeof runMain>; help?: ReturnType<typeof runMain> } = {};

describe("versioning flags on the process", () => {
  beforeAll(() => {
    runs.locked = runMain(["--feature-gates=AuthorizeWithSelectors=false"]);
    runs.help = runMain(["--help"]);
  });

  it("a locked gate set against its lock: exit code 2, the platform's message, nothing written", async () => {
    const locked = await runs.locked!;
    expect(locked.code).toBe(2);
    expect(locked.stderr.split("\n")[0]).toBe("error: invalid argument for --feature-gates: cannot set feature gate AuthorizeWithSelectors to false, feature is locked to true");
    expect(await readdir(dir)).toEqual([]);
  }, 30_000);

  it("--help states each gate's stage and default", async () => {
    const out = await runs.help!;
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("AllowUnsafeMalformedObjectDeletion=true|false (ALPHA - default=false)");
    expect(out.stdout).toContain("MutatingAdmissionPolicy=true|false (BETA - default=false)");
    expect(out.stdout).toContain("ConsistentListFromCache (GA, locked to true: setting it has no effect)");
    expect(out.stdout).toContain("kube=1.32..1.35(default:1.35)");
    expect(out.stdout).toContain("--show-hidden-metrics-for-version");
  }, 30_000);
});
