import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nacl from "tweetnacl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getProfile } from "../../../../shared/platform/index.ts";
import { encryptionConfigFromObject, resourceMatches, ResourceTransformers } from "./config.ts";
import { startTestKmsPlugin, type TestKmsPlugin } from "./testing/kms-plugin.ts";
import { TransformError } from "./transformer.ts";

const profile = getProfile("kubernetes");
const API = profile.apiVersion("apiserverConfig", "v1");
const KEY32 = Buffer.alloc(32, 7).toString("base64");
const KEY32B = Buffer.alloc(32, 9).toString("base64");
const KEY16 = Buffer.alloc(16, 3).toString("base64");
const enc = new TextEncoder();
const dec = new TextDecoder();
const SECRET_KEY = "/registry/core/secrets/ns/s1";

function transformers(providers: unknown[], resources: string[] = ["secrets"]): ResourceTransformers {
  return new ResourceTransformers(encryptionConfigFromObject({ apiVersion: API, kind: "EncryptionConfiguration", resources: [{ resources, providers }] }, profile), profile);
}

describe("encryption configuration", () => {
  it.each([
    ["secrets", "", "secrets", true],
    ["secrets", "apps", "secrets", false],
    ["deployments.apps", "apps", "deployments", true],
    ["*.apps", "apps", "replicasets", true],
    ["*.apps", "", "pods", false],
    ["*.", "", "configmaps", true],
    ["*.", "batch", "jobs", false],
    ["*.*", "example.com", "widgets", true],
  ] as const)("%s covers group %j resource %s: %s", (pattern, group, resource, expected) => {
    expect(resourceMatches(pattern, group, resource)).toBe(expected);
  });

  it.each([
    ["a wrong kind", { apiVersion: API, kind: "Policy", resources: [] }, /expected apiVersion/],
    ["no resources", { apiVersion: API, kind: "EncryptionConfiguration", resources: [] }, /resources: Required value/],
    ["no providers", { apiVersion: API, kind: "EncryptionConfiguration", resources: [{ resources: ["secrets"], providers: [] }] }, /providers: Required value/],
    ["an unknown provider", { apiVersion: API, kind: "EncryptionConfiguration", resources: [{ resources: ["secrets"], providers: [{ rot13: {} }] }] }, /does not contain any of the expected providers/],
    ["two providers in one element", { apiVersion: API, kind: "EncryptionConfiguration", resources: [{ resources: ["secrets"], providers: [{ identity: {}, aescbc: { keys: [] } }] }] }, /more than one provider/],
    ["a short aescbc key", { apiVersion: API, kind: "EncryptionConfiguration", resources: [{ resources: ["secrets"], providers: [{ aescbc: { keys: [{ name: "k", secret: Buffer.alloc(10).toString("base64") }] } }] }] }, /got 10, expected one of \[16 24 32\]/],
    ["a 16-byte secretbox key", { apiVersion: API, kind: "EncryptionConfiguration", resources: [{ resources: ["secrets"], providers: [{ secretbox: { keys: [{ name: "k", secret: KEY16 }] } }] }] }, /got 16, expected one of \[32\]/],
    ["duplicate key names", { apiVersion: API, kind: "EncryptionConfiguration", resources: [{ resources: ["secrets"], providers: [{ aesgcm: { keys: [{ name: "k", secret: KEY16 }, { name: "k", secret: KEY32 }] } }] }] }, /Duplicate value: "k"/],
    ["kms v1", { apiVersion: API, kind: "EncryptionConfiguration", resources: [{ resources: ["secrets"], providers: [{ kms: { name: "x", endpoint: "unix:///tmp/x.sock" } }] }] }, /supported values: "v2"/],
    ["a kms tcp endpoint", { apiVersion: API, kind: "EncryptionConfiguration", resources: [{ resources: ["secrets"], providers: [{ kms: { apiVersion: "v2", name: "x", endpoint: "tcp://127.0.0.1:1" } }] }] }, /only unix is supported/],
  ])("refuses %s", (_name, doc, message) => {
    expect(() => encryptionConfigFromObject(doc, profile)).toThrow(message);
  });

  it("stores resources no entry names as they are", () => {
    expect(transformers([{ aescbc: { keys: [{ name: "k1", secret: KEY32 }] } }]).forKey("/registry/core/configmaps/ns/c")).toBeUndefined();
  });
});

describe("providers", () => {
  it.each([
    ["aescbc", { aescbc: { keys: [{ name: "k1", secret: KEY32 }] } }, "k8s:enc:aescbc:v1:k1:"],
    ["aesgcm", { aesgcm: { keys: [{ name: "k1", secret: KEY16 }] } }, "k8s:enc:aesgcm:v1:k1:"],
    ["secretbox", { secretbox: { keys: [{ name: "k1", secret: KEY32 }] } }, "k8s:enc:secretbox:v1:k1:"],
  ])("%s writes its prefix, hides the value and reads it back", async (_name, provider, prefix) => {
    const t = transformers([provider]).forKey(SECRET_KEY);
    const stored = await t?.toStorage(enc.encode('{"data":{"p":"hunter2"}}'), SECRET_KEY);
    const text = Buffer.from(stored as Uint8Array).toString("latin1");
    expect(text.startsWith(prefix)).toBe(true);
    expect(text).not.toContain("hunter2");
    const back = await t?.fromStorage(stored as Uint8Array, SECRET_KEY);
    expect(dec.decode(back?.value)).toBe('{"data":{"p":"hunter2"}}');
    expect(back?.stale).toBe(false);
  });

  it("secretbox is NaCl's box: tweetnacl opens what it wrote", async () => {
    const t = transformers([{ secretbox: { keys: [{ name: "k1", secret: KEY32 }] } }]).forKey(SECRET_KEY);
    const stored = (await t?.toStorage(enc.encode("plain"), SECRET_KEY)) as Uint8Array;
    const body = stored.subarray("k8s:enc:secretbox:v1:k1:".length);
    expect(dec.decode(nacl.secretbox.open(body.subarray(24), body.subarray(0, 24), Buffer.from(KEY32, "base64")) as Uint8Array)).toBe("plain");
  });

  it("aesgcm binds the value to its key: a copy under another key does not decrypt", async () => {
    const t = transformers([{ aesgcm: { keys: [{ name: "k1", secret: KEY32 }] } }]).forKey(SECRET_KEY);
    const stored = (await t?.toStorage(enc.encode("plain"), SECRET_KEY)) as Uint8Array;
    await expect(t?.fromStorage(stored, "/registry/core/secrets/ns/other")).rejects.toThrow(TransformError);
  });

  it("first provider writes, all read; a value read by another is stale", async () => {
    const old = transformers([{ aescbc: { keys: [{ name: "k1", secret: KEY32 }] } }]).forKey(SECRET_KEY);
    const rotated = transformers([{ aescbc: { keys: [{ name: "k2", secret: KEY32B }, { name: "k1", secret: KEY32 }] } }]).forKey(SECRET_KEY);
    const written = (await old?.toStorage(enc.encode("v"), SECRET_KEY)) as Uint8Array;
    expect(await rotated?.fromStorage(written, SECRET_KEY)).toMatchObject({ stale: true });
    const rewritten = (await rotated?.toStorage(enc.encode("v"), SECRET_KEY)) as Uint8Array;
    expect(Buffer.from(rewritten).toString("latin1").startsWith("k8s:enc:aescbc:v1:k2:")).toBe(true);
    expect(await rotated?.fromStorage(rewritten, SECRET_KEY)).toMatchObject({ stale: false });
    await expect(old?.fromStorage(rewritten, SECRET_KEY)).rejects.toThrow("no matching prefix found");
  });

  it("identity reads plain values, marks them stale behind a key, and refuses encrypted ones", async () => {
    const encrypting = transformers([{ aescbc: { keys: [{ name: "k1", secret: KEY32 }] } }, { identity: {} }]).forKey(SECRET_KEY);
    expect(await encrypting?.fromStorage(enc.encode("{}"), SECRET_KEY)).toMatchObject({ stale: true });
    const identityFirst = transformers([{ identity: {} }, { aescbc: { keys: [{ name: "k1", secret: KEY32 }] } }]).forKey(SECRET_KEY);
    const written = (await encrypting?.toStorage(enc.encode("v"), SECRET_KEY)) as Uint8Array;
    expect(dec.decode((await identityFirst?.fromStorage(written, SECRET_KEY))?.value)).toBe("v");
    const identityOnly = transformers([{ identity: {} }]).forKey(SECRET_KEY);
    await expect(identityOnly?.fromStorage(written, SECRET_KEY)).rejects.toThrow("identity transformer tried to read encrypted data");
  });
});

describe("kms v2 with a test plugin", () => {
  let dir: string;
  let plugin: TestKmsPlugin;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kms-"));
    plugin = await startTestKmsPlugin(join(dir, "kms.sock"));
  });
  afterAll(async () => {
    await plugin?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("encrypts with one DEK per key id, decrypts a DEK once, and follows a key rotation", async () => {
    const config = { kms: { apiVersion: "v2", name: "test-kms", endpoint: `unix://${plugin.socketPath}`, timeout: "2s" } };
    const writer = transformers([config]);
    const t = writer.forKey(SECRET_KEY);
    const a = (await t?.toStorage(enc.encode("one"), SECRET_KEY)) as Uint8Array;
    const b = (await t?.toStorage(enc.encode("two"), SECRET_KEY)) as Uint8Array;
    expect(Buffer.from(a).toString("latin1").startsWith("k8s:enc:kms:v2:test-kms:")).toBe(true);
    expect(plugin.calls.Encrypt).toBe(1);
    const reader = transformers([config]);
    const r = reader.forKey(SECRET_KEY);
    expect(dec.decode((await r?.fromStorage(a, SECRET_KEY))?.value)).toBe("one");
    expect(dec.decode((await r?.fromStorage(b, SECRET_KEY))?.value)).toBe("two");
    expect(plugin.calls.Decrypt).toBe(1);
    plugin.rotate();
    const fresh = transformers([config]);
    const c = (await fresh.forKey(SECRET_KEY)?.toStorage(enc.encode("three"), SECRET_KEY)) as Uint8Array;
    expect(plugin.calls.Encrypt).toBe(2);
    expect(dec.decode((await r?.fromStorage(c, SECRET_KEY))?.value)).toBe("three");
    expect(dec.decode((await r?.fromStorage(a, SECRET_KEY))?.value)).toBe("one");
    for (const x of [writer, reader, fresh]) x.close();
  });
});
