/**
 * A real redis-server on a random loopback port for tests (Debian's redis-server;
 * no persistence). `restart()` stops and starts it on the same port.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { freePort } from "./ports.ts";

export interface RedisServer {
  port: number;
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  restart(): Promise<void>;
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = connect(port, "127.0.0.1", () => {
        sock.end();
        resolve(true);
      });
      sock.on("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server did not listen on ${port} within ${timeoutMs} ms`);
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const server: RedisServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "yes"], { stdio: "ignore" });
      await waitForPort(port, 10_000);
    },
    async stop() {
      const c = child;
      child = undefined;
      if (!c || c.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        c.once("exit", () => resolve());
        c.kill("SIGKILL");
      });
    },
    async restart() {
      await server.stop();
      await server.start();
    },
  };
  await server.start();
  return server;
}
