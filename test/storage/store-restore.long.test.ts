/**
 * Disaster recovery of the store, as docs/operations/store-backup-restore.md tells it,
 * with real processes: a 3-member store, Redis and an apiserver replica; ConfigMaps are
 * written, an etcdctl snapshot is saved, one more ConfigMap is written after it, and
 * then every member is lost (SIGKILL, data directories deleted). Three members are
 * restored from the one snapshot with `store restore`, the revision stream (ahead of the
 * snapshot) is deleted, the members start, and a new apiserver replica serves the
 * objects of the snapshot (no 500s), not the one written after it, and takes writes.
 * It starts two apiservers and six store members (about a minute on a loaded machine),
 * so it is a long test (`*.long.test.ts`, run by `npm run test:long`);
 * store-maintenance.test.ts restores a store cluster every run.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, stopChild, waitForMembers } from "../../services/store/server/node-process.ts";
import { HttpsClient } from "../support/https-client.ts";
import { freePort } from "../support/ports.ts";
import { startProcessCluster, type ProcessCluster } from "../support/process-cluster.ts";
import { etcdctlOk, storeRestore } from "./store-maintenance-support.ts";

const CM = "/api/v1/namespaces/default/configmaps";

function configMap(name: string) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { name } };
}

/** An apiserver replica over the cluster's store and Redis (the flags process-cluster.ts gives its replicas). */
async function startReplica(cluster: ProcessCluster): Promise<{ child: ChildProcess; client: HttpsClient; output: string[] }> {
  const port = await freePort();
  const output: string[] = [];
  const args = ["--data-dir", join(cluster.dir, "apiserver"), "--secure-port", String(port), "--profile", "plat", "--store-endpoints", cluster.storeEndpoints.join(","), "--redis-url", cluster.redis.url];
  const child = spawn(process.execPath, ["--import", "tsx", join(REPO_ROOT, "services", "apiserver", "main.ts"), ...args], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, LOG_LEVEL: "warn" },
  });
  child.stdout?.on("data", (d: Buffer) => output.push(d.toString()));
  child.stderr?.on("data", (d: Buffer) => output.push(d.toString()));
  const { pki } = cluster;
  const client = new HttpsClient(`https://127.0.0.1:${port}`, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`apiserver exited: ${output.join("").slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`apiserver not ready: ${output.join("").slice(-2000)}`);
    const ready = await client.get("/readyz").catch(() => undefined);
    if (ready?.status === 200) return { child, client, output };
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("store disaster recovery from one snapshot", () => {
  let cluster: ProcessCluster;
  let replica: { child: ChildProcess; client: HttpsClient } | undefined;
  beforeAll(async () => {
    cluster = await startProcessCluster({ stores: 3, replicas: 1 });
  }, 120_000);
  afterAll(async () => {
    replica?.client.close();
    if (replica !== undefined) await stopChild(replica.child);
    if (cluster !== undefined) await cluster.stop();
  });

  it("restores 3 members from one snapshot and an apiserver serves the snapshot's objects", async () => {
    const admin = cluster.admin(0);
    for (let i = 0; i < 10; i++) expect((await admin.post(CM, configMap(`before-${i}`))).status).toBe(201);
    const file = join(cluster.dir, "backup.db");
    await etcdctlOk([cluster.storeEndpoints[0]], ["snapshot", "save", file]);
    expect((await admin.post(CM, configMap("after-snapshot"))).status).toBe(201);
    admin.close();

    // The disaster: apiservers stopped, every member and its data lost.
    const old = cluster.replicas[0];
    if (old.child !== undefined) await stopChild(old.child);
    for (let i = 0; i < 3; i++) await cluster.stopStore(i, "SIGKILL");
    await Promise.all(cluster.stores.map((s) => rm(s.dataDir, { recursive: true, force: true })));

    const initialCluster = cluster.stores.map((s) => `${s.name}=http://127.0.0.1:${s.peerPort}`).join(",");
    for (const s of cluster.stores) {
      s.dataDir = join(cluster.dir, `restored-${s.name}`);
      const r = await storeRestore([`--snapshot=${file}`, `--data-dir=${s.dataDir}`, `--name=${s.name}`, `--initial-cluster=${initialCluster}`, "--initial-cluster-token=store-cluster"]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/restored snapshot .* revision \d+, \d+ keys, member [0-9a-f]+ of 3/);
    }
    // A restored member refuses a directory that is not empty.
    const again = await storeRestore([`--snapshot=${file}`, `--data-dir=${cluster.stores[0].dataDir}`, `--name=${cluster.stores[0].name}`, `--initial-cluster=${initialCluster}`]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("exists and is not empty");

    // The revision stream describes revisions after the snapshot that the restored store will reuse.
    const redis = new Redis(cluster.redis.url);
    await redis.del("revisions");
    redis.disconnect();
    await Promise.all(cluster.stores.map((_, i) => cluster.startStore(i)));
    await waitForMembers(cluster.storeEndpoints[0], 3);

    replica = await startReplica(cluster);
    const client = replica.client;
    for (let i = 0; i < 10; i++) {
      const res = await client.get(`${CM}/before-${i}`);
      expect(res.status, res.text).toBe(200);
      expect(res.json<{ data: { name: string } }>().data.name).toBe(`before-${i}`);
    }
    expect((await client.get(`${CM}/after-snapshot`)).status).toBe(404);
    const list = await client.get(CM);
    expect(list.status).toBe(200);
    expect(list.json<{ items: { metadata: { name: string } }[] }>().items.map((i) => i.metadata.name).filter((n) => n.startsWith("before-"))).toHaveLength(10);
    expect((await client.post(CM, configMap("after-restore"))).status).toBe(201);
    expect((await client.get(`${CM}/after-restore`)).status).toBe(200);
  }, 120_000);
});
