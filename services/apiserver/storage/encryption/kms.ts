/**
 * The kms v2 provider: envelope encryption through a KMS plugin's gRPC API on a unix
 * socket. A local data encryption key (DEK, AES-256-GCM) encrypts each value with the
 * storage key as additional data; the plugin encrypts the DEK once (again when the
 * plugin's Status reports a new key_id); the stored value is an EncryptedObject
 * holding the ciphertext, the key id and the encrypted DEK. Reads decrypt a DEK
 * through the plugin once and keep it (cache keyed by the encrypted DEK).
 */
import * as grpc from "@grpc/grpc-js";
import { randomBytes, randomUUID } from "node:crypto";
import { gcmOpen, gcmSeal } from "./ciphers.ts";
import { decodeEncryptedObject, encodeEncryptedObject, kmsService, type DecryptRequest, type DecryptResponse, type EncryptRequest, type EncryptResponse, type StatusResponse } from "./kms-proto.ts";
import type { Provider } from "./transformer.ts";

export interface KmsV2Config {
  name: string;
  socketPath: string;
  timeoutMs: number;
}

export interface KmsV2Provider extends Provider {
  readonly name: string;
  /** The plugin's Status (healthz "ok" and a key id), within the timeout. */
  status(): Promise<StatusResponse>;
  close(): void;
}

/** Observes each call to the plugin (metrics): method, gRPC status code name, seconds. */
export type KmsCallObserver = (provider: string, method: string, code: string, seconds: number) => void;

interface CurrentDek {
  dek: Buffer;
  encryptedDek: Buffer;
  keyId: string;
  annotations: Record<string, Buffer>;
}

const MAX_CACHED_DEKS = 1000;

export function kmsV2Provider(prefix: string, cfg: KmsV2Config, observe: KmsCallObserver = () => {}): KmsV2Provider {
  const Service = kmsService();
  const client = new Service(`unix://${cfg.socketPath}`, grpc.credentials.createInsecure()) as grpc.Client & Record<string, (req: unknown, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void>;
  const cache = new Map<string, Buffer>();
  let current: Promise<CurrentDek> | undefined;
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

  async function newDek(): Promise<CurrentDek> {
    const s = await status();
    const dek = randomBytes(32);
    const res = await call<EncryptRequest, EncryptResponse>("Encrypt", { plaintext: dek, uid: randomUUID() });
    if (res.key_id !== s.key_id) throw new Error(`kms provider ${cfg.name}: key id of Encrypt ${JSON.stringify(res.key_id)} differs from Status ${JSON.stringify(s.key_id)}`);
    currentKeyId = res.key_id;
    cache.set(Buffer.from(res.ciphertext).toString("base64"), dek);
    return { dek, encryptedDek: Buffer.from(res.ciphertext), keyId: res.key_id, annotations: res.annotations ?? {} };
  }

  async function dekForWrite(): Promise<CurrentDek> {
    current ??= newDek().catch((err: unknown) => {
      current = undefined;
      throw err;
    });
    return current;
  }

  /** A new key id reported by Status makes the next write use a new DEK. */
  const poll = setInterval(() => {
    status()
      .then((s) => {
        if (currentKeyId !== undefined && s.key_id !== currentKeyId) current = undefined;
      })
      .catch(() => {});
  }, 20_000);
  poll.unref();

  return {
    kind: "kms",
    name: cfg.name,
    prefix: new TextEncoder().encode(prefix),
    status,
    async encrypt(plain, ctx) {
      const d = await dekForWrite();
      return encodeEncryptedObject({ encryptedData: gcmSeal(d.dek, plain, ctx), keyID: d.keyId, encryptedDEKSource: d.encryptedDek, annotations: d.annotations, encryptedDEKSourceType: 0 });
    },
    async decrypt(body, ctx) {
      const o = decodeEncryptedObject(body);
      if (!o.keyID) throw new Error("failed to validate key id: keyID is empty");
      if (o.encryptedDEKSource.length === 0) throw new Error("failed to validate encrypted DEK source: encrypted DEK source is empty");
      const cacheKey = Buffer.from(o.encryptedDEKSource).toString("base64");
      let dek = cache.get(cacheKey);
      if (!dek) {
        const res = await call<DecryptRequest, DecryptResponse>("Decrypt", { ciphertext: Buffer.from(o.encryptedDEKSource), uid: randomUUID(), key_id: o.keyID, annotations: Object.fromEntries(Object.entries(o.annotations).map(([k, v]) => [k, Buffer.from(v)])) });
        dek = Buffer.from(res.plaintext);
        if (cache.size >= MAX_CACHED_DEKS) cache.delete(cache.keys().next().value as string);
        cache.set(cacheKey, dek);
      }
      return gcmOpen(dek, o.encryptedData, ctx);
    },
    close() {
      clearInterval(poll);
      client.close();
    },
  };
}
