import { createHmac, hkdfSync, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { gcmSeal } from "./ciphers.ts";
import { AES_GCM_KEY, HKDF_SHA256_XNONCE_AES_GCM_SEED, openEnvelope, readEnvelope, sealWithSeed } from "./envelope.ts";
import { hkdfSha256Expand, INFO_SIZE, xnonceOpen, xnonceSeal } from "./extended-nonce-gcm.ts";
import { encodeEncryptedObject, type EncryptedObject } from "./kms-proto.ts";

const hex = (s: string): Buffer => Buffer.from(s, "hex");

describe("HKDF-SHA256 expand", () => {
  it("gives RFC 5869's output keying material of test case 1 from its PRK", () => {
    const prk = hex("077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5");
    expect(hkdfSha256Expand(prk, hex("f0f1f2f3f4f5f6f7f8f9"), 42).toString("hex")).toBe("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865");
  });

  it.each([
    { ikm: 22, salt: 13, info: 10, length: 42 },
    { ikm: 32, salt: 32, info: 32, length: 32 },
    { ikm: 80, salt: 80, info: 80, length: 82 },
    { ikm: 16, salt: 0, info: 0, length: 1 },
    { ikm: 32, salt: 8, info: 32, length: 255 * 32 },
  ])("matches node's extract-and-expand after the extract step (ikm $ikm, salt $salt, info $info, $length bytes)", ({ ikm, salt, info, length }) => {
    const [k, s, i] = [randomBytes(ikm), randomBytes(salt), randomBytes(info)];
    const prk = createHmac("sha256", salt === 0 ? Buffer.alloc(32) : s).update(k).digest();
    expect(hkdfSha256Expand(prk, i, length).equals(Buffer.from(hkdfSync("sha256", k, s, i, length)))).toBe(true);
  });

  it("refuses more than 255 blocks", () => {
    expect(() => hkdfSha256Expand(randomBytes(32), Buffer.alloc(0), 255 * 32 + 1)).toThrow("invalid output length");
  });
});

describe("extended-nonce AES-GCM", () => {
  const seed = randomBytes(32);
  const plain = new TextEncoder().encode("a secret value");

  it("derives a new key per write: same input, different info and ciphertext, both open", () => {
    const a = xnonceSeal(seed, plain, "/registry/core/secrets/ns/a");
    const b = xnonceSeal(seed, plain, "/registry/core/secrets/ns/a");
    expect(a.length).toBe(INFO_SIZE + 12 + plain.length + 16);
    expect(Buffer.from(a.subarray(0, INFO_SIZE)).equals(Buffer.from(b.subarray(0, INFO_SIZE)))).toBe(false);
    expect(Buffer.from(xnonceOpen(seed, a, "/registry/core/secrets/ns/a")).toString()).toBe("a secret value");
    expect(Buffer.from(xnonceOpen(seed, b, "/registry/core/secrets/ns/a")).toString()).toBe("a secret value");
  });

  it("seals with the key HKDF-expand(seed, info) gives, under AES-GCM with the storage key authenticated", () => {
    const info = randomBytes(INFO_SIZE);
    const stored = Buffer.concat([info, gcmSeal(hkdfSha256Expand(seed, info, 32), plain, "ctx")]);
    expect(Buffer.from(xnonceOpen(seed, stored, "ctx")).toString()).toBe("a secret value");
  });

  it.each([
    { name: "another storage key", change: (s: Uint8Array) => s, ctx: "/registry/core/secrets/ns/b", error: "Unsupported state or unable to authenticate data" },
    { name: "a changed info byte", change: (s: Uint8Array) => Buffer.concat([Buffer.of(s[0] ^ 1), s.subarray(1)]), ctx: "/k", error: "Unsupported state or unable to authenticate data" },
    { name: "data shorter than the info", change: (s: Uint8Array) => s.subarray(0, INFO_SIZE - 1), ctx: "/k", error: "the stored data was shorter than the required size" },
  ])("refuses $name", ({ change, ctx, error }) => {
    expect(() => xnonceOpen(seed, change(xnonceSeal(seed, plain, "/k")), ctx)).toThrow(error);
  });

  it("refuses a seed shorter than 32 bytes", () => {
    expect(() => xnonceSeal(randomBytes(16), plain, "/k")).toThrow("invalid seed length 16 used for key generation");
  });
});

describe("KMS v2 envelope", () => {
  const base: EncryptedObject = { encryptedData: Buffer.from("x"), keyID: "key-1", encryptedDEKSource: Buffer.from("wrapped"), annotations: {}, encryptedDEKSourceType: HKDF_SHA256_XNONCE_AES_GCM_SEED };

  it.each([
    { name: "an unknown source type", o: { ...base, encryptedDEKSourceType: 7 }, error: "unknown encryptedDEKSourceType: 7" },
    { name: "empty data", o: { ...base, encryptedData: Buffer.alloc(0) }, error: "encrypted data is empty" },
    { name: "an empty DEK source", o: { ...base, encryptedDEKSource: Buffer.alloc(0) }, error: "failed to validate encrypted DEK source: encrypted DEK source is empty" },
    { name: "a DEK source over 1 KiB", o: { ...base, encryptedDEKSource: Buffer.alloc(1025, 1) }, error: "failed to validate encrypted DEK source: encrypted DEK source is 1025 bytes, which exceeds the max size of 1024" },
    { name: "an empty key id", o: { ...base, keyID: "" }, error: "failed to validate key id: keyID is empty" },
    { name: "a key id over 1 KiB", o: { ...base, keyID: "k".repeat(1025) }, error: "failed to validate key id: keyID is 1025 bytes, which exceeds the max size of 1024" },
  ])("refuses $name", ({ o, error }) => {
    expect(() => readEnvelope(encodeEncryptedObject(o))).toThrow(error);
  });

  it("opens both source types: a derived-key write and a data key that sealed directly", () => {
    const seed = randomBytes(32);
    const seeded = readEnvelope(encodeEncryptedObject(sealWithSeed(seed, Buffer.from("v1"), "/k", { encryptedSeed: Buffer.from("wrapped"), keyId: "key-1", annotations: {} })));
    expect(seeded.encryptedDEKSourceType).toBe(HKDF_SHA256_XNONCE_AES_GCM_SEED);
    expect(Buffer.from(openEnvelope(seeded, seed, "/k")).toString()).toBe("v1");
    const dek = randomBytes(32);
    const legacy = readEnvelope(encodeEncryptedObject({ ...base, encryptedData: gcmSeal(dek, Buffer.from("v0"), "/k"), encryptedDEKSourceType: AES_GCM_KEY }));
    expect(legacy.encryptedDEKSourceType).toBe(AES_GCM_KEY);
    expect(Buffer.from(openEnvelope(legacy, dek, "/k")).toString()).toBe("v0");
    expect(() => openEnvelope(legacy, seed, "/k")).toThrow();
  });
});
