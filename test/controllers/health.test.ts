/**
 * The controller manager's own HTTPS port, from a real process: /healthz, /livez and
 * /readyz with the ping and leaderElection checks (verbose and per check), 404 for an
 * unknown check, /metrics with the seven workqueue_* metrics of the platform labelled by
 * queue name and leader_election_master_status, --tls-min-version honoured, and bad
 * serving or leader election flags refused with exit code 2. The paths are opened with
 * --authorization-always-allow-paths (access control: metrics-access.test.ts).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { eventually, startControllerManager, stopAll, writeAdminKubeconfig, type ControllerManagerProcess } from "./support.ts";

let api: TestApiserver;
let cm: ControllerManagerProcess;
let ca: string;
let kubeconfig: string;

beforeAll(async () => {
  api = await startTestApiserver();
  kubeconfig = await writeAdminKubeconfig(api);
  const certDir = join(api.dir, "health-certs");
  cm = await startControllerManager(kubeconfig, "plat", ["--controllers", "serviceaccount,namespace", "--cert-dir", certDir, "--tls-min-version", "VersionTLS13", "--authorization-always-allow-paths", "/healthz,/healthz/*,/livez,/livez/*,/readyz,/readyz/*,/metrics"]);
  expect(await eventually(async () => cm.output().includes("is the leader of"), 30_000), cm.output()).toBe(true);
  ca = readFileSync(join(certDir, "plat-controller-manager.crt"), "utf8");
});
afterAll(async () => {
  stopAll();
  await api?.close();
});

function get(path: string, maxVersion?: "TLSv1.2"): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: cm.port, path, ca, servername: "localhost", ...(maxVersion ? { maxVersion } : {}) }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("controller manager health and metrics", () => {
  it("answers the three health endpoints with the ping and leaderElection checks", async () => {
    for (const ep of ["/healthz", "/livez", "/readyz"]) {
      expect(await get(ep)).toEqual({ status: 200, text: "ok" });
      const verbose = await get(`${ep}?verbose`);
      expect(verbose.text).toBe(`[+]ping ok\n[+]leaderElection ok\n${ep.slice(1)} check passed\n`);
    }
    expect(await get("/healthz/leaderElection")).toEqual({ status: 200, text: "ok" });
    expect((await get("/healthz/bogus")).status).toBe(404);
  });

  it("exports the workqueue metrics by queue name and the leader status", async () => {
    expect((await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "metrics-ns" } })).status).toBe(201);
    expect(await eventually(async () => (await api.admin.get("/api/v1/namespaces/metrics-ns/serviceaccounts/default")).status === 200)).toBe(true);
    const text = (await get("/metrics")).text;
    for (const name of ["workqueue_depth", "workqueue_adds_total", "workqueue_retries_total", "workqueue_unfinished_work_seconds", "workqueue_longest_running_processor_seconds"]) {
      expect(text).toMatch(new RegExp(`^${name}\\{name="serviceaccount"\\} `, "m"));
    }
    expect(text).toMatch(/^workqueue_queue_duration_seconds_count\{name="serviceaccount"\} [1-9]/m);
    expect(text).toMatch(/^workqueue_work_duration_seconds_bucket\{le="1e-8",name="serviceaccount"\} /m);
    expect(text).toMatch(/^workqueue_adds_total\{name="namespace"\} /m);
    expect(text).toContain('leader_election_master_status{name="plat-controller-manager"} 1');
  });

  it("refuses a TLS 1.2 client under --tls-min-version VersionTLS13", async () => {
    await expect(get("/healthz", "TLSv1.2")).rejects.toThrow();
  });

  it("exits 2 on bad serving or leader election flags", async () => {
    const cases = [
      [["--tls-min-version", "VersionTLS99"], 'unknown tls version "VersionTLS99"'],
      [["--leader-elect-lease-duration", "5s", "--leader-elect-renew-deadline", "10s"], "leaseDuration must be greater than renewDeadline"],
      [["--secure-port", "70000"], "must be between 0 and 65535"],
      [["--leader-elect-resource-lock", "configmaps"], 'unsupported lock type "configmaps"'],
    ] as const;
    const main = join(import.meta.dirname, "..", "..", "services", "controller-manager", "main.ts");
    const results = await Promise.all(
      cases.map(async ([args]) => {
        const child = spawn(process.execPath, ["--import", "tsx", main, "--kubeconfig", kubeconfig, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_OPTIONS: "" } });
        let err = "";
        child.stderr.on("data", (c: Buffer) => (err += c.toString()));
        const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
        return { code, err };
      }),
    );
    results.forEach(({ code, err }, i) => {
      expect(code, err).toBe(2);
      expect(err).toContain(cases[i][1]);
    });
  });
});
