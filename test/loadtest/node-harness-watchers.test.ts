/**
 * `npm run loadtest -- --watchers N` as a real child process against a real
 * apiserver (startTestApiserver, client certificate): the watchers receive the
 * run's creates and patches and the report gives their delivery latency
 * percentiles (write sent -> event received), in the printed report and the JSON.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pkiPaths } from "../../services/apiserver/server/certs.ts";
import type { Summary } from "../../loadtest/node/stats.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);

describe("node load harness --watchers", () => {
  let server: TestApiserver;
  const work = mkdtempSync(join(tmpdir(), "loadtest-watchers-"));

  beforeAll(async () => {
    server = await startTestApiserver({ profileId: "plat" });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("reports watch delivery latency percentiles of the run's writes", async () => {
    const pki = pkiPaths(server.dir);
    const json = join(work, "result.json");
    const args = ["--import", "tsx", join(ROOT, "loadtest/node/main.ts"), "--url", server.replica.url, "--ca", pki.caCert, "--cert", pki.adminCert, "--key", pki.adminKey];
    const { stdout } = await run(process.execPath, [...args, "--concurrency", "2", "--duration", "3s", "--mix", "crud=1", "--watchers", "2", "--max-error-rate", "0", "--json", json], { cwd: ROOT, timeout: 90_000 });
    const summary = JSON.parse(readFileSync(json, "utf8")) as Summary;
    const d = summary.watchDelivery;
    expect(d, stdout).toBeDefined();
    const writes = (summary.operations.create?.requests ?? 0) + (summary.operations.patch?.requests ?? 0);
    expect(writes).toBeGreaterThan(0);
    // Each watcher sees each create and patch once (the last ones may still be in flight at the end).
    expect(d?.events).toBeGreaterThan(0);
    expect(d?.events).toBeLessThanOrEqual(2 * writes);
    expect(d?.failures).toBe(0);
    expect(d?.p50).toBeGreaterThanOrEqual(0);
    expect(d?.p50).toBeLessThanOrEqual(d?.p99 ?? -1);
    expect(d?.p99).toBeLessThanOrEqual(d?.max ?? -1);
    expect(stdout).toMatch(/watch delivery \(ms, write sent -> event received, 2 watchers, \d+ events, 0 failed watches\): p50 [\d.]+ {2}p95 [\d.]+ {2}p99 [\d.]+ {2}max [\d.]+/);
  }, 120_000);

  it("refuses a negative --watchers", async () => {
    const err = await run(process.execPath, ["--import", "tsx", join(ROOT, "loadtest/node/main.ts"), "--url", server.replica.url, "--insecure", "--watchers", "-1"], { cwd: ROOT }).catch((e: { code: number; stderr: string }) => e);
    expect(err).toMatchObject({ code: 2, stderr: expect.stringMatching(/--watchers must be a non-negative integer/) });
  }, 60_000);
});
