/**
 * The etcd v3 service definitions (etcdserverpb), loaded once per process from
 * shared/proto, for the store's gRPC server and the one client (client.ts).
 */
import type { ServiceDefinition } from "@grpc/grpc-js";
import { loadSync, type MethodDefinition, type PackageDefinition, type ServiceDefinition as LoadedService } from "@grpc/proto-loader";
import { ETCD_KV_PROTO, ETCD_RPC_PROTO, PROTO_LOADER_OPTIONS } from "../proto/index.ts";

let cached: PackageDefinition | undefined;

export function etcdPackageDefinition(): PackageDefinition {
  cached ??= loadSync([ETCD_KV_PROTO, ETCD_RPC_PROTO], PROTO_LOADER_OPTIONS);
  return cached;
}

export type EtcdServiceName = "KV" | "Watch" | "Lease" | "Cluster" | "Maintenance";

function loadedService(name: EtcdServiceName): LoadedService {
  const def = etcdPackageDefinition()[`etcdserverpb.${name}`];
  if (def === undefined || "format" in def) throw new Error(`etcdserverpb.${name} is not a service`);
  return def;
}

/** A service as the gRPC server registers it. */
export function serviceDefinition(name: EtcdServiceName): ServiceDefinition {
  return loadedService(name) as ServiceDefinition;
}

/** One method of a service, with its path and (de)serializers. */
export function methodDefinition(service: EtcdServiceName, method: string): MethodDefinition<object, object> {
  const def = loadedService(service)[method];
  if (def === undefined) throw new Error(`etcdserverpb.${service} has no method ${method}`);
  return def;
}

/** "http://127.0.0.1:2379" or "127.0.0.1:2379" -> "127.0.0.1:2379" (a gRPC target). */
export function grpcTarget(url: string): string {
  return url.replace(/^[a-z]+:\/\//i, "").replace(/\/+$/, "");
}
