/**
 * The KMS v2 envelope (EncryptedObject) as the platform writes and checks it. The
 * plugin-encrypted secret (`encryptedDEKSource`) is, by `encryptedDEKSourceType`:
 *  - AES_GCM_KEY (0): a 32-byte data key that sealed `encryptedData` directly with
 *    AES-GCM (the form written before key derivation; still read);
 *  - HKDF_SHA256_XNONCE_AES_GCM_SEED (1): a 32-byte seed from which each write derives
 *    its own key (extended-nonce-gcm.ts); the form written now.
 * Checks and messages are the platform's: a known source type, non-empty data, a
 * DEK source and key id present and at most 1 KiB each.
 */
import { gcmOpen } from "./ciphers.ts";
import { xnonceOpen, xnonceSeal } from "./extended-nonce-gcm.ts";
import { decodeEncryptedObject, type EncryptedObject } from "./kms-proto.ts";

export const AES_GCM_KEY = 0;
export const HKDF_SHA256_XNONCE_AES_GCM_SEED = 1;

const MAX_DEK_SOURCE_SIZE = 1024;
const MAX_KEY_ID_SIZE = 1024;

/** The stored envelope of one write: `plain` sealed with a key derived from `seed`. */
export function sealWithSeed(seed: Uint8Array, plain: Uint8Array, ctx: string, source: { encryptedSeed: Uint8Array; keyId: string; annotations: Record<string, Uint8Array> }): EncryptedObject {
  return {
    encryptedData: xnonceSeal(seed, plain, ctx),
    keyID: source.keyId,
    encryptedDEKSource: source.encryptedSeed,
    annotations: source.annotations,
    encryptedDEKSourceType: HKDF_SHA256_XNONCE_AES_GCM_SEED,
  };
}

/** Opens `encryptedData` with the decrypted DEK source, as its type says. */
export function openEnvelope(o: EncryptedObject, dekSource: Uint8Array, ctx: string): Uint8Array {
  return o.encryptedDEKSourceType === HKDF_SHA256_XNONCE_AES_GCM_SEED ? xnonceOpen(dekSource, o.encryptedData, ctx) : gcmOpen(dekSource, o.encryptedData, ctx);
}

/** Decodes and checks a stored envelope; throws the platform's message when it is not valid. */
export function readEnvelope(body: Uint8Array): EncryptedObject {
  let o: EncryptedObject;
  try {
    o = decodeEncryptedObject(body);
  } catch (err) {
    throw new Error(`failed to unmarshal encrypted object: ${(err as Error).message}`, { cause: err });
  }
  const t = o.encryptedDEKSourceType;
  if (t !== AES_GCM_KEY && t !== HKDF_SHA256_XNONCE_AES_GCM_SEED) throw new Error(`unknown encryptedDEKSourceType: ${t}`);
  if (o.encryptedData.length === 0) throw new Error("encrypted data is empty");
  const source = o.encryptedDEKSource.length;
  if (source === 0) throw new Error("failed to validate encrypted DEK source: encrypted DEK source is empty");
  if (source > MAX_DEK_SOURCE_SIZE) throw new Error(`failed to validate encrypted DEK source: encrypted DEK source is ${source} bytes, which exceeds the max size of ${MAX_DEK_SOURCE_SIZE}`);
  if (!o.keyID) throw new Error("failed to validate key id: keyID is empty");
  const keyIdSize = Buffer.byteLength(o.keyID);
  if (keyIdSize > MAX_KEY_ID_SIZE) throw new Error(`failed to validate key id: keyID is ${keyIdSize} bytes, which exceeds the max size of ${MAX_KEY_ID_SIZE}`);
  return o;
}
