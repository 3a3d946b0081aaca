/**
 * The multi-process topology for tests: a real redis-server, N store nodes
 * (services/store/main.ts) forming one Raft group, and M apiserver replicas
 * (services/apiserver/main.ts with --store-endpoints) on loopback random ports,
 * sharing one PKI. Every child is killed in `stop()`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensurePki, type Pki } from "../../services/apiserver/server/certs.ts";
import { REPO_ROOT, spawnStoreNode, stopChild, waitForMembers, waitForStore } from "../../services/store/server/node-process.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { HttpsClient } from "./https-client.ts";
import { freePort } from "./ports.ts";
import { startRedis, type RedisServer } from "./redis.ts";

export interface StoreNodeHandle {
  name: string;
  clientPort: number;
  peerPort: number;
  dataDir: string;
  child?: ChildProcess;
}

export interface ReplicaHandle {
  port: number;
  url: string;
  child?: ChildProcess;
  output: string[];
}

export interface ProcessCluster {
  dir: string;
  redis: RedisServer;
  stores: StoreNodeHandle[];
  replicas: ReplicaHandle[];
  pki: Pki;
  admin(i: number): HttpsClient;
  storeEndpoints: string[];
  startStore(i: number): Promise<void>;
  stopStore(i: number, signal?: NodeJS.Signals): Promise<void>;
  stop(): Promise<void>;
}

const APISERVER_MAIN = join(REPO_ROOT, "services", "apiserver", "main.ts");

async function waitForReady(url: string, pki: Pki, child: ChildProcess, output: string[], timeoutMs = 60_000): Promise<void> {
  const client = new HttpsClient(url, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`apiserver exited with ${child.exitCode}: ${output.join("").slice(-2000)}`);
      try {
        const res = await client.get("/readyz");
        if (res.status === 200) return;
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`apiserver at ${url} not ready after ${timeoutMs} ms: ${output.join("").slice(-2000)}`);
  } finally {
    client.close();
  }
}

export async function startProcessCluster(opts: { stores?: number; replicas?: number; profile?: "plat" | "kubernetes"; electionTimeoutMs?: number } = {}): Promise<ProcessCluster> {
  const dir = await mkdtemp(join(tmpdir(), "process-cluster-"));
  const profile = getProfile(opts.profile ?? "plat");
  const pki = await ensurePki(join(dir, "apiserver"), { profile });
  const redis = await startRedis();
  const storeCount = opts.stores ?? 3;
  const stores: StoreNodeHandle[] = [];
  for (let i = 0; i < storeCount; i++) stores.push({ name: `s${i}`, clientPort: await freePort(), peerPort: await freePort(), dataDir: join(dir, `store-${i}`) });
  const initialCluster = stores.map((s) => `${s.name}=http://127.0.0.1:${s.peerPort}`).join(",");
  const storeEndpoints = stores.map((s) => `127.0.0.1:${s.clientPort}`);
  const replicas: ReplicaHandle[] = [];
  const cluster: ProcessCluster = {
    dir,
    redis,
    stores,
    replicas,
    pki,
    storeEndpoints,
    admin: (i) => new HttpsClient(replicas[i].url, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem }),
    async startStore(i) {
      const s = stores[i];
      s.child = spawnStoreNode(
        { name: s.name, clientPort: s.clientPort, peerPort: s.peerPort, dataDir: s.dataDir, initialCluster, redisUrl: redis.url, electionTimeoutMs: opts.electionTimeoutMs ?? 1000, heartbeatIntervalMs: 100 },
        { stdio: "ignore" },
      );
      await waitForStore(`127.0.0.1:${s.clientPort}`, 30_000, s.child);
    },
    async stopStore(i, signal = "SIGTERM") {
      const c = stores[i].child;
      stores[i].child = undefined;
      if (!c || c.exitCode !== null) return;
      if (signal === "SIGKILL") {
        await new Promise<void>((resolve) => {
          c.once("exit", () => resolve());
          c.kill("SIGKILL");
        });
      } else await stopChild(c);
    },
    async stop() {
      for (const r of replicas) if (r.child && r.child.exitCode === null) await stopChild(r.child, 3000);
      for (let i = 0; i < stores.length; i++) await cluster.stopStore(i);
      await redis.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await Promise.all(stores.map((_, i) => cluster.startStore(i)));
    await waitForMembers(storeEndpoints[0], storeCount);
    for (let i = 0; i < (opts.replicas ?? 2); i++) {
      const port = await freePort();
      const output: string[] = [];
      const child = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          APISERVER_MAIN,
          "--data-dir",
          join(dir, "apiserver"),
          "--secure-port",
          String(port),
          "--profile",
          profile.id,
          "--store-endpoints",
          storeEndpoints.join(","),
          "--redis-url",
          redis.url,
        ],
        { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LOG_LEVEL: "warn" } },
      );
      child.stdout?.on("data", (d: Buffer) => output.push(d.toString()));
      child.stderr?.on("data", (d: Buffer) => output.push(d.toString()));
      const replica: ReplicaHandle = { port, url: `https://127.0.0.1:${port}`, child, output };
      replicas.push(replica);
      await waitForReady(replica.url, pki, child, output);
    }
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}
