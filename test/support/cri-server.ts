/**
 * A small container runtime for tests: a real gRPC server speaking CRI runtime.v1
 * (the agent's .proto) on a unix socket in a temporary directory. It knows the pod
 * sandboxes and containers it is told about; CheckpointContainer writes a real tar
 * archive (ustar) at the requested location with the file mode the test chooses.
 * Modes: `ok`, `fail` (Internal error), `hang` (never answers CheckpointContainer),
 * `unimplemented` (answers Unimplemented as a runtime without checkpoint support).
 * Every request is recorded for assertions. `close()` stops it and removes the directory.
 * Exec, Attach and PortForward answer URLs of a real streaming server
 * (services/node-agent/cri/streaming-server.ts): exec runs the command as a child
 * process, attach joins a container's main process (`mainProcesses` of addPod), and
 * port-forward dials 127.0.0.1 at the pod port, or at the port `portMap` maps it to.
 * ExecSync runs the command as a child process of a running container's and answers
 * its output (each stream capped at 16 MiB, as the interface asks) and exit code.
 * `restartContainer` ends a container's instance and starts its next attempt (what
 * `previous` logs read). `socket` places the runtime socket at a path of the test's.
 */
import { Server, ServerCredentials, status, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from "@grpc/grpc-js";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getProfile } from "../../shared/platform/index.ts";
import { spawnProcess, StreamingServer } from "../../services/node-agent/cri/streaming-server.ts";
import type { StreamProcess } from "../../services/node-agent/cri/channel-session.ts";
import { runtimeServiceDefinition, type Container, type ContainerFilter, type PodSandbox, type PodSandboxFilter } from "../../services/node-agent/cri/runtime-proto.ts";

export type CheckpointMode = "ok" | "fail" | "hang" | "unimplemented";

export interface FakePod {
  name: string;
  namespace: string;
  uid: string;
  containers: string[];
  /** Commands run as the main process of containers (what attach joins). */
  mainProcesses?: Record<string, string[]>;
}

export interface RecordedCall {
  method: string;
  request: Record<string, unknown>;
}

export interface CriServer {
  /** `unix://<socket>`, for `--container-runtime-endpoint`. */
  endpoint: string;
  socket: string;
  mode: CheckpointMode;
  /** When true, Version answers Unavailable (the runtime looks down to the agent). */
  down: boolean;
  /** Mode of the archive file written by CheckpointContainer (default 0644: the agent tightens it). */
  archiveMode: number;
  calls: RecordedCall[];
  addPod(pod: FakePod): { sandboxId: string; containerIds: Record<string, string> };
  /** The instance exits and the next attempt of the same container starts; answers the new instance's id. */
  restartContainer(containerId: string): string;
  /** Pod port → loopback port that port-forward dials (identity when absent). */
  portMap: Map<number, number>;
  /** The CRI log file ContainerStatus names for a container (written by the test; absent until then). */
  logPath(containerId: string): string;
  close(): Promise<void>;
}

function id(): string {
  return randomBytes(32).toString("hex");
}

/** One 512-byte ustar header. */
function tarHeader(name: string, size: number, mtime: number): Buffer {
  const h = Buffer.alloc(512, 0);
  const put = (text: string, offset: number, length: number) => h.write(text.slice(0, length), offset, length, "ascii");
  // Octal digits, NUL-terminated by the zero-filled buffer.
  const octal = (n: number, length: number) => n.toString(8).padStart(length - 1, "0");
  put(name, 0, 100);
  put(octal(0o600, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(mtime, 12), 136, 12);
  h.fill(0x20, 148, 156); // checksum field counts as spaces
  put("0", 156, 1);
  put("ustar\0", 257, 6);
  put("00", 263, 2);
  let sum = 0;
  for (const b of h) sum += b;
  put(sum.toString(8).padStart(6, "0") + "\0 ", 148, 8);
  return h;
}

/** A tar archive of the given files (ustar, two zero blocks at the end). */
export function tarArchive(files: Record<string, Buffer>): Buffer {
  const parts: Buffer[] = [];
  const mtime = Math.floor(Date.now() / 1000);
  for (const [name, data] of Object.entries(files)) {
    parts.push(tarHeader(name, data.length, mtime), data, Buffer.alloc((512 - (data.length % 512)) % 512, 0));
  }
  parts.push(Buffer.alloc(1024, 0));
  return Buffer.concat(parts);
}

/** Output a runtime keeps of each stream of an ExecSync (the interface's 16 MiB cap). */
const EXEC_SYNC_OUTPUT_CAP = 16 * 1024 * 1024;

interface ExecSyncResult {
  stdout: Buffer;
  stderr: Buffer;
  exit_code: number;
}

/** Runs `cmd` to its end (or to the timeout in seconds, 0 = none) and collects its output. */
function execSync(cmd: string[], timeoutSeconds: number): Promise<ExecSyncResult | { code: number; details: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd[0], cmd.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
    const collect = (stream: NodeJS.ReadableStream) => {
      const parts: Buffer[] = [];
      let size = 0;
      stream.on("data", (b: Buffer) => {
        const room = EXEC_SYNC_OUTPUT_CAP - size;
        if (room > 0) parts.push(b.subarray(0, room));
        size += Math.min(room, b.length);
      });
      return parts;
    };
    const out = collect(child.stdout);
    const err = collect(child.stderr);
    let timedOut = false;
    const timer =
      timeoutSeconds > 0
        ? setTimeout(() => {
            timedOut = true;
            child.kill("SIGKILL");
          }, timeoutSeconds * 1000)
        : undefined;
    child.once("error", (e: NodeJS.ErrnoException) => {
      if (timer) clearTimeout(timer);
      const why = e.code === "ENOENT" ? "executable file not found in $PATH" : e.message;
      resolve({ code: status.UNKNOWN, details: `failed to exec in container: failed to start exec: OCI runtime exec failed: exec failed: unable to start container process: exec: ${JSON.stringify(cmd[0])}: ${why}: unknown` });
    });
    child.once("close", (code, signal) => {
      if (timer) clearTimeout(timer);
      if (timedOut) return resolve({ code: status.DEADLINE_EXCEEDED, details: `failed to exec in container: timeout ${timeoutSeconds}s exceeded: context deadline exceeded` });
      resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(err), exit_code: code ?? (signal ? 137 : 1) });
    });
  });
}

export async function startCriServer(opts: { socket?: string } = {}): Promise<CriServer> {
  const dir = mkdtempSync(join(tmpdir(), "cri-"));
  const socket = opts.socket ?? join(dir, "runtime.sock");
  const sandboxes: PodSandbox[] = [];
  const containers: Container[] = [];
  const server = new Server();
  const hanging: Array<sendUnaryData<unknown>> = [];
  const streaming = await StreamingServer.start(getProfile("kubernetes").groupDomain);
  const mains = new Map<string, StreamProcess>();
  const state: CriServer = {
    endpoint: `unix://${socket}`,
    socket,
    mode: "ok",
    down: false,
    archiveMode: 0o644,
    calls: [],
    portMap: new Map(),
    addPod(pod) {
      const sandboxId = id();
      const now = String(BigInt(Date.now()) * 1_000_000n);
      sandboxes.push({ id: sandboxId, metadata: { name: pod.name, namespace: pod.namespace, uid: pod.uid, attempt: 0 }, state: "SANDBOX_READY", created_at: now, labels: {}, annotations: {}, runtime_handler: "" });
      const containerIds: Record<string, string> = {};
      for (const name of pod.containers) {
        const cid = id();
        containerIds[name] = cid;
        const main = pod.mainProcesses?.[name];
        if (main) mains.set(cid, spawnProcess(main));
        containers.push({ id: cid, pod_sandbox_id: sandboxId, metadata: { name, attempt: 0 }, image: { image: "busybox" }, image_ref: "busybox", state: "CONTAINER_RUNNING", created_at: now, labels: {}, annotations: {}, image_id: "busybox" });
      }
      return { sandboxId, containerIds };
    },
    restartContainer(containerId) {
      const old = containers.find((c) => c.id === containerId);
      if (!old?.metadata) throw new Error(`no container ${containerId}`);
      old.state = "CONTAINER_EXITED";
      mains.get(containerId)?.kill?.();
      const next = { ...old, id: id(), metadata: { name: old.metadata.name, attempt: old.metadata.attempt + 1 }, state: "CONTAINER_RUNNING" as const, created_at: String(BigInt(Date.now()) * 1_000_000n) };
      containers.push(next);
      return next.id;
    },
    logPath: (containerId) => join(dir, `${containerId}.log`),
    async close() {
      for (const cb of hanging.splice(0)) cb({ code: status.UNAVAILABLE, details: "server stopping" });
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      server.forceShutdown();
      for (const p of mains.values()) p.kill?.();
      await streaming.close();
      rmSync(dir, { recursive: true, force: true });
      if (opts.socket) rmSync(opts.socket, { force: true });
    },
  };
  const record = (method: string, call: ServerUnaryCall<unknown, unknown>) => state.calls.push({ method, request: call.request as Record<string, unknown> });
  const impl: UntypedServiceImplementation = {
    Version(call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) {
      record("Version", call);
      if (state.down) return cb({ code: status.UNAVAILABLE, details: "runtime is shutting down" });
      cb(null, { version: "0.1.0", runtime_name: "test-runtime", runtime_version: "1.0.0", runtime_api_version: "v1" });
    },
    ListPodSandbox(call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) {
      record("ListPodSandbox", call);
      const f = (call.request as { filter: PodSandboxFilter | null }).filter;
      cb(null, { items: sandboxes.filter((s) => (!f?.id || s.id === f.id) && (!f?.state || s.state === f.state.state)) });
    },
    ListContainers(call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) {
      record("ListContainers", call);
      const f = (call.request as { filter: ContainerFilter | null }).filter;
      cb(null, { containers: containers.filter((c) => (!f?.id || c.id === f.id) && (!f?.pod_sandbox_id || c.pod_sandbox_id === f.pod_sandbox_id) && (!f?.state || c.state === f.state.state)) });
    },
    ContainerStatus(call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) {
      record("ContainerStatus", call);
      const c = containers.find((x) => x.id === (call.request as { container_id: string }).container_id);
      if (!c) return cb({ code: status.NOT_FOUND, details: "an error occurred when try to find container" });
      cb(null, { status: { id: c.id, metadata: c.metadata, state: c.state, created_at: c.created_at, labels: {}, annotations: {}, log_path: state.logPath(c.id) }, info: {} });
    },
    CheckpointContainer(call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) {
      record("CheckpointContainer", call);
      const req = call.request as { container_id: string; location: string };
      if (state.mode === "unimplemented") return cb({ code: status.UNIMPLEMENTED, details: "method CheckpointContainer not implemented" });
      if (state.mode === "fail") return cb({ code: status.INTERNAL, details: "checkpointing failed: criu dump exited with status 1" });
      if (state.mode === "hang") {
        hanging.push(cb);
        return;
      }
      const c = containers.find((x) => x.id === req.container_id);
      if (!c) return cb({ code: status.NOT_FOUND, details: `container ${req.container_id} not found` });
      try {
        writeFileSync(req.location, tarArchive({ "config.dump": Buffer.from(JSON.stringify({ id: c.id, name: c.metadata?.name })), "checkpoint/pages-1.img": randomBytes(4096) }), { mode: state.archiveMode });
        chmodSync(req.location, state.archiveMode);
      } catch (err) {
        return cb({ code: status.INTERNAL, details: `writing ${req.location}: ${(err as Error).message}` });
      }
      cb(null, {});
    },
    ExecSync(call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) {
      record("ExecSync", call);
      const req = call.request as { container_id: string; cmd: string[]; timeout: string };
      const c = containers.find((x) => x.id === req.container_id);
      if (!c) return cb({ code: status.NOT_FOUND, details: `an error occurred when try to find container ${JSON.stringify(req.container_id)}: not found` });
      if (c.state !== "CONTAINER_RUNNING") return cb({ code: status.FAILED_PRECONDITION, details: `container is in ${c.state} state` });
      if (req.cmd.length === 0 || req.cmd[0] === "") return cb({ code: status.UNKNOWN, details: "failed to exec in container: failed to start exec: OCI runtime exec failed: exec failed: unable to start container process: exec: \"\": executable file not found in $PATH: unknown" });
      void execSync(req.cmd, Number(req.timeout)).then((r) => ("details" in r ? cb(r) : cb(null, r)));
    },
    Exec(call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) {
      record("Exec", call);
      const req = call.request as { container_id: string; cmd: string[]; tty: boolean; stdin: boolean; stdout: boolean; stderr: boolean };
      if (!containers.some((c) => c.id === req.container_id)) return cb({ code: status.NOT_FOUND, details: `container ${req.container_id} not found` });
      if (req.cmd.length === 0) return cb({ code: status.INVALID_ARGUMENT, details: "cmd must not be empty" });
      cb(null, { url: streaming.exec({ cmd: req.cmd, tty: req.tty, stdin: req.stdin, stdout: req.stdout, stderr: req.stderr }) });
    },
    Attach(call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) {
      record("Attach", call);
      const req = call.request as { container_id: string; tty: boolean; stdin: boolean; stdout: boolean; stderr: boolean };
      const main = mains.get(req.container_id);
      if (!main) return cb({ code: status.NOT_FOUND, details: `container ${req.container_id} has no running process to attach to` });
      cb(null, { url: streaming.attach({ process: main, tty: req.tty, stdin: req.stdin, stdout: req.stdout, stderr: req.stderr }) });
    },
    PortForward(call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) {
      record("PortForward", call);
      const req = call.request as { pod_sandbox_id: string };
      const sandbox = sandboxes.find((s) => s.id === req.pod_sandbox_id);
      if (!sandbox) return cb({ code: status.NOT_FOUND, details: `pod sandbox ${req.pod_sandbox_id} not found` });
      const target = (port: number) => ({ host: "127.0.0.1", port: state.portMap.get(port) ?? port });
      cb(null, { url: streaming.portForward({ podName: sandbox.metadata?.name ?? "", target }) });
    },
  };
  server.addService(runtimeServiceDefinition(), impl);
  await new Promise<void>((resolve, reject) => server.bindAsync(`unix:${socket}`, ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
  return state;
}
