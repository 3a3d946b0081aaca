/**
 * `--use-service-account-credentials` in a real controller-manager process against a
 * replica with RBAC and service account tokens: each controller gets its own service
 * account in the system namespace and writes with that account's token, so it can do
 * exactly what the default policy's `system:controller:<name>` role allows: the service
 * account controller creates `default` accounts while its binding exists and is
 * refused (as its own user) once the binding is removed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { HttpsClient } from "../support/https-client.ts";
import { serviceAccountAuthentication } from "../support/service-account-auth.ts";
import { eventually, startControllerManager, stopAll, type ControllerManagerProcess } from "./support.ts";

const ADMIN = "admin-token-0123456789";
let api: TestApiserver;
let admin: HttpsClient;
let dir: string;
let cm: ControllerManagerProcess;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cm-sa-creds-"));
  const { authentication, file } = serviceAccountAuthentication(dir, ADMIN, "https://issuer.cm.test");
  api = await startTestApiserver({ security: { authentication, authorization: { modes: ["RBAC"] } } });
  admin = new HttpsClient(api.replica.url, { ca: api.ca, token: ADMIN });
  const b64 = Buffer.from(api.ca).toString("base64");
  const kubeconfig = file("cm.kubeconfig", `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${api.replica.url}\n    certificate-authority-data: ${b64}\nusers:\n- name: u\n  user:\n    token: ${ADMIN}\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n`);
  cm = await startControllerManager(kubeconfig, "plat", ["--leader-elect=false", "--use-service-account-credentials", "--controllers", "serviceaccount,namespace"]);
  expect(await eventually(async () => cm.output().includes("controller manager running"), 30_000), cm.output()).toBe(true);
});
afterAll(async () => {
  stopAll();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function hasDefault(ns: string): Promise<boolean> {
  return (await admin.get(`/api/v1/namespaces/${ns}/serviceaccounts/default`)).status === 200;
}

describe("--use-service-account-credentials", () => {
  it("runs each controller as its own service account, limited by its controller role", async () => {
    const sys = api.profile.systemNamespace;
    for (const name of ["service-account-controller", "namespace-controller"]) expect((await admin.get(`/api/v1/namespaces/${sys}/serviceaccounts/${name}`)).status).toBe(200);
    expect((await admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "creds-a" } })).status).toBe(201);
    expect(await eventually(() => hasDefault("creds-a"), 15_000)).toBe(true);

    const rbac = api.profile.group("rbac");
    expect((await admin.delete(`/apis/${rbac}/v1/clusterrolebindings/system:controller:service-account-controller`)).status).toBe(200);
    expect((await admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "creds-b" } })).status).toBe(201);
    const refused = await eventually(async () => cm.output().includes(`system:serviceaccount:${sys}:service-account-controller`) || undefined, 15_000);
    expect(refused, cm.output()).toBe(true);
    expect(await hasDefault("creds-b")).toBe(false);
  });
});
