/**
 * A KMS v2 plugin for tests: the KeyManagementService over a unix socket, encrypting
 * with AES-256-GCM under a key of its own per key id. `rotate()` switches to a new key
 * id (older ones still decrypt); `calls` counts the calls per method.
 * `kmsPluginClient` calls a plugin over its socket as the API server does, so tests
 * can unwrap a stored envelope's source or wrap one of their own.
 */
import * as grpc from "@grpc/grpc-js";
import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from "node:crypto";
import { kmsService, type DecryptRequest, type DecryptResponse, type EncryptRequest, type EncryptResponse, type StatusResponse } from "../kms-proto.ts";

export interface TestKmsPlugin {
  socketPath: string;
  keyId(): string;
  rotate(): string;
  calls: Record<"Status" | "Encrypt" | "Decrypt", number>;
  close(): Promise<void>;
}

export async function startTestKmsPlugin(socketPath: string): Promise<TestKmsPlugin> {
  const keys = new Map<string, Buffer>();
  let current = "key-1";
  keys.set(current, randomBytes(32));
  const calls = { Status: 0, Encrypt: 0, Decrypt: 0 };
  const server = new grpc.Server();
  server.addService(kmsService().service, {
    Status(_call: grpc.ServerUnaryCall<unknown, StatusResponse>, cb: grpc.sendUnaryData<StatusResponse>) {
      calls.Status++;
      cb(null, { version: "v2", healthz: "ok", key_id: current });
    },
    Encrypt(call: grpc.ServerUnaryCall<EncryptRequest, EncryptResponse>, cb: grpc.sendUnaryData<EncryptResponse>) {
      calls.Encrypt++;
      const nonce = randomBytes(12);
      const c = createCipheriv("aes-256-gcm", keys.get(current) as Buffer, nonce);
      const body = Buffer.concat([c.update(call.request.plaintext), c.final()]);
      cb(null, { ciphertext: Buffer.concat([nonce, body, c.getAuthTag()]), key_id: current, annotations: { [`version.encryption.remote.io`]: Buffer.from("1") } });
    },
    Decrypt(call: grpc.ServerUnaryCall<DecryptRequest, DecryptResponse>, cb: grpc.sendUnaryData<DecryptResponse>) {
      calls.Decrypt++;
      const key = keys.get(call.request.key_id);
      if (!key) return cb({ code: grpc.status.NOT_FOUND, details: `unknown key id ${call.request.key_id}` });
      const data = call.request.ciphertext;
      try {
        const d = createDecipheriv("aes-256-gcm", key, data.subarray(0, 12));
        d.setAuthTag(data.subarray(data.length - 16));
        cb(null, { plaintext: Buffer.concat([d.update(data.subarray(12, data.length - 16)), d.final()]) });
      } catch {
        cb({ code: grpc.status.INVALID_ARGUMENT, details: "ciphertext does not decrypt" });
      }
    },
  });
  await new Promise<void>((resolve, reject) => server.bindAsync(`unix://${socketPath}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
  return {
    socketPath,
    calls,
    keyId: () => current,
    rotate() {
      current = `key-${keys.size + 1}`;
      keys.set(current, randomBytes(32));
      return current;
    },
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}

export interface KmsPluginClient {
  encrypt(plaintext: Uint8Array): Promise<EncryptResponse>;
  decrypt(ciphertext: Uint8Array, keyId: string, annotations: Record<string, Uint8Array>): Promise<Buffer>;
  close(): void;
}

export function kmsPluginClient(socketPath: string): KmsPluginClient {
  const Service = kmsService();
  const client = new Service(`unix://${socketPath}`, grpc.credentials.createInsecure()) as grpc.Client & Record<string, (req: unknown, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void>;
  const call = <Res>(method: string, req: unknown): Promise<Res> => new Promise((resolve, reject) => client[method](req, (err, res) => (err ? reject(err) : resolve(res as Res))));
  return {
    encrypt: (plaintext) => call<EncryptResponse>("Encrypt", { plaintext: Buffer.from(plaintext), uid: randomUUID() }),
    decrypt: async (ciphertext, keyId, annotations) =>
      Buffer.from((await call<DecryptResponse>("Decrypt", { ciphertext: Buffer.from(ciphertext), uid: randomUUID(), key_id: keyId, annotations: Object.fromEntries(Object.entries(annotations).map(([k, v]) => [k, Buffer.from(v)])) })).plaintext),
    close: () => client.close(),
  };
}
