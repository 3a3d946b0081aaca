/**
 * The etcd v3 service definitions, loaded once per process, and client
 * constructors for them (used by the leader forwarding and the apiserver's client).
 */
import { loadPackageDefinition, type GrpcObject, type ServiceClientConstructor, type ServiceDefinition } from "@grpc/grpc-js";
import { loadSync, type PackageDefinition } from "@grpc/proto-loader";
import { ETCD_KV_PROTO, ETCD_RPC_PROTO, PROTO_LOADER_OPTIONS } from "../../../shared/proto/index.ts";

let cached: PackageDefinition | undefined;

export function etcdPackageDefinition(): PackageDefinition {
  cached ??= loadSync([ETCD_KV_PROTO, ETCD_RPC_PROTO], PROTO_LOADER_OPTIONS);
  return cached;
}

export type EtcdServiceName = "KV" | "Watch" | "Lease" | "Cluster" | "Maintenance";

export function serviceDefinition(name: EtcdServiceName): ServiceDefinition {
  const def = etcdPackageDefinition()[`etcdserverpb.${name}`];
  if (def === undefined || "format" in def) throw new Error(`etcdserverpb.${name} is not a service`);
  return def as ServiceDefinition;
}

let grpcObject: GrpcObject | undefined;

export function clientConstructor(name: EtcdServiceName): ServiceClientConstructor {
  grpcObject ??= loadPackageDefinition(etcdPackageDefinition());
  const pkg = grpcObject.etcdserverpb as GrpcObject;
  return pkg[name] as ServiceClientConstructor;
}

/** "http://127.0.0.1:2379" or "127.0.0.1:2379" -> "127.0.0.1:2379" (a gRPC target). */
export function grpcTarget(url: string): string {
  return url.replace(/^[a-z]+:\/\//i, "").replace(/\/+$/, "");
}
