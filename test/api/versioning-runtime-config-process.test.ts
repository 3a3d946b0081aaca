/**
 * `--runtime-config` on the server process (issue 24): a key naming nothing the server
 * serves stops start-up with exit code 1 and one line on stderr, before any data is
 * written; a valid one starts the server and the disabled version answers 404 through
 * kubectl 1.34's raw GET.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runServerMain, type MainRun } from "../support/server-main-run.ts";
import { layerClients, runClient } from "../support/clients.ts";
import { startServerProcess, type ServerProcess } from "../support/server-process.ts";

let server: ServerProcess | undefined;

afterAll(async () => {
  await server?.close();
});

function runMain(args: string[]): Promise<MainRun> {
  return runServerMain(args, 20_000);
}

describe("--runtime-config on the process", () => {
  it("refuses an unknown key with one line and exit code 1, writing nothing", async () => {
    const dir = await mkdtemp(join(tmpdir(), "versioning-rc-"));
    try {
      const out = await runMain(["--data-dir", dir, "--secure-port", "0", "--bind-address", "127.0.0.1", "--profile", "kubernetes", "--runtime-config=api/all,frobs.example.com/v1=false"]);
      expect(out.code).toBe(1);
      expect(out.stderr.trim().split("\n")).toEqual(['apiserver: invalid --runtime-config key "frobs.example.com/v1": no such group version or resource is served by this server']);
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it("serves without the disabled version", async () => {
    server = await startServerProcess(["--runtime-config=batch/v1=false"]);
    const env = { HOME: server.dir, KUBECONFIG: server.kubeconfig };
    const jobs = await runClient(layerClients().kubectl, ["get", "--raw", "/apis/batch/v1/jobs"], { env });
    expect(jobs.code).not.toBe(0);
    expect(jobs.stderr).toContain("NotFound");
    const deployments = await runClient(layerClients().kubectl, ["get", "--raw", "/apis/apps/v1/deployments"], { env });
    expect(deployments.code, deployments.stderr).toBe(0);
  }, 60_000);
});
