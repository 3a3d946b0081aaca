/**
 * A real redis-server on a random loopback port for tests (Debian's redis-server;
 * no persistence). `restart()` stops and starts it on the same port. Plaintext and
 * without a password unless asked: `password` sets requirepass, `tls` serves only
 * TLS on the port (client certificates required, signed by the CA file), and the
 * URL is then rediss://:password@127.0.0.1:port.
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

export interface RedisServerOptions {
  password?: string;
  tls?: { certFile: string; keyFile: string; caFile: string };
}

function securityArgs(port: number, opts: RedisServerOptions): string[] {
  const args = opts.password === undefined ? [] : ["--requirepass", opts.password];
  if (opts.tls === undefined) return ["--port", String(port), ...args];
  const t = opts.tls;
  return [...args, "--port", "0", "--tls-port", String(port), "--tls-cert-file", t.certFile, "--tls-key-file", t.keyFile, "--tls-ca-cert-file", t.caFile, "--tls-auth-clients", "yes"];
}

export async function startRedis(opts: RedisServerOptions = {}): Promise<RedisServer> {
  const port = await freePort();
  const auth = opts.password === undefined ? "" : `:${encodeURIComponent(opts.password)}@`;
  let child: ChildProcess | undefined;
  const server: RedisServer = {
    port,
    url: `${opts.tls === undefined ? "redis" : "rediss"}://${auth}127.0.0.1:${port}`,
    async start() {
      child = spawn("redis-server", [...securityArgs(port, opts), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "yes"], { stdio: "ignore" });
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
