/**
 * Migration between our store and a real etcd with the key-by-key copy tool
 * (services/store/copy/main.ts, run as a process): objects created through a replica
 * on a store node process are copied to a real etcd 3.4 member and served from there
 * by a replica on etcd (same data and uids, new resourceVersions); an object created
 * on etcd and everything else is copied back into a fresh store node and served by a
 * replica on it. A copy into a destination that already holds keys is refused.
 * Between two store nodes that run mTLS on their client ports, the copy takes each
 * side's CA, certificate and key (--from-cacert/--from-cert/--from-key, --to-*), and a
 * client certificate of a foreign CA is refused by the destination.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EtcdClient } from "../../shared/etcd/client.ts";
import { grpcChannelCredentials } from "../../shared/tls/grpc-credentials.ts";
import { EtcdKv } from "../../services/apiserver/storage/etcd-kv.ts";
import { EndpointPool, grpcMembers } from "../../services/apiserver/storage/etcd-kv-pool.ts";
import { EtcdWatchFeed } from "../../services/apiserver/storage/etcd-watch-feed.ts";
import { copyKeyspace } from "../../services/store/copy/copy-keyspace.ts";
import { sideClient } from "../../services/store/copy/endpoint-client.ts";
import { REPO_ROOT, spawnStoreNode, stopChild, waitForStore, type StoreNodeTls } from "../../services/store/server/node-process.ts";
import { startEtcdCluster, type EtcdCluster } from "../support/etcd.ts";
import type { HttpsClient } from "../support/https-client.ts";
import { freePort } from "../support/ports.ts";
import { writeTlsFiles } from "../support/tls-files.ts";
import { startInProcessReplica } from "./etcd-backend-process.ts";

let dir: string;
let etcd: EtcdCluster | undefined;
const stores: ChildProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "store-copy-"));
  etcd = await startEtcdCluster(1);
}, 60_000);

afterAll(async () => {
  await Promise.all(stores.map((s) => stopChild(s, 2000)));
  await etcd?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A fresh one-member store node process (mTLS on both ports with `tls`); its client endpoint. */
async function startStoreNode(name: string, tls?: StoreNodeTls): Promise<string> {
  const [clientPort, peerPort] = await Promise.all([freePort(), freePort()]);
  const scheme = tls === undefined ? "http" : "https";
  const child = spawnStoreNode(
    { name, clientPort, peerPort, dataDir: join(dir, name), initialCluster: `${name}=${scheme}://127.0.0.1:${peerPort}`, electionTimeoutMs: 500, heartbeatIntervalMs: 50, tls },
    { stdio: "ignore" },
  );
  stores.push(child);
  const endpoint = `127.0.0.1:${clientPort}`;
  const client = grpcChannelCredentials(tls === undefined ? {} : { caFile: tls.caFile, certFile: tls.certFile, keyFile: tls.keyFile });
  try {
    await waitForStore(endpoint, 30_000, child, client.credentials);
  } finally {
    client.close();
  }
  return endpoint;
}

/** An in-process replica on the store at `endpoint` (no Redis: the store's Watch is its feed), until `use` returns. */
async function withReplica<T>(endpoint: string, use: (admin: HttpsClient) => Promise<T>): Promise<T> {
  const kv = new EtcdKv([endpoint]);
  const pool = new EndpointPool(grpcMembers([endpoint]));
  const feed = new EtcdWatchFeed(kv, pool);
  await feed.start();
  const replica = await startInProcessReplica(kv, feed.feed, join(dir, "pki"));
  try {
    return await use(replica.admin);
  } finally {
    await replica.close();
    feed.stop();
    pool.close();
    await kv.close();
  }
}

function runCopy(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(REPO_ROOT, "services", "store", "copy", "main.ts"), ...args], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

const NS = "migrated";
const cms = `/api/v1/namespaces/${NS}/configmaps`;
type Obj = { metadata: { name: string; uid: string; resourceVersion: string }; data?: Record<string, string> };

/** name -> uid and data of every ConfigMap of the namespace, and the Secret's data. */
async function snapshot(admin: HttpsClient) {
  const list = await admin.get(cms);
  expect(list.status, list.text).toBe(200);
  const items = list.json<{ items: Obj[] }>().items;
  const secret = await admin.get(`/api/v1/namespaces/${NS}/secrets/token`);
  expect(secret.status, secret.text).toBe(200);
  return {
    configMaps: Object.fromEntries(items.map((o) => [o.metadata.name, { uid: o.metadata.uid, data: o.data }])),
    secret: secret.json<{ data: Record<string, string> }>().data,
  };
}

describe("store-copy between our store and a real etcd", () => {
  it("copies a keyspace from the store to etcd and back, each served by a replica with the same objects", async () => {
    const store = await startStoreNode("source");
    const before = await withReplica(store, async (admin) => {
      expect((await admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } })).status).toBe(201);
      for (let i = 0; i < 5; i++) expect((await admin.post(cms, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `c${i}` }, data: { i: String(i) } })).status).toBe(201);
      const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "token" }, data: { t: Buffer.from("s3cret").toString("base64") } };
      expect((await admin.post(`/api/v1/namespaces/${NS}/secrets`, secret)).status).toBe(201);
      return snapshot(admin);
    });

    const toEtcd = await runCopy(["--from", `http://${store}`, "--to", `http://${etcd!.endpoints[0]}`]);
    expect(toEtcd.code, toEtcd.stderr).toBe(0);
    expect(toEtcd.stdout).toMatch(/^copied \d+ keys .*revisions are renumbered/);

    const onEtcd = await withReplica(etcd!.endpoints[0], async (admin) => {
      const seen = await snapshot(admin);
      expect((await admin.post(cms, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "made-on-etcd" }, data: { on: "etcd" } })).status).toBe(201);
      return { seen, after: await snapshot(admin) };
    });
    expect(onEtcd.seen).toEqual(before);

    const [source, destination] = [new EtcdClient(store), new EtcdClient(etcd!.endpoints[0])];
    try {
      await expect(copyKeyspace(source, destination)).rejects.toThrow(/the destination holds \d+ key\(s\) in the range to copy/);
    } finally {
      source.close();
      destination.close();
    }

    const fresh = await startStoreNode("back");
    const back = await runCopy(["--from", `http://${etcd!.endpoints[0]}`, "--to", `http://${fresh}`, "--batch-size", "7"]);
    expect(back.code, back.stderr).toBe(0);
    const onStore = await withReplica(fresh, snapshot);
    expect(onStore).toEqual(onEtcd.after);
    expect(Object.keys(onStore.configMaps)).toContain("made-on-etcd");
  });
});

describe("store-copy between members that run mTLS", () => {
  it("copies with each side's CA, certificate and key; a foreign client certificate is refused", async () => {
    const pki = await writeTlsFiles(await mkdtemp(join(dir, "pki-")));
    const tls: StoreNodeTls = { caFile: pki.caFile, certFile: pki.member.certFile, keyFile: pki.member.keyFile };
    const [source, destination] = await Promise.all([startStoreNode("tls-source", tls), startStoreNode("tls-destination", tls)]);
    const clientFlags = (side: "from" | "to", pair: { certFile: string; keyFile: string }) => [`--${side}-cacert`, pki.caFile, `--${side}-cert`, pair.certFile, `--${side}-key`, pair.keyFile];

    const writer = sideClient({ from: [`https://${source}`], "from-cacert": pki.caFile, "from-cert": pki.client.certFile, "from-key": pki.client.keyFile }, "from");
    try {
      for (let i = 0; i < 12; i++) await writer.client.unary("Put", { key: Buffer.from(`/registry/k${i}`), value: Buffer.from(`v${i}`) });
      expect(writer.secure).toBe(true);
    } finally {
      writer.close();
    }

    // The destination refuses a client certificate of another CA: the copy fails at its first call, naming the step.
    const foreign = sideClient({ to: [`https://${destination}`], "to-cacert": pki.caFile, "to-cert": pki.foreignClient.certFile, "to-key": pki.foreignClient.keyFile }, "to");
    const tlsSource = sideClient({ from: [`https://${source}`], "from-cacert": pki.caFile, "from-cert": pki.client.certFile, "from-key": pki.client.keyFile }, "from");
    try {
      await expect(copyKeyspace(tlsSource.client, foreign.client)).rejects.toThrow(/^counting the destination's keys: /);
    } finally {
      foreign.close();
      tlsSource.close();
    }

    const copied = await runCopy(["--from", `https://${source}`, "--to", `https://${destination}`, ...clientFlags("from", pki.client), ...clientFlags("to", pki.client), "--prefix", "/registry/"]);
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stdout).toMatch(/^copied 12 keys /);

    const reader = sideClient({ to: [`https://${destination}`], "to-cacert": pki.caFile, "to-cert": pki.client.certFile, "to-key": pki.client.keyFile }, "to");
    try {
      const all = await reader.client.unary("Range", { key: Buffer.from("/registry/"), range_end: Buffer.from("/registry0") });
      expect(Object.fromEntries(all.kvs.map((kv) => [Buffer.from(kv.key).toString(), Buffer.from(kv.value).toString()]))).toEqual(
        Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`/registry/k${i}`, `v${i}`])),
      );
    } finally {
      reader.close();
    }
  }, 60_000);
});
