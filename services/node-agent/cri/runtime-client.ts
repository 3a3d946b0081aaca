/**
 * A CRI RuntimeService client over a unix socket (`--container-runtime-endpoint`,
 * `unix:///run/containerd/containerd.sock` or a bare path). Each call has a deadline:
 * `--runtime-request-timeout` (2 minutes by default); CheckpointContainer uses its
 * request's timeout in seconds when it is above zero. Failures reject with
 * `RuntimeCallError`, carrying the gRPC status code (12 = Unimplemented,
 * 4 = DeadlineExceeded) and the runtime's message.
 */
import { credentials, type Client, type ServiceError } from "@grpc/grpc-js";
import {
  runtimeServiceClient,
  type AttachRequest,
  type ExecRequest,
  type ExecSyncRequest,
  type ExecSyncResponse,
  type CheckpointContainerRequest,
  type Container,
  type ContainerFilter,
  type ContainerStatus,
  type PodSandbox,
  type PodSandboxFilter,
  type VersionResponse,
} from "./runtime-proto.ts";

export const DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS = 2 * 60 * 1000;
/** A deadline far enough away to be none (a day). */
const NO_DEADLINE_MS = 24 * 60 * 60 * 1000;
/** The CRI version string the agent announces in VersionRequest. */
export const CRI_API_VERSION = "v1";

export class RuntimeCallError extends Error {
  override name = "RuntimeCallError";
  constructor(
    readonly method: string,
    /** gRPC status code. */
    readonly code: number,
    readonly details: string,
  ) {
    super(`rpc error: code = ${GRPC_CODE_NAMES[code] ?? code} desc = ${details}`);
  }
}

const GRPC_CODE_NAMES: Record<number, string> = {
  1: "Canceled",
  2: "Unknown",
  3: "InvalidArgument",
  4: "DeadlineExceeded",
  5: "NotFound",
  6: "AlreadyExists",
  7: "PermissionDenied",
  8: "ResourceExhausted",
  9: "FailedPrecondition",
  10: "Aborted",
  11: "OutOfRange",
  12: "Unimplemented",
  13: "Internal",
  14: "Unavailable",
  15: "DataLoss",
  16: "Unauthenticated",
};

/** `unix:///path`, `unix:path` or `/path` as the gRPC target `unix:/path`. */
export function runtimeTarget(endpoint: string): string {
  const e = endpoint.trim();
  if (e.startsWith("unix://")) return `unix:${e.slice("unix://".length)}`;
  if (e.startsWith("unix:")) return e;
  if (e.startsWith("/")) return `unix:${e}`;
  throw new Error(`unsupported container runtime endpoint ${JSON.stringify(endpoint)}: only unix sockets are supported`);
}

type Unary = (req: unknown, options: { deadline: Date }, cb: (err: ServiceError | null, res: unknown) => void) => void;

export class RuntimeClient {
  private readonly client: Client;

  constructor(
    endpoint: string,
    private readonly timeoutMs = DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS,
  ) {
    const Ctor = runtimeServiceClient();
    this.client = new Ctor(runtimeTarget(endpoint), credentials.createInsecure());
  }

  private call<T>(method: string, request: unknown, timeoutMs = this.timeoutMs): Promise<T> {
    const fn = (this.client as unknown as Record<string, Unary>)[method].bind(this.client);
    return new Promise((resolve, reject) => {
      fn(request, { deadline: new Date(Date.now() + timeoutMs) }, (err, res) => {
        if (err) reject(new RuntimeCallError(method, err.code, err.details || err.message));
        else resolve(res as T);
      });
    });
  }

  version(timeoutMs = this.timeoutMs): Promise<VersionResponse> {
    return this.call("Version", { version: CRI_API_VERSION }, timeoutMs);
  }

  async listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox[]> {
    return (await this.call<{ items: PodSandbox[] }>("ListPodSandbox", { filter: filter ?? null })).items;
  }

  async listContainers(filter?: ContainerFilter): Promise<Container[]> {
    return (await this.call<{ containers: Container[] }>("ListContainers", { filter: filter ?? null })).containers;
  }

  async containerStatus(containerId: string): Promise<ContainerStatus | null> {
    return (await this.call<{ status: ContainerStatus | null }>("ContainerStatus", { container_id: containerId, verbose: false })).status;
  }

  /** Checkpoints a container into `location`; the deadline is `timeout` seconds, or the default timeout when 0. */
  async checkpointContainer(req: CheckpointContainerRequest): Promise<void> {
    const seconds = Number(req.timeout);
    const deadlineMs = seconds > 0 ? seconds * 1000 : this.timeoutMs;
    await this.call("CheckpointContainer", { container_id: req.container_id, location: req.location, timeout: String(req.timeout) }, deadlineMs);
  }

  /**
   * Runs a command in the container and answers its output and exit code (CRI ExecSync).
   * With a timeout the deadline is the runtime timeout plus that many seconds; without one
   * the call has no deadline, as the platform's agent calls it.
   */
  async execSync(req: ExecSyncRequest): Promise<ExecSyncResponse> {
    const deadlineMs = req.timeout > 0 ? this.timeoutMs + req.timeout * 1000 : NO_DEADLINE_MS;
    const res = await this.call<ExecSyncResponse>("ExecSync", { container_id: req.container_id, cmd: req.cmd, timeout: String(req.timeout) }, deadlineMs);
    return { stdout: Buffer.from(res.stdout ?? []), stderr: Buffer.from(res.stderr ?? []), exit_code: res.exit_code ?? 0 };
  }

  /** A streaming-server URL for a command run in the container (CRI Exec). */
  async exec(req: ExecRequest): Promise<string> {
    return (await this.call<{ url: string }>("Exec", req)).url;
  }

  /** A streaming-server URL attached to the container's main process (CRI Attach). */
  async attach(req: AttachRequest): Promise<string> {
    return (await this.call<{ url: string }>("Attach", req)).url;
  }

  /** A streaming-server URL forwarding ports of the pod sandbox (CRI PortForward). */
  async portForward(podSandboxId: string, ports: number[]): Promise<string> {
    return (await this.call<{ url: string }>("PortForward", { pod_sandbox_id: podSandboxId, port: ports })).url;
  }

  close(): void {
    this.client.close();
  }
}
