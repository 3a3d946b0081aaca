/**
 * The extended-nonce AES-GCM of KMS v2 seeds (the platform's encryptedDEKSourceType
 * HKDF_SHA256_XNONCE_AES_GCM_SEED): each write draws a random 32-byte info, derives a
 * one-use AES-256 key from the seed with the expand step of HKDF-SHA256 alone (the
 * seed is uniformly random, so it serves as the pseudorandom key), and seals with
 * AES-GCM under a random 12-byte nonce and the storage key as additional data.
 * Stored: info ‖ nonce ‖ ciphertext ‖ tag. No key is used twice, so one seed (one
 * plugin Encrypt) serves any number of writes without nonce wear-out.
 */
import { createHmac, randomBytes } from "node:crypto";
import { gcmOpen, gcmSeal } from "./ciphers.ts";

/** Bytes of a seed, of the per-write info and of the derived key. */
export const SEED_SIZE = 32;
export const INFO_SIZE = 32;
const DERIVED_KEY_SIZE = 32;
const SHA256_SIZE = 32;

/** HKDF-Expand (RFC 5869 §2.3) with HMAC-SHA256: `length` bytes of output keying material. */
export function hkdfSha256Expand(prk: Uint8Array, info: Uint8Array, length: number): Buffer {
  if (length < 0 || length > 255 * SHA256_SIZE) throw new Error(`hkdf: invalid output length ${length}`);
  const blocks: Buffer[] = [];
  let previous: Buffer = Buffer.alloc(0);
  for (let i = 1; blocks.length * SHA256_SIZE < length; i++) {
    previous = createHmac("sha256", prk).update(previous).update(info).update(Buffer.of(i)).digest();
    blocks.push(previous);
  }
  return Buffer.concat(blocks).subarray(0, length);
}

function checkSeed(seed: Uint8Array): void {
  if (seed.length < SEED_SIZE) throw new Error(`invalid seed length ${seed.length} used for key generation`);
}

export function xnonceSeal(seed: Uint8Array, plain: Uint8Array, ctx: string): Uint8Array {
  checkSeed(seed);
  const info = randomBytes(INFO_SIZE);
  const sealed = gcmSeal(hkdfSha256Expand(seed, info, DERIVED_KEY_SIZE), plain, ctx);
  return Buffer.concat([info, sealed]);
}

export function xnonceOpen(seed: Uint8Array, stored: Uint8Array, ctx: string): Uint8Array {
  checkSeed(seed);
  if (stored.length < INFO_SIZE) throw new Error("the stored data was shorter than the required size");
  const info = stored.subarray(0, INFO_SIZE);
  return gcmOpen(hkdfSha256Expand(seed, info, DERIVED_KEY_SIZE), stored.subarray(INFO_SIZE), ctx);
}
