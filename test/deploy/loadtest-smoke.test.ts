/**
 * CI-sized run of the node load harness (`npm run loadtest`'s entry point, as a process)
 * against the apiserver process: a 3-second mix over real HTTPS with the admin client
 * configuration. Its counts must be consistent (no errors, requests > 0, per-operation
 * counts add up, the run's surviving objects visible in a list), and a threshold no run
 * can meet must make it exit non-zero.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromKubeconfig } from "../../loadtest/node/connection.ts";
import { LoadClient } from "../../loadtest/node/client.ts";
import { RUN_LABEL } from "../../loadtest/node/scenarios.ts";
import type { Summary } from "../../loadtest/node/stats.ts";
import { startServerProcess, type ServerProcess } from "../support/server-process.ts";
import { ROOT } from "./support/chart.ts";

const MAIN = join(ROOT, "loadtest", "node", "main.ts");
let server: ServerProcess;
let work: string;

function harness(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", MAIN, "--kubeconfig", server.kubeconfig, ...args], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === "number" ? err.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "loadtest-smoke-"));
  server = await startServerProcess();
});
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe("node load harness against the apiserver process", () => {
  it("runs the scenario mix without errors and reports consistent counts", async () => {
    const json = join(work, "summary.json");
    const r = await harness(["--duration", "3s", "--concurrency", "4", "--mix", "crud=2,list=1,watch=1", "--watch-timeout", "1", "--page-size", "5", "--namespace", "smoke", "--cleanup=false", "--max-error-rate", "0", "--json", json]);
    expect(r.code, `${r.stdout}${r.stderr}`).toBe(0);
    expect(r.stdout).toContain("thresholds: passed");
    const s = JSON.parse(readFileSync(json, "utf8")) as Summary & { runId: string; thresholdsBroken: string[] };
    expect(s.errors).toBe(0);
    expect(s.errorsByStatus).toEqual({});
    expect(s.requests).toBeGreaterThan(0);
    expect(Object.values(s.operations).reduce((n, o) => n + o.requests, 0)).toBe(s.requests);
    expect(Object.values(s.byStatus).reduce((n, c) => n + c, 0)).toBe(s.requests);
    for (const op of ["create", "get", "patch", "list", "watch"]) expect(s.operations[op]?.requests ?? 0, op).toBeGreaterThan(0);
    expect(s.operations.create.requests).toBe(s.created);
    expect(s.operations.delete?.requests ?? 0).toBe(s.deleted);
    expect(s.created).toBeGreaterThan(s.deleted);

    // The objects the run created and did not delete are visible.
    const client = new LoadClient(fromKubeconfig(server.kubeconfig), 1);
    try {
      const list = await client.send("GET", `/api/v1/namespaces/smoke/configmaps?labelSelector=${encodeURIComponent(`${RUN_LABEL}=${s.runId}`)}`);
      expect(list.status).toBe(200);
      const items = (JSON.parse(list.text) as { items: Array<{ data: Record<string, string> }> }).items;
      expect(items).toHaveLength(s.created - s.deleted);
      for (const item of items) expect(item.data.step).toBe("patched");
    } finally {
      client.close();
    }
  });

  it("exits 1 and names the broken threshold when one cannot be met", async () => {
    const r = await harness(["--duration", "1s", "--concurrency", "2", "--mix", "crud=1", "--namespace", "smoke", "--p99-ms", "0.000001"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("thresholds: BROKEN");
    expect(r.stdout).toMatch(/p99 [\d.]+ ms > 0\.000001 ms/);
  });

  it("exits 2 on a usage error", async () => {
    const r = await harness(["--mix", "crud=1,flood=2"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown scenario "flood"');
  });
});
