/**
 * The kms v2 provider: envelope encryption through a KMS plugin's gRPC API on a unix
 * socket, with derived keys as the platform does since KMSv2KDF. The plugin encrypts
 * a random 32-byte seed once (again when the plugin's Status reports a new key_id);
 * each write derives its own AES-256-GCM key from the seed (HKDF-SHA256 with a random
 * info, envelope.ts), so the plugin is called once per seed, not once per write. The
 * stored value is an EncryptedObject holding the ciphertext, the key id, the encrypted
 * seed and its type HKDF_SHA256_XNONCE_AES_GCM_SEED. Status is asked every 20 s and
 * by each health check; a changed key id makes the next write wrap a new seed, and
 * values under another key id read as stale. Reads also accept the older
 * AES_GCM_KEY form (the encrypted source is the data key itself). Each decrypted
 * source is asked of the plugin once and kept (cache keyed by type, key id and
 * encrypted source).
 */
import * as grpc from "@grpc/grpc-js";
import { randomBytes, randomUUID } from "node:crypto";
import { HKDF_SHA256_XNONCE_AES_GCM_SEED, openEnvelope, readEnvelope, sealWithSeed } from "./envelope.ts";
import { SEED_SIZE } from "./extended-nonce-gcm.ts";
import { encodeEncryptedObject, kmsService, type DecryptRequest, type DecryptResponse, type EncryptRequest, type EncryptResponse, type StatusResponse } from "./kms-proto.ts";
import type { Provider } from "./transformer.ts";

export interface KmsV2Config {
  name: string;
  socketPath: string;
  timeoutMs: number;
}

export interface KmsV2Provider extends Provider {
  readonly name: string;
  /** The plugin's Status (healthz "ok" and a key id), within the timeout; a changed key id rotates the write seed. */
  status(): Promise<StatusResponse>;
  close(): void;
}

/** Observes each call to the plugin (metrics): method, gRPC status code name, seconds. */
export type KmsCallObserver = (provider: string, method: string, code: string, seconds: number) => void;

/** The seed writes derive their keys from, and its envelope fields. */
interface WriteSeed {
  seed: Buffer;
  encryptedSeed: Buffer;
  keyId: string;
  annotations: Record<string, Buffer>;
}

const MAX_CACHED_SOURCES = 1000;

export function kmsV2Provider(prefix: string, cfg: KmsV2Config, observe: KmsCallObserver = () => {}): KmsV2Provider {
  const Service = kmsService();
  const client = new Service(`unix://${cfg.socketPath}`, grpc.credentials.createInsecure()) as grpc.Client & Record<string, (req: unknown, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void>;
  const cache = new Map<string, Buffer>();
  let current: Promise<WriteSeed> | undefined;
  let currentKeyId: string | undefined;

  function call<Req, Res>(method: string, req: Req): Promise<Res> {
    const started = process.hrtime.bigint();
    return new Promise<Res>((resolve, reject) => {
      client[method](req, { deadline: Date.now() + cfg.timeoutMs }, (err, res) => {
        observe(cfg.name, method, err ? grpc.status[err.code] : "OK", Number(process.hrtime.bigint() - started) / 1e9);
        if (err) reject(new Error(`kms provider ${cfg.name}: ${method}: ${err.details || err.message}`));
        else resolve(res as Res);
      });
    });
  }

  async function status(): Promise<StatusResponse> {
    const s = await call<Record<string, never>, StatusResponse>("Status", {});
    if (s.healthz !== "ok") throw new Error(`kms provider ${cfg.name}: got unexpected healthz status: ${s.healthz}`);
    if (!s.key_id) throw new Error(`kms provider ${cfg.name}: got unexpected empty key_id`);
    if (s.version !== "v2" && s.version !== "v2beta1") throw new Error(`kms provider ${cfg.name}: got unexpected version ${s.version}`);
    return s;
  }

  const cacheKey = (type: number, keyId: string, source: Uint8Array): string => `${type}/${keyId}/${Buffer.from(source).toString("base64")}`;

  function remember(key: string, secret: Buffer): void {
    if (cache.size >= MAX_CACHED_SOURCES) cache.delete(cache.keys().next().value as string);
    cache.set(key, secret);
  }

  async function newSeed(): Promise<WriteSeed> {
    const s = await status();
    const seed = randomBytes(SEED_SIZE);
    const res = await call<EncryptRequest, EncryptResponse>("Encrypt", { plaintext: seed, uid: randomUUID() });
    if (res.key_id !== s.key_id) throw new Error(`kms provider ${cfg.name}: key id of Encrypt ${JSON.stringify(res.key_id)} differs from Status ${JSON.stringify(s.key_id)}`);
    currentKeyId = res.key_id;
    const w: WriteSeed = { seed, encryptedSeed: Buffer.from(res.ciphertext), keyId: res.key_id, annotations: res.annotations ?? {} };
    remember(cacheKey(HKDF_SHA256_XNONCE_AES_GCM_SEED, w.keyId, w.encryptedSeed), seed);
    return w;
  }

  async function seedForWrite(): Promise<WriteSeed> {
    current ??= newSeed().catch((err: unknown) => {
      current = undefined;
      throw err;
    });
    return current;
  }

  /** As the platform's health probe: a new key id reported by Status makes the next write use a new seed. */
  async function probe(): Promise<StatusResponse> {
    const s = await status();
    if (currentKeyId !== undefined && s.key_id !== currentKeyId) {
      current = undefined;
      currentKeyId = s.key_id;
    }
    return s;
  }

  const poll = setInterval(() => void probe().catch(() => {}), 20_000);
  poll.unref();

  return {
    kind: "kms",
    name: cfg.name,
    prefix: new TextEncoder().encode(prefix),
    status: probe,
    async encrypt(plain, ctx) {
      const w = await seedForWrite();
      return encodeEncryptedObject(sealWithSeed(w.seed, plain, ctx, w));
    },
    async decrypt(body, ctx) {
      const o = readEnvelope(body);
      const key = cacheKey(o.encryptedDEKSourceType, o.keyID, o.encryptedDEKSource);
      let source = cache.get(key);
      if (!source) {
        const res = await call<DecryptRequest, DecryptResponse>("Decrypt", { ciphertext: Buffer.from(o.encryptedDEKSource), uid: randomUUID(), key_id: o.keyID, annotations: Object.fromEntries(Object.entries(o.annotations).map(([k, v]) => [k, Buffer.from(v)])) });
        source = Buffer.from(res.plaintext);
        remember(key, source);
      }
      // As the platform: another key id than the current one, or another source type than the seed, is stale.
      const stale = o.encryptedDEKSourceType !== HKDF_SHA256_XNONCE_AES_GCM_SEED || (currentKeyId !== undefined && o.keyID !== currentKeyId);
      return { value: openEnvelope(o, source, ctx), stale };
    },
    close() {
      clearInterval(poll);
      client.close();
    },
  };
}
