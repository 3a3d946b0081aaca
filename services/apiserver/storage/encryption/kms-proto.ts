/** Loads kms-v2.proto: the gRPC service definition and the EncryptedObject message codec. */
import * as grpc from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { join } from "node:path";
import protobuf from "protobufjs";

export const KMS_V2_PROTO = join(import.meta.dirname, "kms-v2.proto");

export interface StatusResponse {
  version: string;
  healthz: string;
  key_id: string;
}
export interface EncryptRequest {
  plaintext: Buffer;
  uid: string;
}
export interface EncryptResponse {
  ciphertext: Buffer;
  key_id: string;
  annotations: Record<string, Buffer>;
}
export interface DecryptRequest {
  ciphertext: Buffer;
  uid: string;
  key_id: string;
  annotations: Record<string, Buffer>;
}
export interface DecryptResponse {
  plaintext: Buffer;
}

type ServiceConstructor = grpc.ServiceClientConstructor & { service: grpc.ServiceDefinition };

/** The KeyManagementService constructor (client) and definition (server). */
export function kmsService(): ServiceConstructor {
  const def = grpc.loadPackageDefinition(loadSync(KMS_V2_PROTO, { keepCase: true, longs: String, enums: String, defaults: true })) as unknown as { v2: { KeyManagementService: ServiceConstructor } };
  return def.v2.KeyManagementService;
}

export interface EncryptedObject {
  encryptedData: Uint8Array;
  keyID: string;
  encryptedDEKSource: Uint8Array;
  annotations: Record<string, Uint8Array>;
  encryptedDEKSourceType: number;
}

let encryptedObjectType: protobuf.Type | undefined;

function objectType(): protobuf.Type {
  encryptedObjectType ??= protobuf.loadSync(KMS_V2_PROTO).lookupType("v2.EncryptedObject");
  return encryptedObjectType;
}

export function encodeEncryptedObject(o: EncryptedObject): Uint8Array {
  return objectType().encode(objectType().create(o)).finish();
}

export function decodeEncryptedObject(bytes: Uint8Array): EncryptedObject {
  const m = objectType().toObject(objectType().decode(bytes), { defaults: true, enums: Number, bytes: Buffer }) as EncryptedObject;
  return m;
}
