/**
 * The controller-manager process (services/controller-manager/main.ts) as an ordinary
 * API client of a replica: `--kubeconfig` with the admin client certificate,
 * `--controllers` choosing what runs, `--help`, and bad flags or files.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensurePki, kubeconfigYaml } from "../../services/apiserver/server/certs.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const MAIN = join(ROOT, "services", "controller-manager", "main.ts");

let api: TestApiserver;
let kubeconfig: string;
const children: ChildProcess[] = [];

function start(args: string[]): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  // --secure-port 0: no health port, so parallel test files never compete for 10257.
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, "--secure-port", "0", ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_OPTIONS: "" } });
  children.push(child);
  let out = "";
  child.stdout?.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function eventually(fn: () => Promise<boolean>, timeoutMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await fn()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return fn();
}

beforeAll(async () => {
  api = await startTestApiserver();
  const pki = await ensurePki(api.dir, { profile: api.profile });
  kubeconfig = join(api.dir, "cm.kubeconfig");
  writeFileSync(kubeconfig, kubeconfigYaml({ server: api.replica.url, caPem: pki.ca.certPem, certPem: pki.admin.certPem, keyPem: pki.admin.keyPem, user: "admin", clusterName: "local", contextName: "admin@local" }));
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await api?.close();
});

describe("controller-manager process", () => {
  it("runs only the chosen controllers: namespaces terminate, garbage is left alone", async () => {
    const cm = start(["--kubeconfig", kubeconfig, "--controllers", "namespace", "--profile", api.profile.id]);
    expect(await eventually(async () => cm.output().includes("controller manager running"))).toBe(true);
    expect(cm.output()).toContain("running namespace-controller against");

    expect((await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "cm-doomed" } })).status).toBe(201);
    expect((await api.admin.post("/api/v1/namespaces/cm-doomed/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "inside" } })).status).toBe(201);
    const owner = (await api.admin.post("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm-owner" } })).json<{ metadata: { uid: string } }>();
    await api.admin.post("/api/v1/namespaces/default/configmaps", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cm-dep", ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "cm-owner", uid: owner.metadata.uid }] },
    });
    expect((await api.admin.delete("/api/v1/namespaces/cm-doomed")).status).toBe(200);
    expect((await api.admin.delete("/api/v1/namespaces/default/configmaps/cm-owner")).status).toBe(200);
    expect(await eventually(async () => (await api.admin.get("/api/v1/namespaces/cm-doomed")).status === 404)).toBe(true);
    // The garbage collector is off: the dependent of the deleted owner stays.
    expect((await api.admin.get("/api/v1/namespaces/default/configmaps/cm-dep")).status).toBe(200);

    cm.child.kill("SIGTERM");
    expect(await cm.exited).toBe(0);
  });

  it("waits for an API server that does not answer yet instead of exiting", async () => {
    const closed = join(api.dir, "closed.kubeconfig");
    const pki = await ensurePki(api.dir, { profile: api.profile });
    // Port 1 on loopback: nothing listens there.
    writeFileSync(closed, kubeconfigYaml({ server: "https://127.0.0.1:1", caPem: pki.ca.certPem, certPem: pki.admin.certPem, keyPem: pki.admin.keyPem, user: "admin", clusterName: "local", contextName: "admin@local" }));
    const cm = start(["--kubeconfig", closed]);
    expect(await eventually(async () => cm.output().includes("waiting for the API server"))).toBe(true);
    expect(cm.child.exitCode).toBeNull();
    cm.child.kill("SIGTERM");
    await cm.exited;
  });

  it("--help lists the flags and exits 0", async () => {
    const p = start(["--help"]);
    expect(await p.exited).toBe(0);
    for (const flag of ["--kubeconfig", "--controllers", "--profile", "--help"]) expect(p.output()).toContain(flag);
  });

  it("an unknown controller or flag exits 2 with the reason", async () => {
    const bad = start(["--kubeconfig", kubeconfig, "--controllers", "*,bogus"]);
    expect(await bad.exited).toBe(2);
    expect(bad.output()).toContain('"bogus" is not in the list of known controllers');
    const flag = start(["--nope"]);
    expect(await flag.exited).toBe(2);
    expect(flag.output()).toContain("unknown flag: --nope");
  });

  it("a missing or malformed client configuration exits 1 with one line", async () => {
    const missing = start(["--kubeconfig", join(api.dir, "absent.kubeconfig")]);
    expect(await missing.exited).toBe(1);
    expect(missing.output().trim()).toMatch(/^controller-manager: cannot read client configuration .*absent\.kubeconfig: ENOENT$/);
    const garbage = join(api.dir, "garbage.kubeconfig");
    writeFileSync(garbage, "current-context: [\n");
    const bad = start(["--kubeconfig", garbage]);
    expect(await bad.exited).toBe(1);
    expect(bad.output().trim().split("\n")).toHaveLength(1);
    expect(bad.output()).toContain("not a valid configuration file");
  });
});
