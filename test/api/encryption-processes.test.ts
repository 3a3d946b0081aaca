/**
 * Encryption at rest across real processes: a store node process (snapshots every 20
 * entries), redis-server and two apiserver replicas with an encryption configuration:
 * in-process replicas over the store's gRPC API and the Redis stream by default, and
 * replica processes started with --encryption-provider-config under LONG=1 (each
 * process start costs tens of seconds on this machine). The proof: a Secret's plaintext is found in none of
 * the store's files (log and snapshots) nor in the Redis revision stream, and both
 * replicas read it back. Then a key rotation without downtime, one replica restarted
 * at a time: add the new key second, make it first, rewrite every Secret (a no-op
 * update each), remove the old key; the Secrets still read back from both replicas and
 * the store holds only values under the new key.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinKinds } from "../../shared/api/groups/index.ts";
import { ensurePki, type Pki } from "../../services/apiserver/server/certs.ts";
import { startReplica, type Replica } from "../../services/apiserver/server/replica.ts";
import { openStore, type StoreConnection } from "../../services/apiserver/server/store-connection.ts";
import { EtcdKv } from "../../services/apiserver/storage/etcd-kv.ts";
import { encryptionConfigYaml, keyedProvider } from "../../services/apiserver/storage/encryption/testing/config-yaml.ts";
import { REPO_ROOT, spawnStoreNode, stopChild, waitForStore } from "../../services/store/server/node-process.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { HttpsClient } from "../support/https-client.ts";
import { freePort } from "../support/ports.ts";
import { startRedis, type RedisServer } from "../support/redis.ts";

const profile = getProfile("kubernetes");
const KEY1 = Buffer.alloc(32, 11).toString("base64");
const KEY2 = Buffer.alloc(32, 22).toString("base64");
const PLAINTEXTS = ["first-plaintext-9a8b7c", "second-plaintext-6d5e4f"];
const SECRETS = "/api/v1/namespaces/default/secrets";
const LONG = process.env.LONG === "1";

let dir: string;
let pki: Pki;
let redis: RedisServer;
let store: ChildProcess | undefined;
let storeDir: string;
let storeEndpoint: string;
let configFile: string;
const replicas: Array<{ port: number; child?: ChildProcess; output: string[]; inProcess?: { replica: Replica; connection: StoreConnection } }> = [];

function encryptionConfig(keys: Array<[string, string]>): string {
  return encryptionConfigYaml(profile, [{ resources: ["secrets"], providers: [keyedProvider("secretbox", keys)] }]);
}

function client(i: number): HttpsClient {
  return new HttpsClient(`https://127.0.0.1:${replicas[i].port}`, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
}

/** An in-process replica with its own store connection, as a replica process has. */
async function startInProcess(i: number): Promise<void> {
  const connection = await openStore({ dataDir: dir, endpoints: [storeEndpoint], redisUrl: redis.url, stream: "revisions" });
  const replica = await startReplica({
    profile,
    kinds: builtinKinds(profile),
    kv: connection.kv,
    feed: connection.feed,
    tls: { key: pki.serving.keyPem, cert: pki.serving.certPem, clientCa: pki.ca.certPem },
    port: replicas[i].port,
    compactIntervalMs: 0,
    encryption: { configFile, automaticReload: false },
  });
  replicas[i].inProcess = { replica, connection };
}

async function startReplicaProcess(i: number): Promise<void> {
  if (!LONG) return startInProcess(i);
  const r = replicas[i];
  r.output.length = 0;
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(REPO_ROOT, "services", "apiserver", "main.ts"), "--data-dir", join(dir, "apiserver"), "--secure-port", String(r.port), "--profile", profile.id, "--store-endpoints", storeEndpoint, "--redis-url", redis.url, "--encryption-provider-config", configFile],
    { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LOG_LEVEL: "warn" } },
  );
  child.stdout?.on("data", (d: Buffer) => r.output.push(d.toString()));
  child.stderr?.on("data", (d: Buffer) => r.output.push(d.toString()));
  r.child = child;
  const c = client(i);
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`replica ${i} exited: ${r.output.join("").slice(-1500)}`);
      const ok = await c.get("/readyz").then((x) => x.status === 200, () => false);
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`replica ${i} not ready: ${r.output.join("").slice(-1500)}`);
      await new Promise((res) => setTimeout(res, 200));
    }
  } finally {
    c.close();
  }
}

async function stopReplica(i: number): Promise<void> {
  const running = replicas[i].inProcess;
  replicas[i].inProcess = undefined;
  if (running) {
    await running.replica.close();
    await running.connection.close();
  }
  const child = replicas[i].child;
  replicas[i].child = undefined;
  if (child && child.exitCode === null) await stopChild(child, 3000);
}

/** Restarts the replicas one at a time, checking that the other serves meanwhile. */
async function rollingRestart(): Promise<void> {
  for (let i = 0; i < replicas.length; i++) {
    await stopReplica(i);
    const other = client((i + 1) % replicas.length);
    expect((await other.get(SECRETS)).status).toBe(200);
    other.close();
    await startReplicaProcess(i);
  }
}

/** Every file of the store's data directory, concatenated (log segments, snapshots, metadata). */
async function storeBytes(): Promise<Buffer> {
  const parts: Buffer[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const name of await readdir(d)) {
      const p = join(d, name);
      if ((await stat(p)).isDirectory()) await walk(p);
      else parts.push(await readFile(p));
    }
  };
  await walk(storeDir);
  return Buffer.concat(parts);
}

async function streamBytes(): Promise<Buffer> {
  const r = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  r.on("error", () => {});
  try {
    await r.connect();
    const entries = await r.xrangeBuffer("revisions", "-", "+");
    return Buffer.concat(entries.flatMap(([id, fields]) => [id, ...fields]));
  } finally {
    r.disconnect();
  }
}

async function readBack(i: number, name: string): Promise<string> {
  const c = client(i);
  try {
    const r = await c.get(`${SECRETS}/${name}`);
    expect(r.status, r.text).toBe(200);
    return Buffer.from(r.json<{ data: { value: string } }>().data.value, "base64").toString();
  } finally {
    c.close();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "encryption-processes-"));
  pki = await ensurePki(join(dir, "apiserver"), { profile });
  redis = await startRedis();
  configFile = join(dir, "encryption.yaml");
  await writeFile(configFile, encryptionConfig([["key1", KEY1]]));
  const clientPort = await freePort();
  const peerPort = await freePort();
  storeDir = join(dir, "store");
  storeEndpoint = `127.0.0.1:${clientPort}`;
  store = spawnStoreNode({ name: "s0", clientPort, peerPort, dataDir: storeDir, initialCluster: `s0=http://127.0.0.1:${peerPort}`, redisUrl: redis.url, extraArgs: ["--snapshot-count=20"] }, { stdio: "ignore" });
  await waitForStore(storeEndpoint, 30_000, store);
  for (let i = 0; i < 2; i++) replicas.push({ port: await freePort(), output: [] });
  await Promise.all(replicas.map((_, i) => startReplicaProcess(i)));
}, 120_000);

afterAll(async () => {
  for (let i = 0; i < replicas.length; i++) await stopReplica(i);
  if (store && store.exitCode === null) await stopChild(store);
  await redis?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("encryption at rest across processes", () => {
  it("keeps a Secret's plaintext out of the store's log and snapshots and the Redis stream; both replicas read it", async () => {
    const c = client(0);
    try {
      for (let i = 0; i < PLAINTEXTS.length; i++) {
        const r = await c.post(SECRETS, { apiVersion: "v1", kind: "Secret", metadata: { name: `s${i}` }, stringData: { value: PLAINTEXTS[i] } });
        expect(r.status, r.text).toBe(201);
      }
      // enough writes for the store to take a snapshot after the Secrets
      for (let i = 0; i < 25; i++) expect((await c.post("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `fill-${i}` } })).status).toBe(201);
    } finally {
      c.close();
    }
    const files = await readdir(storeDir, { recursive: true });
    expect(files.some((f) => /snap/i.test(String(f)))).toBe(true);
    const disk = await storeBytes();
    const stream = await streamBytes();
    expect(disk.includes(Buffer.from("k8s:enc:secretbox:v1:key1:"))).toBe(true);
    expect(stream.includes(Buffer.from("k8s:enc:secretbox:v1:key1:"))).toBe(true);
    for (const p of PLAINTEXTS) {
      for (const form of [p, Buffer.from(p).toString("base64")]) {
        expect(disk.includes(Buffer.from(form)), `store files hold ${form}`).toBe(false);
        expect(stream.includes(Buffer.from(form)), `stream holds ${form}`).toBe(false);
      }
    }
    for (const i of [0, 1]) expect(await readBack(i, "s0")).toBe(PLAINTEXTS[0]);
  });

  it("rotates the key with rolling restarts: add it, make it first, rewrite every Secret, remove the old one", async () => {
    await writeFile(configFile, encryptionConfig([["key1", KEY1], ["key2", KEY2]]));
    await rollingRestart();
    await writeFile(configFile, encryptionConfig([["key2", KEY2], ["key1", KEY1]]));
    await rollingRestart();
    const c = client(0);
    try {
      const list = await c.get(SECRETS);
      for (const item of list.json<{ items: Array<Record<string, unknown>> }>().items) {
        const name = (item.metadata as { name: string }).name;
        const put = await c.put(`${SECRETS}/${name}`, { apiVersion: "v1", kind: "Secret", ...item });
        expect(put.status, put.text).toBe(200);
      }
    } finally {
      c.close();
    }
    const raw = new EtcdKv([storeEndpoint]);
    try {
      const stored = await raw.range("/registry/core/secrets/", { end: "/registry/core/secrets0" });
      expect(stored.kvs.length).toBeGreaterThanOrEqual(PLAINTEXTS.length);
      for (const kv of stored.kvs) expect(Buffer.from(kv.value).toString("latin1").startsWith("k8s:enc:secretbox:v1:key2:"), kv.key).toBe(true);
    } finally {
      await raw.close();
    }
    await writeFile(configFile, encryptionConfig([["key2", KEY2]]));
    await rollingRestart();
    for (const i of [0, 1]) for (let s = 0; s < PLAINTEXTS.length; s++) expect(await readBack(i, `s${s}`)).toBe(PLAINTEXTS[s]);
    const c1 = client(1);
    try {
      expect((await c1.get(SECRETS)).status).toBe(200);
    } finally {
      c1.close();
    }
  }, 300_000);
});
