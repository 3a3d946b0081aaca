/** The CRI client against the test runtime over a real unix socket: each method, the checkpoint archive, ExecSync, and the failure modes. */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RuntimeCallError, RuntimeClient, runtimeTarget } from "../../services/node-agent/cri/runtime-client.ts";
import { startCriServer, type CriServer } from "../support/cri-server.ts";

let cri: CriServer;
let client: RuntimeClient;
let dir: string;
let ids: { sandboxId: string; containerIds: Record<string, string> };

beforeAll(async () => {
  cri = await startCriServer();
  client = new RuntimeClient(cri.endpoint, 5000);
  dir = mkdtempSync(join(tmpdir(), "cri-client-"));
  ids = cri.addPod({ name: "web", namespace: "team-a", uid: "uid-1", containers: ["app", "sidecar"] });
});

afterAll(async () => {
  client?.close();
  await cri?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("runtimeTarget", () => {
  it.each([
    ["unix:///run/containerd/containerd.sock", "unix:/run/containerd/containerd.sock"],
    ["unix:/run/crio/crio.sock", "unix:/run/crio/crio.sock"],
    ["/run/crio/crio.sock", "unix:/run/crio/crio.sock"],
  ])("%s → %s", (endpoint, target) => {
    expect(runtimeTarget(endpoint)).toBe(target);
  });

  it("refuses a TCP endpoint", () => {
    expect(() => runtimeTarget("tcp://127.0.0.1:1234")).toThrow(/only unix sockets/);
  });
});

describe("CRI runtime.v1 client over a unix socket", () => {
  it("Version announces v1 and reads the runtime's name", async () => {
    const v = await client.version();
    expect(v).toMatchObject({ runtime_name: "test-runtime", runtime_api_version: "v1" });
    expect(cri.calls.find((c) => c.method === "Version")?.request).toEqual({ version: "v1" });
  });

  it("ListPodSandbox and ListContainers return the metadata and honour filters", async () => {
    const pods = await client.listPodSandbox({ state: { state: "SANDBOX_READY" } });
    expect(pods.map((p) => p.metadata)).toEqual([{ name: "web", namespace: "team-a", uid: "uid-1", attempt: 0 }]);
    const containers = await client.listContainers({ pod_sandbox_id: ids.sandboxId });
    expect(containers.map((c) => c.metadata?.name).sort()).toEqual(["app", "sidecar"]);
    expect(await client.listContainers({ pod_sandbox_id: "nope" })).toEqual([]);
  });

  it("ContainerStatus answers the state, and NotFound for an unknown id", async () => {
    const s = await client.containerStatus(ids.containerIds.app);
    expect(s).toMatchObject({ id: ids.containerIds.app, state: "CONTAINER_RUNNING", metadata: { name: "app" } });
    const err = await client.containerStatus("missing").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RuntimeCallError);
    expect((err as RuntimeCallError).code).toBe(5);
  });

  it("CheckpointContainer writes a real tar at the location", async () => {
    cri.mode = "ok";
    const location = join(dir, "c1.tar");
    await client.checkpointContainer({ container_id: ids.containerIds.app, location, timeout: 0 });
    expect(statSync(location).size).toBeGreaterThan(4096);
    expect(execFileSync("tar", ["-tf", location], { encoding: "utf8" }).split("\n").filter(Boolean)).toEqual(["config.dump", "checkpoint/pages-1.img"]);
  });

  it.each([
    ["fail", 13, /criu dump/],
    ["unimplemented", 12, /not implemented/],
  ] as const)("mode %s answers gRPC code %i", async (mode, code, message) => {
    cri.mode = mode;
    const err = await client.checkpointContainer({ container_id: ids.containerIds.app, location: join(dir, `${mode}.tar`), timeout: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RuntimeCallError);
    expect((err as RuntimeCallError).code).toBe(code);
    expect((err as Error).message).toMatch(message);
  });

  it("a hanging runtime is cut at the request's timeout", async () => {
    cri.mode = "hang";
    const started = Date.now();
    const err = await client.checkpointContainer({ container_id: ids.containerIds.app, location: join(dir, "hang.tar"), timeout: 1 }).catch((e: unknown) => e);
    const took = Date.now() - started;
    expect((err as RuntimeCallError).code).toBe(4);
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(4000);
    const last = cri.calls.filter((c) => c.method === "CheckpointContainer").at(-1);
    expect(last?.request).toMatchObject({ container_id: ids.containerIds.app, timeout: "1" });
  });

  it("ExecSync answers the command's stdout, stderr and exit code, and sends the timeout", async () => {
    const ok = await client.execSync({ container_id: ids.containerIds.app, cmd: ["sh", "-c", "printf out; printf err >&2; exit 7"], timeout: 0 });
    expect([ok.stdout.toString(), ok.stderr.toString(), ok.exit_code]).toEqual(["out", "err", 7]);
    expect(cri.calls.filter((c) => c.method === "ExecSync").at(-1)?.request).toMatchObject({ container_id: ids.containerIds.app, cmd: ["sh", "-c", "printf out; printf err >&2; exit 7"], timeout: "0" });
    const started = Date.now();
    const slow = await client.execSync({ container_id: ids.containerIds.app, cmd: ["sleep", "5"], timeout: 1 }).catch((e: unknown) => e);
    expect((slow as RuntimeCallError).code).toBe(4);
    expect(Date.now() - started).toBeLessThan(4000);
    const missing = await client.execSync({ container_id: "missing", cmd: ["true"], timeout: 0 }).catch((e: unknown) => e);
    expect((missing as RuntimeCallError).code).toBe(5);
  });
});
