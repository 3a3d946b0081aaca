/**
 * Updates through HTTPS read the object from the watch cache (the suggestion of a
 * GuaranteedUpdate, as the platform's cacher passes its cached object): a replica over
 * an in-process store whose reads of single keys are counted answers 10 PUTs of a
 * ConfigMap, each after the cache has its previous version, without reading that key
 * from the store, and still refuses a PUT with an old resourceVersion (409).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { builtinKinds } from "../../shared/api/groups/index.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { ensurePki } from "../../services/apiserver/server/certs.ts";
import { startReplica, type Replica } from "../../services/apiserver/server/replica.ts";
import { EmbeddedKv } from "../../services/apiserver/storage/embedded-kv.ts";
import type { Compare, KvStore, RangeOptions, RangeResult, RevisionChange, TxnOp, TxnResult } from "../../services/apiserver/storage/kv.ts";
import { memoryStore } from "../../services/store/embedded.ts";
import { HttpsClient } from "../support/https-client.ts";

/** The store client, with the single-key reads of each key counted. */
class KeyReadCounter implements KvStore {
  readonly reads = new Map<string, number>();
  constructor(private readonly inner: KvStore) {}
  range(key: string, options?: RangeOptions): Promise<RangeResult> {
    if (options?.end === undefined && !options?.countOnly) this.reads.set(key, (this.reads.get(key) ?? 0) + 1);
    return this.inner.range(key, options);
  }
  txn(compares: Compare[], success: TxnOp[], failure: TxnOp[]): Promise<TxnResult> {
    return this.inner.txn(compares, success, failure);
  }
  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }
  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }
  leaseGrant(ttlSeconds: number): Promise<number> {
    return this.inner.leaseGrant(ttlSeconds);
  }
  history(after: number, upTo: number): Promise<RevisionChange[]> {
    return this.inner.history(after, upTo);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  readsOf(suffix: string): number {
    let n = 0;
    for (const [key, count] of this.reads) if (key.endsWith(suffix)) n += count;
    return n;
  }
}

let dir = "";
let embedded: EmbeddedKv | undefined;
let replica: Replica | undefined;
let admin: HttpsClient;
let kv: KeyReadCounter;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "update-from-cache-"));
  const profile = getProfile("plat");
  const pki = await ensurePki(dir, { profile });
  embedded = new EmbeddedKv(memoryStore(), { closeStore: true });
  kv = new KeyReadCounter(embedded);
  replica = await startReplica({
    profile,
    kinds: builtinKinds(profile),
    kv,
    feed: embedded.feed,
    tls: { key: pki.serving.keyPem, cert: pki.serving.certPem, clientCa: pki.ca.certPem },
    compactIntervalMs: 0,
  });
  admin = new HttpsClient(replica.url, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
});

afterAll(async () => {
  admin?.close();
  await replica?.close();
  await embedded?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const path = "/api/v1/namespaces/default/configmaps/from-cache";
type ConfigMap = { metadata: { resourceVersion: string }; data: Record<string, string> };

it("updates from the watch cache's copy without reading the key from the store, and still detects a stale resourceVersion", async () => {
  const created = await admin.post("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "from-cache" }, data: { n: "0" } });
  expect(created.status, created.text).toBe(201);
  const first = created.json<ConfigMap>();
  let latest = first;
  const before = kv.readsOf("/configmaps/default/from-cache");
  for (let i = 1; i <= 10; i++) {
    // A consistent GET: the cache then holds the version the PUT is based on.
    expect((await admin.get(path)).json<ConfigMap>().metadata.resourceVersion).toBe(latest.metadata.resourceVersion);
    const put = await admin.put(path, { ...latest, apiVersion: "v1", kind: "ConfigMap", data: { n: String(i) } });
    expect(put.status, put.text).toBe(200);
    latest = put.json<ConfigMap>();
  }
  expect(latest.data).toEqual({ n: "10" });
  expect(kv.readsOf("/configmaps/default/from-cache") - before).toBe(0);
  const stale = await admin.put(path, { ...first, apiVersion: "v1", kind: "ConfigMap", data: { n: "stale" } });
  expect(stale.status, stale.text).toBe(409);
  expect((await admin.get(path)).json<ConfigMap>().data).toEqual({ n: "10" });
});
