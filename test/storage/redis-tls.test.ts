/**
 * Redis AUTH and TLS for the revision stream, and an apiserver on a TLS store
 * (issue 26): a real redis-server with requirepass that serves only TLS and requires
 * client certificates; a store node (mTLS client API) that publishes to it through
 * `rediss://:password@…` with --redis-ca-file/--redis-cert-file/--redis-key-file;
 * an apiserver process with --etcd-cafile/--etcd-certfile/--etcd-keyfile and the
 * same Redis flags that serves creates, reads and watches. Redis refuses clients
 * without the password, without TLS, or without a client certificate.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConnectionOptions } from "node:tls";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensurePki, type Pki } from "../../services/apiserver/server/certs.ts";
import { REPO_ROOT, spawnStoreNode, stopChild, waitForStore } from "../../services/store/server/node-process.ts";
import { grpcChannelCredentials } from "../../shared/tls/grpc-credentials.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { HttpsClient } from "../support/https-client.ts";
import { freePort } from "../support/ports.ts";
import { startRedis, type RedisServer } from "../support/redis.ts";
import { writeTlsFiles, type TlsFiles } from "../support/tls-files.ts";

const PASSWORD = "s3cret-stream-pw";
const STREAM = "revisions";

let dir: string;
let files: TlsFiles;
let redis: RedisServer;
let store: ChildProcess | undefined;
let apiserver: ChildProcess | undefined;
const apiserverOutput: string[] = [];
let pki: Pki;
let admin: HttpsClient;

function redisClientTls(): ConnectionOptions {
  return { ca: files.caPem, cert: files.client.certPem, key: files.client.keyPem };
}

async function waitForReady(client: HttpsClient, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`apiserver exited with ${child.exitCode}: ${apiserverOutput.join("").slice(-2000)}`);
    const res = await client.get("/readyz").catch(() => undefined);
    if (res?.status === 200) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`apiserver not ready: ${apiserverOutput.join("").slice(-2000)}`);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "redis-tls-"));
  files = await writeTlsFiles(dir);
  redis = await startRedis({ password: PASSWORD, tls: { certFile: files.member.certFile, keyFile: files.member.keyFile, caFile: files.caFile } });
  const clientPort = await freePort();
  const peerPort = await freePort();
  const redisFlags = [`--redis-ca-file=${files.caFile}`, `--redis-cert-file=${files.client.certFile}`, `--redis-key-file=${files.client.keyFile}`];
  store = spawnStoreNode(
    {
      name: "r1",
      clientPort,
      peerPort,
      dataDir: join(dir, "store"),
      initialCluster: `r1=https://127.0.0.1:${peerPort}`,
      redisUrl: redis.url,
      revisionStream: STREAM,
      tls: { caFile: files.caFile, certFile: files.member.certFile, keyFile: files.member.keyFile },
      extraArgs: redisFlags,
    },
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  const creds = grpcChannelCredentials({ caFile: files.caFile, certFile: files.client.certFile, keyFile: files.client.keyFile });
  try {
    await waitForStore(`127.0.0.1:${clientPort}`, 30_000, store, creds.credentials);
  } finally {
    creds.close();
  }
  const profile = getProfile("plat");
  pki = await ensurePki(join(dir, "apiserver"), { profile });
  const port = await freePort();
  apiserver = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      join(REPO_ROOT, "services", "apiserver", "main.ts"),
      `--data-dir=${join(dir, "apiserver")}`,
      `--secure-port=${port}`,
      `--profile=${profile.id}`,
      `--store-endpoints=https://127.0.0.1:${clientPort}`,
      `--etcd-cafile=${files.caFile}`,
      `--etcd-certfile=${files.client.certFile}`,
      `--etcd-keyfile=${files.client.keyFile}`,
      `--redis-url=${redis.url}`,
      `--revision-stream=${STREAM}`,
      ...redisFlags,
    ],
    { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LOG_LEVEL: "warn" } },
  );
  apiserver.stdout?.on("data", (d: Buffer) => apiserverOutput.push(d.toString()));
  apiserver.stderr?.on("data", (d: Buffer) => apiserverOutput.push(d.toString()));
  admin = new HttpsClient(`https://127.0.0.1:${port}`, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
  await waitForReady(admin, apiserver);
}, 90_000);

afterAll(async () => {
  admin?.close();
  if (apiserver) await stopChild(apiserver, 3000);
  if (store) await stopChild(store);
  await redis?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** PING with the given URL and TLS options: "PONG" or the refusal's message. */
async function ping(url: string, tls?: ConnectionOptions): Promise<string> {
  const client = new Redis(url, { lazyConnect: true, enableReadyCheck: false, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null, connectTimeout: 3000, ...(tls ? { tls } : {}) });
  // The server's refusal (NOAUTH, WRONGPASS) arrives as an error event before the connection closes.
  let refusal: string | undefined;
  client.on("error", (err: Error) => (refusal ??= err.message));
  try {
    await client.connect();
    return await client.ping();
  } catch (err) {
    return refusal ?? (err instanceof Error ? err.message : String(err));
  } finally {
    client.disconnect();
  }
}

describe("Redis with requirepass and TLS", () => {
  it("refuses a client without the password, without TLS, or without a client certificate", async () => {
    const noPassword = redis.url.replace(`:${PASSWORD}@`, "");
    expect(await ping(noPassword, redisClientTls())).toMatch(/NOAUTH|Authentication required/i);
    expect(await ping(redis.url.replace(`:${PASSWORD}@`, ":wrong@"), redisClientTls())).toMatch(/WRONGPASS|invalid password/i);
    expect(await ping(redis.url.replace("rediss://", "redis://"))).not.toBe("PONG");
    expect(await ping(redis.url, { ca: files.caPem })).not.toBe("PONG");
    expect(await ping(redis.url, redisClientTls())).toBe("PONG");
  });
});

describe("an apiserver on the TLS store and the TLS revision stream", () => {
  it("serves a create, a read and a watch; the store published the revision to the stream", async () => {
    const ns = "default";
    const list = await admin.get(`/api/v1/namespaces/${ns}/configmaps`);
    expect(list.status).toBe(200);
    const rv = list.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const watch = admin.watch(`/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${rv}`);
    try {
      const created = await admin.post(`/api/v1/namespaces/${ns}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "over-tls" }, data: { k: "v" } });
      expect(created.status, created.text).toBe(201);
      const got = await admin.get(`/api/v1/namespaces/${ns}/configmaps/over-tls`);
      expect(got.json<{ data: Record<string, string> }>().data).toEqual({ k: "v" });
      const events = await watch.waitFor(1, 15_000);
      expect(events[0].type).toBe("ADDED");
      expect((events[0].object.metadata as { name: string }).name).toBe("over-tls");
      const createdRv = Number(created.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion);
      const reader = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1, tls: redisClientTls() });
      reader.on("error", () => undefined);
      try {
        await reader.connect();
        const last = await reader.xrevrange(STREAM, "+", "-", "COUNT", 1);
        expect(Number(last[0][0].split("-")[0])).toBeGreaterThanOrEqual(createdRv);
      } finally {
        reader.disconnect();
      }
    } finally {
      watch.stop();
    }
  });
});
