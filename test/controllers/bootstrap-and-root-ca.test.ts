/**
 * The root CA publisher, the bootstrap signer and the token cleaner in a real
 * controller-manager process over HTTPS: every namespace gets the profile's root CA
 * ConfigMap with `--root-ca-file`'s bundle (and gets it back after an edit or a
 * deletion); cluster-info in the public namespace carries a detached JWS per valid
 * signing token that jose verifies with the token secret, none for a token without the
 * signing usage, and loses the signature when its token expires; the expired token's
 * Secret is deleted by the token cleaner.
 */
import { compactVerify } from "jose";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSigningCA } from "../../services/controller-manager/pki/x509.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { eventually, startControllerManager, stopAll, writeAdminKubeconfig, type ControllerManagerProcess } from "./support.ts";

let api: TestApiserver;
let cm: ControllerManagerProcess;
let rootCa: string;
type Data = Record<string, string>;

beforeAll(async () => {
  api = await startTestApiserver();
  const kubeconfig = await writeAdminKubeconfig(api);
  rootCa = (await createSigningCA("published-root", 86_400_000)).certPem;
  writeFileSync(join(api.dir, "root-ca.crt"), rootCa);
  cm = await startControllerManager(kubeconfig, "plat", ["--leader-elect=false", "--controllers", "root-ca-cert-publisher,bootstrapsigner,tokencleaner", "--root-ca-file", join(api.dir, "root-ca.crt")]);
  expect(await eventually(async () => cm.output().includes("controller manager running"), 30_000), cm.output()).toBe(true);
});
afterAll(async () => {
  stopAll();
  await api?.close();
});

async function data(ns: string, name: string): Promise<Data | undefined> {
  const r = await api.admin.get(`/api/v1/namespaces/${ns}/configmaps/${name}`);
  return r.status === 200 ? (r.json<{ data?: Data }>().data ?? {}) : undefined;
}

describe("root CA publisher", () => {
  it("publishes the root CA in every namespace and repairs edits and deletions", async () => {
    const cmName = api.profile.admission.rootCAConfigMap;
    expect(await eventually(async () => (await data("default", cmName))?.["ca.crt"] === rootCa)).toBe(true);
    expect((await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "ca-new" } })).status).toBe(201);
    expect(await eventually(async () => (await data("ca-new", cmName))?.["ca.crt"] === rootCa)).toBe(true);
    const current = (await api.admin.get(`/api/v1/namespaces/ca-new/configmaps/${cmName}`)).json<Record<string, unknown>>();
    expect((await api.admin.request("PUT", `/api/v1/namespaces/ca-new/configmaps/${cmName}`, { body: { ...current, data: { "ca.crt": "tampered", extra: "x" } } })).status).toBe(200);
    expect(await eventually(async () => JSON.stringify(await data("ca-new", cmName)) === JSON.stringify({ "ca.crt": rootCa }))).toBe(true);
    expect((await api.admin.delete(`/api/v1/namespaces/ca-new/configmaps/${cmName}`)).status).toBe(200);
    expect(await eventually(async () => (await data("ca-new", cmName))?.["ca.crt"] === rootCa)).toBe(true);
  });
});

describe("bootstrap signer and token cleaner", () => {
  const system = () => api.profile.systemNamespace;
  const pub = () => api.profile.publicNamespace;
  const tokenSecret = (id: string, secret: string, extra: Data) => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: `bootstrap-token-${id}`, namespace: system() },
    type: api.profile.secretTypes.bootstrapToken,
    stringData: { "token-id": id, "token-secret": secret, ...extra },
  });

  it("signs cluster-info for valid signing tokens (verified with jose), drops expired ones, and deletes expired token Secrets", async () => {
    const kubeconfig = "apiVersion: v1\nkind: Config\nclusters:\n- name: ''\n  cluster:\n    server: https://127.0.0.1:6443\n";
    expect((await api.admin.post(`/api/v1/namespaces/${pub()}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cluster-info" }, data: { kubeconfig } })).status).toBe(201);
    const soon = new Date(Date.now() + 4000).toISOString().replace(/\.\d{3}Z$/, "Z");
    for (const body of [
      tokenSecret("abcdef", "0123456789abcdef", { "usage-bootstrap-signing": "true" }),
      tokenSecret("ghijkl", "fedcba9876543210", { "usage-bootstrap-signing": "true", expiration: soon }),
      tokenSecret("mnopqr", "aaaaaaaaaaaaaaaa", { "usage-bootstrap-authentication": "true" }),
    ]) {
      const r = await api.admin.post(`/api/v1/namespaces/${system()}/secrets`, body);
      expect(r.status, r.text).toBe(201);
    }
    const signed = await eventually(async () => {
      const d = await data(pub(), "cluster-info");
      return d?.["jws-kubeconfig-abcdef"] && d["jws-kubeconfig-ghijkl"] ? d : undefined;
    });
    expect(signed).toBeDefined();
    expect(signed?.["jws-kubeconfig-mnopqr"]).toBeUndefined();
    const jws = signed?.["jws-kubeconfig-abcdef"] ?? "";
    const [header, payload, signature] = jws.split(".");
    expect(payload).toBe("");
    const verified = await compactVerify(`${header}.${Buffer.from(kubeconfig).toString("base64url")}.${signature}`, new TextEncoder().encode("0123456789abcdef"));
    expect(verified.protectedHeader).toEqual({ alg: "HS256", kid: "abcdef" });
    expect(new TextDecoder().decode(verified.payload)).toBe(kubeconfig);
    await expect(compactVerify(`${header}.${Buffer.from(kubeconfig).toString("base64url")}.${signature}`, new TextEncoder().encode("wrongwrongwrong0"))).rejects.toThrow();

    // ghijkl expires in 4 s: its signature goes and its Secret is deleted.
    const after = await eventually(async () => {
      const d = await data(pub(), "cluster-info");
      return d && !d["jws-kubeconfig-ghijkl"] ? d : undefined;
    }, 15_000, 200);
    expect(after?.["jws-kubeconfig-abcdef"]).toBe(jws);
    expect(await eventually(async () => (await api.admin.get(`/api/v1/namespaces/${system()}/secrets/bootstrap-token-ghijkl`)).status === 404, 15_000, 200)).toBe(true);
    expect((await api.admin.get(`/api/v1/namespaces/${system()}/secrets/bootstrap-token-abcdef`)).status).toBe(200);
  });
});
