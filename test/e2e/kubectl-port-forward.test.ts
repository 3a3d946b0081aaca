/**
 * pods/portforward end to end with kubectl 1.34, which tunnels SPDY/3.1 in a WebSocket
 * (the port-forward tunnel subprotocol): a real apiserver, a real node-agent process and the
 * test runtime's streaming server, which dials the pod's port on loopback (mapped to a
 * TCP echo server the test opens). Covered: two connections through one forward echo
 * their bytes both ways (a 200 kB payload included), a port with nothing listening
 * reports the forwarding error on the error stream (kubectl prints it), a user
 * without `create` on pods/portforward is refused, and the SPDY/3.1 fallback
 * (KUBECTL_PORT_FORWARD_WEBSOCKETS=false: `Upgrade: SPDY/3.1` with the port-forward
 * protocol end to end) forwards as well.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { connect, createServer, type AddressInfo, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { layerClients } from "../support/clients.ts";
import { freePort } from "../support/ports.ts";
import { startStreamingCluster, type StreamingCluster } from "./kubectl-exec-cluster.ts";

const NS = "forward";
let c: StreamingCluster;
let echo: Server;
const children: ChildProcess[] = [];

/** Sends `text` over a new connection to the local port and resolves with what came back once the peer closed. */
function roundTrip(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let got = "";
    socket.on("connect", () => socket.end(text));
    socket.on("data", (d: Buffer) => (got += d.toString()));
    socket.on("close", () => resolve(got));
    socket.on("error", reject);
    setTimeout(() => socket.destroy(new Error(`no echo within 10 s; got ${JSON.stringify(got)}`)), 10_000).unref();
  });
}

/** Starts `kubectl port-forward` and resolves once it listens; its output is collected. */
async function portForward(kubeconfig: string, ports: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(layerClients().kubectl, ["--kubeconfig", kubeconfig, "-n", NS, "-v=6", "port-forward", "pod/shell", ports], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  children.push(child);
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`kubectl port-forward did not start: ${out}`)), 20_000);
    const check = () => {
      if (/Forwarding from 127\.0\.0\.1/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", check);
    child.once("exit", () => {
      clearTimeout(timer);
      reject(new Error(`kubectl port-forward exited: ${out}`));
    });
  });
  return { child, output: () => out };
}

beforeAll(async () => {
  echo = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
  c = await startStreamingCluster("kubectl-port-forward", NS, [{ name: "shell", containers: ["app"] }]);
  c.cri.portMap.set(8080, (echo.address() as AddressInfo).port);
  // Pod port 9090 leads to a loopback port with nothing listening.
  c.cri.portMap.set(9090, await freePort());
}, 120_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await c?.close();
  await new Promise<void>((resolve) => (echo ? echo.close(() => resolve()) : resolve()));
});

describe("kubectl port-forward", () => {
  it("forwards local connections to the pod's port, both ways, one after another", async () => {
    const local = await freePort();
    const { child } = await portForward(c.kubeconfig, `${local}:8080`);
    expect(await roundTrip(local, "hello through the tunnel\n")).toBe("hello through the tunnel\n");
    const big = "x".repeat(200_000);
    expect(await roundTrip(local, big)).toBe(big);
    child.kill("SIGTERM");
  });

  it("reports a port with nothing listening on the error stream", async () => {
    const local = await freePort();
    const { child, output } = await portForward(c.kubeconfig, `${local}:9090`);
    // kubectl closes the local connection when the forward fails; with "anyone?" still unread that close
    // may be a reset rather than a FIN: either way nothing came back.
    const reply = await roundTrip(local, "anyone?").catch((err: NodeJS.ErrnoException) => (err.code === "ECONNRESET" ? "" : Promise.reject(err)));
    expect(reply).toBe("");
    await new Promise((r) => setTimeout(r, 300));
    expect(output()).toMatch(/error forwarding port 9090 to pod/);
    child.kill("SIGTERM");
  });

  it("falls back to SPDY/3.1 when kubectl does not use WebSocket", async () => {
    const local = await freePort();
    const { child, output } = await portForward(c.kubeconfig, `${local}:8080`, { KUBECTL_PORT_FORWARD_WEBSOCKETS: "false" });
    expect(await roundTrip(local, "hello over spdy\n")).toBe("hello over spdy\n");
    const big = "y".repeat(100_000);
    expect(await roundTrip(local, big)).toBe(big);
    expect(output()).toMatch(/verb="POST" url="https:[^"]+\/portforward" status="101 Switching Protocols"/);
    child.kill("SIGTERM");
  });

  it("needs create on pods/portforward", async () => {
    const user = await c.user("forward-reader");
    const local = await freePort();
    await expect(portForward(user.kubeconfig, `${local}:8080`)).rejects.toThrow(/forbidden/i);
  });
});
