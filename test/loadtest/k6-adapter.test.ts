/**
 * The k6 scenarios (loadtest/k6) against a real apiserver without k6: type-checked
 * against @types/k6 (checkJs, loadtest/k6/tsconfig.json), then each scenario's
 * iterations run through the adapter (loadtest/k6-adapter), whose k6/http calls
 * go over node:https to startTestApiserver with a client certificate. Their checks
 * must meet real answers and pass, their thresholds are evaluated over the real
 * samples, and their teardown must really remove what they made. A request the
 * server refuses makes setup fail with the server's status.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pkiPaths } from "../../services/apiserver/server/certs.ts";
import { runK6Script, type K6RunResult } from "../../loadtest/k6-adapter/runner.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const K6 = join(ROOT, "loadtest", "k6");
const run = promisify(execFile);

/** Thresholds that hold on any machine: failure rates, check rates, counts (latency bounds depend on the machine's load). */
const notLatency = (r: K6RunResult) => r.thresholds.filter((t) => !t.key.startsWith("http_req_duration"));

describe("k6 scenarios through the adapter", () => {
  let server: TestApiserver;
  let env: Record<string, string>;
  const work = mkdtempSync(join(tmpdir(), "k6-adapter-"));

  beforeAll(async () => {
    server = await startTestApiserver({ profileId: "plat" });
    const pki = pkiPaths(server.dir);
    env = { BASE_URL: server.replica.url, CLIENT_CERT: pki.adminCert, CLIENT_KEY: pki.adminKey, NAMESPACE: "k6" };
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("type-check against @types/k6", async () => {
    const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
    const out = await run(process.execPath, [tsc, "-p", join(K6, "tsconfig.json")], { cwd: ROOT }).then(
      (r) => r.stdout,
      (err: { stdout?: string }) => `failed:\n${err.stdout ?? String(err)}`,
    );
    expect(out).toBe("");
  }, 120_000);

  it("crud: create, get, patch, list and delete meet real answers", async () => {
    const r = await runK6Script({ script: join(K6, "crud.js"), env, ca: server.ca, iterations: 3 });
    expect(r.scenarios.map((s) => [s.name, s.iterations, s.errors])).toEqual([["crud", 3, []]]);
    expect(r.checks).toEqual({ passed: 15, failed: 0, failedNames: [] });
    const ops = new Set(r.samples.filter((s) => s.metric === "http_reqs").map((s) => `${s.tags.op} ${s.tags.status}`));
    expect([...ops].sort()).toEqual(["create 201", "delete 200", "get 200", "list 200", "patch 200", "setup 201", "teardown 200"]);
    expect(notLatency(r).filter((t) => !t.ok)).toEqual([]);
    expect(r.samples.filter((s) => s.metric === "configmaps_created").length).toBe(3);
  }, 60_000);

  it("list-pagination: every seeded object is listed once, page by page, and teardown removes them", async () => {
    const r = await runK6Script({ script: join(K6, "list-pagination.js"), env: { ...env, SEED: "23", PAGE_SIZE: "5" }, ca: server.ca, iterations: 2 });
    expect(r.checks.failed).toBe(0);
    expect(r.checks.passed).toBe(2 * (5 + 1));
    expect(r.samples.filter((s) => s.metric === "list_pages").map((s) => s.value)).toEqual([5, 5]);
    expect(notLatency(r).filter((t) => !t.ok)).toEqual([]);
    const left = await server.admin.get("/api/v1/namespaces/k6/configmaps");
    expect((left.json() as { items: unknown[] }).items).toEqual([]);
  }, 60_000);

  it("watch: the watcher receives the writers' events while they run", async () => {
    const r = await runK6Script({ script: join(K6, "watch.js"), env: { ...env, WATCH_TIMEOUT: "2", WRITE_RATE: "4" }, ca: server.ca, iterations: 1, arrivals: 8 });
    expect(r.scenarios.map((s) => [s.name, s.exec, s.iterations, s.errors])).toEqual([
      ["watchers", "watcher", 1, []],
      ["writers", "writer", 8, []],
    ]);
    expect(r.checks.failed).toBe(0);
    const events = r.samples.filter((s) => s.metric === "watch_events").length;
    expect(events).toBeGreaterThan(0);
    expect(notLatency(r).filter((t) => !t.ok)).toEqual([]);
    expect(r.thresholds.find((t) => t.key === "watch_events")).toMatchObject({ ok: true, actual: events });
  }, 60_000);

  it("a refusing server fails setup with its answer", async () => {
    await expect(runK6Script({ script: join(K6, "crud.js"), env: { ...env, NAMESPACE: "Not_A_Name" }, ca: server.ca })).rejects.toThrow(/setup: creating namespace Not_A_Name: 422 .*Invalid/);
  }, 60_000);
});
