/**
 * The CRI runtime.v1 RuntimeService definition (shared/proto/cri/api.proto) loaded
 * once with @grpc/proto-loader: snake_case field names as on the wire, int64 as
 * decimal strings, enums by name, defaults filled in. Also the message shapes the
 * agent reads and writes, typed after the .proto file.
 */
import { loadPackageDefinition, type GrpcObject, type ServiceClientConstructor, type ServiceDefinition } from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { CRI_RUNTIME_PROTO, protoPath } from "../../../shared/proto/index.ts";

export const CRI_PROTO_FILE = protoPath(CRI_RUNTIME_PROTO);

export type PodSandboxState = "SANDBOX_READY" | "SANDBOX_NOTREADY";
export type ContainerState = "CONTAINER_CREATED" | "CONTAINER_RUNNING" | "CONTAINER_EXITED" | "CONTAINER_UNKNOWN";

export interface VersionResponse {
  version: string;
  runtime_name: string;
  runtime_version: string;
  runtime_api_version: string;
}

export interface PodSandboxMetadata {
  name: string;
  uid: string;
  namespace: string;
  attempt: number;
}

export interface PodSandbox {
  id: string;
  metadata: PodSandboxMetadata | null;
  state: PodSandboxState;
  created_at: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  runtime_handler: string;
}

export interface PodSandboxFilter {
  id?: string;
  state?: { state: PodSandboxState } | null;
  label_selector?: Record<string, string>;
}

export interface ContainerMetadata {
  name: string;
  attempt: number;
}

export interface Container {
  id: string;
  pod_sandbox_id: string;
  metadata: ContainerMetadata | null;
  image: { image: string } | null;
  image_ref: string;
  state: ContainerState;
  created_at: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  image_id: string;
}

export interface ContainerFilter {
  id?: string;
  state?: { state: ContainerState } | null;
  pod_sandbox_id?: string;
  label_selector?: Record<string, string>;
}

export interface ContainerStatus {
  id: string;
  metadata: ContainerMetadata | null;
  state: ContainerState;
  created_at: string;
  started_at: string;
  finished_at: string;
  exit_code: number;
  reason: string;
  message: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  log_path: string;
  image_id: string;
}

export interface CheckpointContainerRequest {
  container_id: string;
  location: string;
  /** Seconds as a decimal string or number; 0 = the runtime's default. */
  timeout: string | number;
}

export interface ExecSyncRequest {
  container_id: string;
  cmd: string[];
  /** Seconds; 0 = no limit. */
  timeout: number;
}

export interface ExecSyncResponse {
  stdout: Buffer;
  stderr: Buffer;
  exit_code: number;
}

export interface ExecRequest {
  container_id: string;
  cmd: string[];
  tty: boolean;
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
}

export interface AttachRequest {
  container_id: string;
  stdin: boolean;
  tty: boolean;
  stdout: boolean;
  stderr: boolean;
}

export interface PortForwardRequest {
  pod_sandbox_id: string;
  port: number[];
}

let loaded: GrpcObject | undefined;

function runtimePackage(): GrpcObject {
  loaded ??= loadPackageDefinition(
    loadSync(CRI_PROTO_FILE, { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true }),
  );
  return loaded;
}

/** The generated client constructor of `runtime.v1.RuntimeService`. */
export function runtimeServiceClient(): ServiceClientConstructor {
  const v1 = (runtimePackage().runtime as GrpcObject).v1 as GrpcObject;
  return v1.RuntimeService as ServiceClientConstructor;
}

/** The service definition a server registers handlers for. */
export function runtimeServiceDefinition(): ServiceDefinition {
  return runtimeServiceClient().service;
}
