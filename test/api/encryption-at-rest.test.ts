/**
 * Encryption at rest through HTTPS against an in-process replica started with an
 * EncryptionConfiguration file: a Secret's value is ciphertext in the store (read
 * with the store client under the replica) and plain through the API; configmaps are
 * not named and stay plain; serviceaccounts go through a KMS v2 test plugin; the configuration is reloaded automatically when the
 * file changes, a rewrite moves an object to the new first key even when nothing in
 * it changed, and a value no provider can read is the corrupted-object 500. The
 * metrics count the transformations.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { encryptionConfigYaml, keyedProvider } from "../../services/apiserver/storage/encryption/testing/config-yaml.ts";
import { startTestKmsPlugin, type TestKmsPlugin } from "../../services/apiserver/storage/encryption/testing/kms-plugin.ts";

const profile = getProfile("kubernetes");
const KEY1 = Buffer.alloc(32, 1).toString("base64");
const KEY2 = Buffer.alloc(32, 2).toString("base64");
const PLAINTEXT = "plaintext-password-7c1f";
const SECRETS = "/api/v1/namespaces/default/secrets";

function config(keys: Array<[string, string]>): string {
  return encryptionConfigYaml(profile, [
    { resources: ["secrets"], providers: [keyedProvider("aescbc", keys), "identity: {}"] },
    { resources: ["serviceaccounts"], providers: [`kms: {apiVersion: v2, name: test-kms, endpoint: "unix://${kms.socketPath}", timeout: 3s}`] },
  ]);
}

let dir: string;
let configFile: string;
let api: TestApiserver;
let kms: TestKmsPlugin;

/** The raw stored bytes of a key, read under the replica's encryption. */
async function stored(key: string): Promise<string> {
  const res = await api.kv.range(key);
  return Buffer.from(res.kvs[0]?.value ?? new Uint8Array()).toString("latin1");
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "encryption-"));
  configFile = join(dir, "encryption.yaml");
  kms = await startTestKmsPlugin(join(dir, "kms.sock"));
  await writeFile(configFile, config([["key1", KEY1]]));
  api = await startTestApiserver({ profileId: "kubernetes", encryption: { configFile, automaticReload: true, reloadIntervalMs: 100 } });
});

afterAll(async () => {
  await api?.close();
  await kms?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("encryption at rest", () => {
  it("stores a Secret as aescbc ciphertext and serves it in plain", async () => {
    const r = await api.admin.post(SECRETS, { apiVersion: "v1", kind: "Secret", metadata: { name: "db" }, stringData: { password: PLAINTEXT } });
    expect(r.status, r.text).toBe(201);
    const raw = await stored("/registry/core/secrets/default/db");
    expect(raw.startsWith("k8s:enc:aescbc:v1:key1:")).toBe(true);
    expect(raw).not.toContain(PLAINTEXT);
    expect(raw).not.toContain(Buffer.from(PLAINTEXT).toString("base64"));
    const back = await api.admin.get(`${SECRETS}/db`);
    expect(back.json<{ data: Record<string, string> }>().data.password).toBe(Buffer.from(PLAINTEXT).toString("base64"));
    const list = await api.admin.get(SECRETS);
    expect(list.text).toContain(Buffer.from(PLAINTEXT).toString("base64"));
  });

  it("encrypts with a KMS v2 plugin over its unix socket: one Encrypt for the DEK, values read back", async () => {
    const before = kms.calls.Encrypt;
    for (const name of ["robot-a", "robot-b"]) {
      const r = await api.admin.post("/api/v1/namespaces/default/serviceaccounts", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, labels: { marker: "kms-marker-3e2d" } } });
      expect(r.status, r.text).toBe(201);
      const raw = await stored(`/registry/core/serviceaccounts/default/${name}`);
      expect(raw.startsWith("k8s:enc:kms:v2:test-kms:")).toBe(true);
      expect(raw).not.toContain("kms-marker-3e2d");
      expect((await api.admin.get(`/api/v1/namespaces/default/serviceaccounts/${name}`)).json<{ metadata: { labels: Record<string, string> } }>().metadata.labels.marker).toBe("kms-marker-3e2d");
    }
    expect(kms.calls.Encrypt - before).toBeLessThanOrEqual(1);
    const metrics = (await api.admin.get("/metrics")).text;
    expect(metrics).toMatch(/apiserver_envelope_encryption_kms_operations_latency_seconds_count\{provider_name="test-kms",method_name="\/v2.KeyManagementService\/Encrypt",grpc_status_code="OK"\} [1-9]/);
  });

  it("reports the KMS plugin's health under /healthz/kms-providers", async () => {
    const r = await api.admin.get("/healthz/kms-providers");
    expect(r.status).toBe(200);
    expect(r.text).toBe("ok");
  });

  it("leaves resources the configuration does not name in plain", async () => {
    expect((await api.admin.post("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "open" }, data: { k: "visible" } })).status).toBe(201);
    expect(await stored("/registry/core/configmaps/default/open")).toContain("visible");
  });

  it("delivers decrypted Secrets to watches", async () => {
    const w = api.admin.watch(`${SECRETS}?watch=true&fieldSelector=metadata.name%3Dwatched`);
    try {
      await new Promise((r) => setTimeout(r, 200));
      expect((await api.admin.post(SECRETS, { apiVersion: "v1", kind: "Secret", metadata: { name: "watched" }, stringData: { v: PLAINTEXT } })).status).toBe(201);
      const [ev] = await w.waitFor(1, 5000);
      expect((ev.object as { data: Record<string, string> }).data.v).toBe(Buffer.from(PLAINTEXT).toString("base64"));
    } finally {
      w.stop();
    }
  });

  it("reloads a changed configuration and rewrites an unchanged Secret with the new first key", async () => {
    await writeFile(configFile, config([["key2", KEY2], ["key1", KEY1]]));
    const deadline = Date.now() + 5000;
    let current = await api.admin.get(`${SECRETS}/db`);
    // a no-op update rewrites the object once the new key is first (the stale read forces the write)
    for (;;) {
      const put = await api.admin.put(`${SECRETS}/db`, current.json());
      expect(put.status, put.text).toBe(200);
      if ((await stored("/registry/core/secrets/default/db")).startsWith("k8s:enc:aescbc:v1:key2:") || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
      current = await api.admin.get(`${SECRETS}/db`);
    }
    expect((await stored("/registry/core/secrets/default/db")).startsWith("k8s:enc:aescbc:v1:key2:")).toBe(true);
    await writeFile(configFile, config([["key2", KEY2]]));
    await new Promise((r) => setTimeout(r, 400));
    const back = await api.admin.get(`${SECRETS}/db`);
    expect(back.status).toBe(200);
    expect(back.json<{ data: Record<string, string> }>().data.password).toBe(Buffer.from(PLAINTEXT).toString("base64"));
    const metrics = (await api.admin.get("/metrics")).text;
    expect(metrics).toMatch(/apiserver_encryption_config_controller_automatic_reloads_total\{status="success",apiserver_id_hash="[0-9a-f]+"\} [2-9]/);
    expect(metrics).toMatch(/apiserver_storage_transformation_operations_total\{transformation_type="to_storage",transformer_prefix="k8s:enc:aescbc:v1:",status="OK"\} \d+/);
  });

  it("answers 500 for an object no provider can decrypt", async () => {
    const put = await api.kv.txn([], [{ type: "put", key: "/registry/core/secrets/default/broken", value: new TextEncoder().encode("k8s:enc:aescbc:v1:gone:xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx") }], []);
    expect(put.succeeded).toBe(true);
    const r = await api.admin.get(`${SECRETS}/broken`);
    expect(r.status).toBe(500);
    expect(r.json<{ reason: string; message: string }>()).toMatchObject({ reason: "InternalError" });
  });

  it("fails the KMS health check once the plugin is gone", async () => {
    await kms.close();
    const r = await api.admin.get("/healthz/kms-providers");
    expect(r.status).toBe(500);
  });
});
