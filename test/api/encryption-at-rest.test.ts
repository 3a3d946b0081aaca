/**
 * Encryption at rest through HTTPS against an in-process replica started with an
 * EncryptionConfiguration file: a Secret's value is ciphertext in the store (read
 * with the store client under the replica) and plain through the API; configmaps are
 * not named and stay plain; serviceaccounts go through a KMS v2 test plugin (one
 * wrapped seed, a key derived per write, the older AES_GCM_KEY form still read and
 * rewritten as stale, a new seed when the plugin's key id changes); the configuration is reloaded automatically when the
 * file changes, a rewrite moves an object to the new first key even when nothing in
 * it changed, and a value no provider can read is the corrupted-object 500 naming its key (GET and LIST). The
 * metrics count the transformations.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { encryptionConfigYaml, keyedProvider } from "../../services/apiserver/storage/encryption/testing/config-yaml.ts";
import { kmsPluginClient, startTestKmsPlugin, type KmsPluginClient, type TestKmsPlugin } from "../../services/apiserver/storage/encryption/testing/kms-plugin.ts";
import { gcmOpen, gcmSeal } from "../../services/apiserver/storage/encryption/ciphers.ts";
import { AES_GCM_KEY, HKDF_SHA256_XNONCE_AES_GCM_SEED } from "../../services/apiserver/storage/encryption/envelope.ts";
import { hkdfSha256Expand, INFO_SIZE, xnonceOpen } from "../../services/apiserver/storage/encryption/extended-nonce-gcm.ts";
import { decodeEncryptedObject, encodeEncryptedObject, type EncryptedObject } from "../../services/apiserver/storage/encryption/kms-proto.ts";

const profile = getProfile("kubernetes");
const KEY1 = Buffer.alloc(32, 1).toString("base64");
const KEY2 = Buffer.alloc(32, 2).toString("base64");
const PLAINTEXT = "plaintext-password-7c1f";
const SECRETS = "/api/v1/namespaces/default/secrets";
const SERVICE_ACCOUNTS = "/api/v1/namespaces/default/serviceaccounts";
const KMS_PREFIX = "k8s:enc:kms:v2:test-kms:";
const KMS_MARKER = "kms-marker-3e2d";

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
let plugin: KmsPluginClient;

/** The EncryptedObject of a stored kms v2 value. */
function envelopeOf(raw: string): EncryptedObject {
  return decodeEncryptedObject(Buffer.from(raw.slice(KMS_PREFIX.length), "latin1"));
}

/** The raw stored bytes of a key, read under the replica's encryption. */
async function stored(key: string): Promise<string> {
  const res = await api.kv.range(key);
  return Buffer.from(res.kvs[0]?.value ?? new Uint8Array()).toString("latin1");
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "encryption-"));
  configFile = join(dir, "encryption.yaml");
  kms = await startTestKmsPlugin(join(dir, "kms.sock"));
  plugin = kmsPluginClient(kms.socketPath);
  await writeFile(configFile, config([["key1", KEY1]]));
  api = await startTestApiserver({ profileId: "kubernetes", encryption: { configFile, automaticReload: true, reloadIntervalMs: 100 } });
});

afterAll(async () => {
  await api?.close();
  plugin?.close();
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

  it("encrypts with a KMS v2 plugin over its unix socket: one Encrypt for a seed, a key derived per write, values read back", async () => {
    const before = kms.calls.Encrypt;
    const envelopes: EncryptedObject[] = [];
    for (const name of ["robot-a", "robot-b", "robot-c", "robot-d"]) {
      const r = await api.admin.post(SERVICE_ACCOUNTS, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, labels: { marker: KMS_MARKER } } });
      expect(r.status, r.text).toBe(201);
      const raw = await stored(`/registry/core/serviceaccounts/default/${name}`);
      expect(raw.startsWith(KMS_PREFIX)).toBe(true);
      expect(raw).not.toContain(KMS_MARKER);
      envelopes.push(envelopeOf(raw));
      expect((await api.admin.get(`${SERVICE_ACCOUNTS}/${name}`)).json<{ metadata: { labels: Record<string, string> } }>().metadata.labels.marker).toBe(KMS_MARKER);
    }
    // The plugin wrapped one seed for all four writes.
    expect(kms.calls.Encrypt - before).toBe(1);
    for (const e of envelopes) {
      expect(e.encryptedDEKSourceType).toBe(HKDF_SHA256_XNONCE_AES_GCM_SEED);
      expect(e.keyID).toBe(kms.keyId());
      expect(Buffer.from(e.encryptedDEKSource).equals(Buffer.from(envelopes[0].encryptedDEKSource))).toBe(true);
    }
    // Each write has its own random info (and so its own derived key).
    expect(new Set(envelopes.map((e) => Buffer.from(e.encryptedData.subarray(0, INFO_SIZE)).toString("hex"))).size).toBe(envelopes.length);
    // Independently of the replica: the plugin unwraps the seed, HKDF-SHA256 expand with the info gives the AES-GCM key.
    const seed = await plugin.decrypt(envelopes[0].encryptedDEKSource, envelopes[0].keyID, envelopes[0].annotations);
    const info = envelopes[0].encryptedData.subarray(0, INFO_SIZE);
    const plain = gcmOpen(hkdfSha256Expand(seed, info, 32), envelopes[0].encryptedData.subarray(INFO_SIZE), "/registry/core/serviceaccounts/default/robot-a");
    expect(Buffer.from(plain).toString("latin1")).toContain(KMS_MARKER);
    const metrics = (await api.admin.get("/metrics")).text;
    expect(metrics).toMatch(/apiserver_envelope_encryption_kms_operations_latency_seconds_count\{provider_name="test-kms",method_name="\/v2.KeyManagementService\/Encrypt",grpc_status_code="OK"\} [1-9]/);
  });

  it("reads an object stored in the older AES_GCM_KEY form, and a rewrite moves it to a derived key", async () => {
    const key = "/registry/core/serviceaccounts/default/robot-a";
    const current = envelopeOf(await stored(key));
    const seed = await plugin.decrypt(current.encryptedDEKSource, current.keyID, current.annotations);
    const plain = xnonceOpen(seed, current.encryptedData, key);
    // The older form: the plugin wraps the data key itself, which seals the value directly.
    const dek = randomBytes(32);
    const wrapped = await plugin.encrypt(dek);
    const legacy = encodeEncryptedObject({ encryptedData: gcmSeal(dek, plain, key), keyID: wrapped.key_id, encryptedDEKSource: wrapped.ciphertext, annotations: wrapped.annotations, encryptedDEKSourceType: AES_GCM_KEY });
    const put = await api.kv.txn([], [{ type: "put", key, value: Buffer.concat([Buffer.from(KMS_PREFIX), legacy]) }], []);
    expect(put.succeeded).toBe(true);
    expect(envelopeOf(await stored(key)).encryptedDEKSourceType).toBe(AES_GCM_KEY);
    let got = await api.admin.get(`${SERVICE_ACCOUNTS}/robot-a`);
    for (const deadline = Date.now() + 5000; got.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion !== String(put.revision) && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 50));
      got = await api.admin.get(`${SERVICE_ACCOUNTS}/robot-a`);
    }
    expect(got.status, got.text).toBe(200);
    expect(got.json<{ metadata: { resourceVersion: string; labels: Record<string, string> } }>().metadata).toMatchObject({ resourceVersion: String(put.revision), labels: { marker: KMS_MARKER } });
    // An update that changes nothing still rewrites it: the AES_GCM_KEY form is stale.
    const again = await api.admin.put(`${SERVICE_ACCOUNTS}/robot-a`, got.json());
    expect(again.status, again.text).toBe(200);
    expect(envelopeOf(await stored(key)).encryptedDEKSourceType).toBe(HKDF_SHA256_XNONCE_AES_GCM_SEED);
    expect((await api.admin.get(`${SERVICE_ACCOUNTS}/robot-a`)).json<{ metadata: { labels: Record<string, string> } }>().metadata.labels.marker).toBe(KMS_MARKER);
  });

  it("wraps a new seed when the plugin's key id changes; a value under the old key id is rewritten by an update", async () => {
    const old = envelopeOf(await stored("/registry/core/serviceaccounts/default/robot-b"));
    const before = kms.calls.Encrypt;
    const rotated = kms.rotate();
    // The health check asks the plugin's Status, which reports the new key id.
    expect((await api.admin.get("/healthz/kms-providers")).status).toBe(200);
    for (const name of ["robot-e", "robot-f"]) expect((await api.admin.post(SERVICE_ACCOUNTS, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, labels: { marker: KMS_MARKER } } })).status).toBe(201);
    expect(kms.calls.Encrypt - before).toBe(1);
    const [e, f] = [envelopeOf(await stored("/registry/core/serviceaccounts/default/robot-e")), envelopeOf(await stored("/registry/core/serviceaccounts/default/robot-f"))];
    expect([e.keyID, f.keyID]).toEqual([rotated, rotated]);
    expect(Buffer.from(e.encryptedDEKSource).equals(Buffer.from(f.encryptedDEKSource))).toBe(true);
    expect(Buffer.from(e.encryptedDEKSource).equals(Buffer.from(old.encryptedDEKSource))).toBe(false);
    // robot-b still reads under its old key id, and an update that changes nothing moves it to the new one.
    const got = await api.admin.get(`${SERVICE_ACCOUNTS}/robot-b`);
    expect(got.json<{ metadata: { labels: Record<string, string> } }>().metadata.labels.marker).toBe(KMS_MARKER);
    expect((await api.admin.put(`${SERVICE_ACCOUNTS}/robot-b`, got.json())).status).toBe(200);
    expect(envelopeOf(await stored("/registry/core/serviceaccounts/default/robot-b")).keyID).toBe(rotated);
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
    // The platform's corrupt-object error names the key, on a GET and on a LIST that meets it.
    const corrupt = /StorageError: corrupt object, Code: 7, Key: \/registry\/core\/secrets\/default\/broken,/;
    expect(r.json<{ message: string }>().message).toMatch(corrupt);
    const list = await api.admin.get(SECRETS);
    expect(list.status).toBe(500);
    expect(list.json<{ message: string }>().message).toMatch(corrupt);
    await api.kv.txn([], [{ type: "delete", key: "/registry/core/secrets/default/broken" }], []);
  });

  it("fails the KMS health check once the plugin is gone", async () => {
    await kms.close();
    const r = await api.admin.get("/healthz/kms-providers");
    expect(r.status).toBe(500);
  });
});
