/**
 * Authentication and authorization on the controller manager's port, delegated to a
 * replica with RBAC, from a real process: /healthz, /livez and /readyz stay open to
 * anonymous callers; /metrics is refused to anonymous callers with the platform's 403
 * Status; a bearer token is checked with a TokenReview (a bad one: 401) and the path
 * with a SubjectAccessReview (a user bound to system:monitoring reads /metrics, another
 * user is refused); a client certificate from --client-ca-file in system:masters is
 * allowed without a review; without --authorization-kubeconfig everything outside the
 * always-allowed paths is forbidden.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAuthenticationOptions } from "../../services/apiserver/authn/options.ts";
import { ensurePki } from "../../services/apiserver/server/certs.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { HttpsClient } from "../support/https-client.ts";
import { eventually, startControllerManager, stopAll, type ControllerManagerProcess } from "./support.ts";

const ADMIN = "admin-token-metrics-access";
const PROM = "prom-token-metrics-access";
const OTHER = "other-token-metrics-access";
let api: TestApiserver;
let dir: string;
let cm: ControllerManagerProcess;
let open: ControllerManagerProcess;
/** Each process's self-signed serving certificate (each has its own --cert-dir: two writers of one directory race). */
const serving = new Map<number, string>();
let adminCert: { certPem: string; keyPem: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cm-metrics-access-"));
  const authentication = defaultAuthenticationOptions();
  authentication.tokenAuthFile = join(dir, "tokens.csv");
  writeFileSync(authentication.tokenAuthFile, `${ADMIN},admin,0,system:masters\n${PROM},prom,1\n${OTHER},other,2\n`);
  api = await startTestApiserver({ security: { authentication, authorization: { modes: ["RBAC"] } } });
  const pki = await ensurePki(api.dir, { profile: api.profile });
  adminCert = { certPem: pki.admin.certPem, keyPem: pki.admin.keyPem };
  const caFile = join(dir, "client-ca.crt");
  writeFileSync(caFile, pki.ca.certPem);
  const kubeconfig = join(dir, "cm.kubeconfig");
  writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${api.replica.url}\n    certificate-authority-data: ${Buffer.from(api.ca).toString("base64")}\nusers:\n- name: u\n  user:\n    token: ${ADMIN}\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n`);
  const rbac = api.profile.group("rbac");
  const admin = new HttpsClient(api.replica.url, { ca: api.ca, token: ADMIN });
  const binding = await admin.post(`/apis/${rbac}/v1/clusterrolebindings`, { apiVersion: `${rbac}/v1`, kind: "ClusterRoleBinding", metadata: { name: "prom-monitoring" }, subjects: [{ kind: "User", name: "prom", apiGroup: rbac }], roleRef: { kind: "ClusterRole", name: "system:monitoring", apiGroup: rbac } });
  expect(binding.status, binding.text).toBe(201);
  admin.close();
  const certDirs = [join(dir, "certs-delegated"), join(dir, "certs-open")];
  const common = ["--leader-elect=false", "--controllers", "namespace"];
  [cm, open] = await Promise.all([
    startControllerManager(kubeconfig, "plat", [...common, "--cert-dir", certDirs[0], "--authentication-kubeconfig", kubeconfig, "--authorization-kubeconfig", kubeconfig, "--client-ca-file", caFile]),
    startControllerManager(kubeconfig, "plat", [...common, "--cert-dir", certDirs[1]]),
  ]);
  for (const p of [cm, open]) expect(await eventually(async () => p.output().includes("serving health and metrics"), 30_000), p.output()).toBe(true);
  [cm, open].forEach((p, i) => serving.set(p.port, readFileSync(join(certDirs[i], "plat-controller-manager.crt"), "utf8")));
});
afterAll(async () => {
  stopAll();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

function get(port: number, path: string, auth: { token?: string; cert?: { certPem: string; keyPem: string } } = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers = auth.token ? { authorization: `Bearer ${auth.token}` } : {};
    const req = request({ host: "127.0.0.1", port, path, ca: serving.get(port), servername: "localhost", headers, ...(auth.cert ? { cert: auth.cert.certPem, key: auth.cert.keyPem } : {}) }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end();
  });
}

const statusOf = (text: string) => JSON.parse(text) as { kind: string; reason: string; message: string; code: number };

describe("controller manager /metrics access", () => {
  it("health endpoints are open; anonymous /metrics is forbidden with the platform's Status", async () => {
    for (const path of ["/healthz", "/livez", "/readyz"]) expect(await get(cm.port, path)).toEqual({ status: 200, text: "ok" });
    const r = await get(cm.port, "/metrics");
    expect(r.status).toBe(403);
    expect(statusOf(r.text)).toMatchObject({ kind: "Status", reason: "Forbidden", code: 403, message: 'forbidden: User "system:anonymous" cannot get path "/metrics"' });
  });

  it("a token is reviewed: a bad one is 401, a monitoring user reads /metrics, another user is refused", async () => {
    const bad = await get(cm.port, "/metrics", { token: "not-a-token" });
    expect(bad.status).toBe(401);
    expect(statusOf(bad.text)).toMatchObject({ reason: "Unauthorized", code: 401 });
    const prom = await get(cm.port, "/metrics", { token: PROM });
    expect(prom.status, prom.text).toBe(200);
    expect(prom.text).toContain("workqueue_adds_total");
    const other = await get(cm.port, "/metrics", { token: OTHER });
    expect(other.status).toBe(403);
    expect(statusOf(other.text).message).toBe('forbidden: User "other" cannot get path "/metrics"');
  });

  it("a client certificate of system:masters is allowed", async () => {
    expect((await get(cm.port, "/metrics", { cert: adminCert })).status).toBe(200);
  });

  it("without --authorization-kubeconfig only the always-allowed paths are served", async () => {
    expect((await get(open.port, "/healthz")).status).toBe(200);
    expect((await get(open.port, "/metrics", { token: PROM })).status).toBe(403);
  });
});
