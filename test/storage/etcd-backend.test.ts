/**
 * The apiserver unchanged on a real etcd (Debian's etcd-server 3.4, one member):
 * the replica process runs with `--storage-backend etcd3 --etcd-servers` and no Redis
 * URL, so its revision feed is etcd's Watch (services/apiserver/storage/etcd-watch-feed.ts).
 * Through HTTPS: create, get, list, update conflict, delete, watch events in order,
 * consistent lists and bookmarks that advance past etcd revisions written outside the
 * registry prefix, and watches after etcd compacted its history. The objects are in
 * etcd under the store's keyspace layout (/registry/<group key>/<plural>/<ns>/<name>).
 * Garbage put under a key with etcdctl is a corrupt object (AllowUnsafeMalformedObjectDeletion
 * on): GET and LIST name the key, and the unsafe DELETE removes it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EtcdKv } from "../../services/apiserver/storage/etcd-kv.ts";
import { runClient } from "../support/clients.ts";
import { startEtcdCluster, type EtcdCluster } from "../support/etcd.ts";
import type { HttpsClient } from "../support/https-client.ts";
import { startReplicaProcess, type ReplicaProcess } from "./etcd-backend-process.ts";

let etcd: EtcdCluster | undefined;
let server: ReplicaProcess | undefined;
let admin: HttpsClient;
let kv: EtcdKv;

const NS = "etcd-backend";
const cms = `/api/v1/namespaces/${NS}/configmaps`;
const cm = (name: string, data: Record<string, string> = {}) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data });
type Obj = { metadata: { name: string; resourceVersion: string; uid?: string }; data?: Record<string, string> };
type List = { metadata: { resourceVersion: string }; items: Obj[] };

beforeAll(async () => {
  etcd = await startEtcdCluster(1);
  kv = new EtcdKv(etcd.endpoints);
  server = await startReplicaProcess([
    "--storage-backend",
    "etcd3",
    "--etcd-servers",
    etcd.endpoints.map((e) => `http://${e}`).join(","),
    "--feature-gates=AllowUnsafeMalformedObjectDeletion=true",
  ]);
  admin = server.admin;
  const ns = await admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
  expect(ns.status, ns.text).toBe(201);
}, 90_000);

afterAll(async () => {
  await server?.close();
  await kv?.close();
  await etcd?.stop();
});

/** Writes a key outside the registry prefix directly into etcd; returns its revision. */
async function foreignWrite(name: string): Promise<number> {
  const res = await kv.txn([], [{ type: "put", key: `/elsewhere/${name}`, value: Buffer.from("x") }], []);
  return res.revision;
}

describe("an apiserver with --storage-backend etcd3 on a real etcd", () => {
  it("creates, reads, lists, refuses a stale update, updates and deletes, with the objects in etcd's keyspace", async () => {
    const created = await admin.post(cms, cm("a", { v: "1" }));
    expect(created.status, created.text).toBe(201);
    const obj = created.json<Obj>();
    const stored = await kv.range(`/registry/core/configmaps/${NS}/a`);
    expect(stored.kvs).toHaveLength(1);
    expect(String(stored.kvs[0].modRevision)).toBe(obj.metadata.resourceVersion);

    const got = await admin.get(`${cms}/a`);
    expect(got.status).toBe(200);
    expect(got.json<Obj>().data).toEqual({ v: "1" });

    const updated = await admin.put(`${cms}/a`, { ...obj, data: { v: "2" } });
    expect(updated.status, updated.text).toBe(200);
    const stale = await admin.put(`${cms}/a`, { ...obj, data: { v: "3" } });
    expect(stale.status).toBe(409);
    expect(stale.json<{ reason: string }>().reason).toBe("Conflict");

    expect((await admin.post(cms, cm("b"))).status).toBe(201);
    const list = await admin.get(cms);
    expect(list.json<List>().items.map((o) => o.metadata.name)).toEqual(["a", "b"]);

    expect((await admin.delete(`${cms}/b`)).status).toBe(200);
    expect((await admin.get(`${cms}/b`)).status).toBe(404);
    expect((await kv.range(`/registry/core/configmaps/${NS}/b`)).kvs).toHaveLength(0);
  });

  it("watches from a list's resourceVersion: every change once, in order", async () => {
    const rv = (await admin.get(cms)).json<List>().metadata.resourceVersion;
    const w = admin.watch(`${cms}?watch=1&resourceVersion=${rv}`);
    try {
      for (let i = 0; i < 10; i++) expect((await admin.post(cms, cm(`w${i}`))).status).toBe(201);
      const first = (await admin.get(`${cms}/w0`)).json<Obj>();
      expect((await admin.put(`${cms}/w0`, { ...first, data: { changed: "yes" } })).status).toBe(200);
      expect((await admin.delete(`${cms}/w1`)).status).toBe(200);
      const events = await w.waitFor(12, 15_000);
      expect(events.map((e) => `${e.type} ${(e.object as Obj).metadata.name}`)).toEqual([
        ...Array.from({ length: 10 }, (_, i) => `ADDED w${i}`),
        "MODIFIED w0",
        "DELETED w1",
      ]);
      const rvs = events.map((e) => Number((e.object as Obj).metadata.resourceVersion));
      expect([...rvs].sort((a, b) => a - b)).toEqual(rvs);
      expect(new Set(rvs).size).toBe(rvs.length);
    } finally {
      w.stop();
    }
  });

  it("serves a consistent list and an initial-events bookmark at or past a revision written outside the registry prefix", async () => {
    const foreign = await foreignWrite("consistent");
    const started = Date.now();
    const list = await admin.get(cms);
    expect(list.status, list.text).toBe(200);
    expect(Number(list.json<List>().metadata.resourceVersion)).toBeGreaterThanOrEqual(foreign);
    expect(Date.now() - started).toBeLessThan(3000);

    const again = await foreignWrite("bookmark");
    const w = admin.watch(`${cms}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    try {
      const deadline = Date.now() + 10_000;
      while (!w.events.some((e) => e.type === "BOOKMARK") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const bookmark = w.events.find((e) => e.type === "BOOKMARK");
      expect(bookmark, JSON.stringify(w.events.slice(-3))).toBeDefined();
      expect(Number((bookmark?.object as Obj).metadata.resourceVersion)).toBeGreaterThanOrEqual(again);
    } finally {
      w.stop();
    }
  });

  it("keeps serving watches from its cache window after etcd compacts its history", async () => {
    const old = (await admin.get(cms)).json<List>().metadata.resourceVersion;
    expect((await admin.post(cms, cm("before-compaction"))).status).toBe(201);
    await kv.compact(await kv.currentRevision());
    const w = admin.watch(`${cms}?watch=1&resourceVersion=${old}`);
    try {
      expect((await admin.post(cms, cm("after-compaction"))).status).toBe(201);
      const seen = await w.waitFor(2, 10_000);
      expect(seen.map((e) => `${e.type} ${(e.object as Obj).metadata.name}`)).toEqual(["ADDED before-compaction", "ADDED after-compaction"]);
    } finally {
      w.stop();
    }
  });

  it("garbage written under a key with etcdctl: GET and LIST name the corrupt key; the unsafe delete removes it and a watch sees DELETED", async () => {
    const ns = "etcd-corrupt";
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const key = `/registry/core/configmaps/${ns}/broken`;
    expect((await admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } })).status).toBe(201);
    const fine = await admin.post(base, cm("fine"));
    expect(fine.status).toBe(201);
    const etcdctl = (args: string[]) => runClient("etcdctl", [`--endpoints=${etcd!.endpoints.join(",")}`, "--command-timeout=5s", ...args], { env: { ETCDCTL_API: "3" } });
    const put = await etcdctl(["put", key, "{not an object"]);
    expect(put.code, put.stderr).toBe(0);
    const corrupt = new RegExp(`corrupt object, Code: 7, Key: ${key},`);
    await expect.poll(async () => (await admin.get(`${base}/broken`)).text, { timeout: 10_000 }).toMatch(corrupt);
    const got = await admin.get(`${base}/broken`);
    expect(got.status).toBe(500);
    const list = await admin.get(base);
    expect(list.status).toBe(500);
    expect(list.text).toMatch(corrupt);
    const w = admin.watch(`${base}?watch=1&resourceVersion=${fine.json<Obj>().metadata.resourceVersion}`);
    try {
      const deleted = await admin.delete(`${base}/broken?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
      expect(deleted.status, deleted.text).toBe(200);
      await expect.poll(() => w.events.map((e) => `${e.type} ${(e.object as Obj).metadata.name}`), { timeout: 10_000 }).toContain("DELETED broken");
    } finally {
      w.stop();
    }
    const left = await etcdctl(["get", key]);
    expect(left.code, left.stderr).toBe(0);
    expect(left.stdout).toBe("");
    const after = await admin.get(base);
    expect(after.status).toBe(200);
    expect(after.json<List>().items.map((i) => i.metadata.name)).toEqual(["fine"]);
  });
});
