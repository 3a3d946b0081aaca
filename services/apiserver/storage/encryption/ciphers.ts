/**
 * The local providers: aescbc (AES-CBC with PKCS#7 padding, a random 16-byte IV
 * before the ciphertext), aesgcm (AES-GCM, a random 12-byte nonce before the
 * ciphertext and 16-byte tag, the storage key as additional data) and secretbox
 * (XSalsa20-Poly1305 of NaCl, a random 24-byte nonce before the box; tweetnacl, since
 * node:crypto has no XSalsa20). Keys are the configuration's base64 secrets.
 */
import { createCipheriv, createDecipheriv, randomBytes, type CipherGCMTypes } from "node:crypto";
import nacl from "tweetnacl";
import type { Provider } from "./transformer.ts";

const enc = new TextEncoder();

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function cbcName(key: Uint8Array): string {
  return `aes-${key.length * 8}-cbc`;
}

function gcmName(key: Uint8Array): CipherGCMTypes {
  return `aes-${key.length * 8}-gcm` as CipherGCMTypes;
}

export function aescbcProvider(prefix: string, key: Uint8Array): Provider {
  const name = cbcName(key);
  return {
    kind: "aescbc",
    prefix: enc.encode(prefix),
    async encrypt(plain) {
      const iv = randomBytes(16);
      const c = createCipheriv(name, key, iv);
      return concat(iv, c.update(plain), c.final());
    },
    async decrypt(body) {
      if (body.length < 16 || (body.length - 16) % 16 !== 0 || body.length === 16) throw new Error("the stored data is not a whole number of blocks");
      const d = createDecipheriv(name, key, body.subarray(0, 16));
      return concat(d.update(body.subarray(16)), d.final());
    },
  };
}

/** AES-GCM with `ctx` (the storage key) authenticated. */
export function gcmSeal(key: Uint8Array, plain: Uint8Array, ctx: string): Uint8Array {
  const nonce = randomBytes(12);
  const c = createCipheriv(gcmName(key), key, nonce);
  c.setAAD(enc.encode(ctx));
  const body = concat(c.update(plain), c.final());
  return concat(nonce, body, c.getAuthTag());
}

export function gcmOpen(key: Uint8Array, sealed: Uint8Array, ctx: string): Uint8Array {
  if (sealed.length < 12 + 16) throw new Error("the stored data was shorter than the required size");
  const d = createDecipheriv(gcmName(key), key, sealed.subarray(0, 12));
  d.setAAD(enc.encode(ctx));
  d.setAuthTag(sealed.subarray(sealed.length - 16));
  return concat(d.update(sealed.subarray(12, sealed.length - 16)), d.final());
}

export function aesgcmProvider(prefix: string, key: Uint8Array): Provider {
  return {
    kind: "aesgcm",
    prefix: enc.encode(prefix),
    encrypt: async (plain, ctx) => gcmSeal(key, plain, ctx),
    decrypt: async (body, ctx) => gcmOpen(key, body, ctx),
  };
}

export function secretboxProvider(prefix: string, key: Uint8Array): Provider {
  return {
    kind: "secretbox",
    prefix: enc.encode(prefix),
    async encrypt(plain) {
      const nonce = randomBytes(nacl.secretbox.nonceLength);
      return concat(nonce, nacl.secretbox(plain, nonce, key));
    },
    async decrypt(body) {
      if (body.length < nacl.secretbox.nonceLength) throw new Error("the stored data was shorter than the required size");
      const opened = nacl.secretbox.open(body.subarray(nacl.secretbox.nonceLength), body.subarray(0, nacl.secretbox.nonceLength), key);
      if (!opened) throw new Error("output array was not large enough for encryption");
      return opened;
    },
  };
}
