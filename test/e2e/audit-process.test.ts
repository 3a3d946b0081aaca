/**
 * The audit and encryption flags of the apiserver process (`services/embedded/main.ts`,
 * the single-process default): `--audit-policy-file`, `--audit-log-path`,
 * `--audit-log-format=legacy`, `--audit-log-maxbackup` and `--encryption-provider-config`.
 * kubectl 1.34 creates a Secret and reads it: the legacy audit lines name the
 * requests (with admission's annotations), the Secret's value is in no file of the data directory (the embedded
 * store's log and snapshots), and kubectl reads it back.
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getProfile } from "../../shared/platform/index.ts";
import { layerClients, runClient } from "../support/clients.ts";
import { startServerProcess, type ServerProcess } from "../support/server-process.ts";

const profile = getProfile("kubernetes");
const VALUE = "process-secret-value-51c0ffee";
let dir: string;
let server: ServerProcess;
let auditLog: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "e2e-audit-"));
  const policy = join(dir, "policy.yaml");
  await writeFile(policy, [`apiVersion: audit.${profile.groupDomain}/v1`, "kind: Policy", "omitStages: [RequestReceived]", "rules:", "- level: Metadata", ""].join("\n"));
  const encryption = join(dir, "encryption.yaml");
  await writeFile(
    encryption,
    [`apiVersion: ${profile.apiVersion("apiserverConfig", "v1")}`, "kind: EncryptionConfiguration", "resources:", "- resources: [secrets]", "  providers:", `  - aesgcm: {keys: [{name: k1, secret: ${Buffer.alloc(32, 5).toString("base64")}}]}`, ""].join("\n"),
  );
  auditLog = join(dir, "audit.log");
  server = await startServerProcess(["--audit-policy-file", policy, "--audit-log-path", auditLog, "--audit-log-format=legacy", "--audit-log-maxbackup=3", "--encryption-provider-config", encryption]);
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function kubectl(...args: string[]) {
  return runClient(layerClients().kubectl, ["--kubeconfig", server.kubeconfig, ...args], { env: { HOME: dir } });
}

async function filesUnder(d: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (const name of await readdir(d)) {
    const p = join(d, name);
    if ((await stat(p)).isDirectory()) parts.push(await filesUnder(p));
    else parts.push(await readFile(p));
  }
  return Buffer.concat(parts);
}

describe("audit and encryption flags of the apiserver process", () => {
  it("carries admission's annotations (PodSecurity's policy) on the event of a pod's creation", async () => {
    const pod = JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "audited-pod", namespace: "default" }, spec: { containers: [{ name: "c", image: "busybox" }] } });
    const out = await runClient(layerClients().kubectl, ["--kubeconfig", server.kubeconfig, "create", "-f", "-"], { input: pod, env: { HOME: dir } });
    expect(out.code, out.stderr).toBe(0);
    const key = `${profile.admission.podSecurityLabelPrefix}enforce-policy`;
    const deadline = Date.now() + 5000;
    let line: string | undefined;
    while (!line && Date.now() < deadline) {
      line = (await readFile(auditLog, "utf8")).split("\n").find((l) => l.includes('method="create"') && l.includes("/pods"));
      if (!line) await new Promise((r) => setTimeout(r, 50));
    }
    expect(line).toContain(`${key}="privileged:latest"`);
  });

  it("logs kubectl's requests as legacy lines and keeps the Secret's value encrypted on disk", async () => {
    const created = await kubectl("create", "secret", "generic", "proc-secret", "-n", "default", `--from-literal=v=${VALUE}`);
    expect(created.code, created.stderr).toBe(0);
    const read = await kubectl("get", "secret", "proc-secret", "-n", "default", "-o", "jsonpath={.data.v}");
    expect(read.code, read.stderr).toBe(0);
    expect(Buffer.from(read.stdout, "base64").toString()).toBe(VALUE);

    const deadline = Date.now() + 5000;
    let lines: string[] = [];
    while (Date.now() < deadline) {
      lines = (await readFile(auditLog, "utf8")).split("\n").filter((l) => l.includes("proc-secret"));
      if (lines.length >= 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const get = lines.find((l) => l.includes('method="get"'));
    expect(get).toMatch(/^\S+ AUDIT: id="[0-9a-f-]{36}" stage="ResponseComplete" ip="127\.0\.0\.1" method="get" user="[^"]+" groups="(?:[^"\\]|\\.)*" as="<self>" asgroups="<lookup>" user-agent="kubectl\/v1\.34[^"]*" namespace="default" uri="\/api\/v1\/namespaces\/default\/secrets\/proc-secret" response="200"/);
    expect(lines.some((l) => l.includes('stage="RequestReceived"'))).toBe(false);

    const disk = await filesUnder(server.dir);
    expect(disk.includes(Buffer.from("k8s:enc:aesgcm:v1:k1:"))).toBe(true);
    expect(disk.includes(Buffer.from(VALUE))).toBe(false);
    expect(disk.includes(Buffer.from(Buffer.from(VALUE).toString("base64")))).toBe(false);
    expect(await readFile(auditLog, "utf8")).not.toContain(VALUE);
  });
});
