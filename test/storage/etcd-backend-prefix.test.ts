/**
 * `--etcd-prefix` on a real etcd (one member): a replica connected as the apiserver
 * process connects (openStore, no Redis: the etcd Watch feed) with the prefix
 * /tenant-a stores its objects under /tenant-a/<group key>/<plural>/<ns>/<name>, serves
 * them through HTTPS (get, list, watch), and never sees keys of another cluster that
 * uses the same etcd under the default /registry.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type StoreConnection } from "../../services/apiserver/server/store-connection.ts";
import { EtcdKv } from "../../services/apiserver/storage/etcd-kv.ts";
import { startEtcdCluster, type EtcdCluster } from "../support/etcd.ts";
import type { HttpsClient } from "../support/https-client.ts";
import { startInProcessReplica, type InProcessReplica } from "./etcd-backend-process.ts";

let dir: string | undefined;
let etcd: EtcdCluster | undefined;
let raw: EtcdKv | undefined;
let connection: StoreConnection | undefined;
let replica: InProcessReplica | undefined;
let admin: HttpsClient | undefined;

const cms = "/api/v1/namespaces/default/configmaps";
const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: name } });
type Obj = { metadata: { name: string; resourceVersion: string } };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "etcd-prefix-"));
  etcd = await startEtcdCluster(1);
  raw = new EtcdKv(etcd.endpoints);
  connection = await openStore({ dataDir: dir, endpoints: etcd.endpoints, storageBackend: "etcd3", etcdPrefix: "/tenant-a", stream: "revisions" });
  replica = await startInProcessReplica(connection.kv, connection.feed, dir);
  admin = replica.admin;
}, 60_000);

afterAll(async () => {
  await replica?.close();
  await connection?.close();
  await raw?.close();
  await etcd?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("--etcd-prefix on a real etcd", () => {
  it("stores under the prefix, serves get, list and watch from it, and ignores another cluster's /registry keys", async () => {
    const rv = (await admin!.get(cms)).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const w = admin!.watch(`${cms}?watch=1&resourceVersion=${rv}`);
    try {
      expect((await admin!.post(cms, cm("mine"))).status).toBe(201);
      const foreign = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "theirs", namespace: "default", uid: "u" } };
      await raw!.txn([], [{ type: "put", key: "/registry/core/configmaps/default/theirs", value: Buffer.from(JSON.stringify(foreign)) }], []);
      expect((await admin!.post(cms, cm("mine-too"))).status).toBe(201);

      expect((await raw!.range("/tenant-a/core/configmaps/default/mine")).kvs).toHaveLength(1);
      expect((await raw!.range("/registry/core/configmaps/default/mine")).kvs).toHaveLength(0);
      expect((await admin!.get(`${cms}/mine`)).status).toBe(200);
      expect((await admin!.get(`${cms}/theirs`)).status).toBe(404);
      const names = (await admin!.get(cms)).json<{ items: Obj[] }>().items.map((o) => o.metadata.name);
      expect(names).toEqual(["mine", "mine-too"]);
      const events = await w.waitFor(2, 10_000);
      await new Promise((r) => setTimeout(r, 200));
      expect(w.events.map((e) => `${e.type} ${(e.object as Obj).metadata.name}`)).toEqual(["ADDED mine", "ADDED mine-too"]);
      expect(events).toHaveLength(2);
    } finally {
      w.stop();
    }
  });
});
