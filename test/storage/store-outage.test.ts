/**
 * A replica whose store stops answering, through HTTPS: a store process (one member,
 * publishing to a real Redis) under an in-process replica whose store client gives up
 * after 1.5 s (call deadline 1 s, retry budget 1.5 s), well inside the request
 * timeout (one minute).
 *
 * - A stopped store (SIGSTOP: connections stay open, nothing answers) gives what the
 *   platform answers when etcd does not respond in time: 504 Timeout "request did not
 *   complete within requested timeout - context deadline exceeded", for reads and writes.
 * - A killed store (connections refused) gives the platform's answer for an unreachable
 *   store: 500 ServerTimeout naming the operation, with Retry-After 2.
 * - Once the store answers again (SIGCONT, or a restart from its data directory) the
 *   replica serves reads and writes again, nothing acknowledged was lost, and a watch
 *   opened before the store died sees the writes made after its restart, once each.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinKinds } from "../../shared/api/groups/index.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { ensurePki } from "../../services/apiserver/server/certs.ts";
import { startReplica, type Replica } from "../../services/apiserver/server/replica.ts";
import { EtcdKv } from "../../services/apiserver/storage/etcd-kv.ts";
import { RedisFeed } from "../../services/apiserver/storage/redis-feed.ts";
import { spawnStoreNode, stopChild, waitForStore, type StoreNodeSpec } from "../../services/store/server/node-process.ts";
import { HttpsClient, type HttpResponse } from "../support/https-client.ts";
import { freePort } from "../support/ports.ts";
import { startRedis, type RedisServer } from "../support/redis.ts";

const CALL_TIMEOUT_MS = 1000;
const RETRY_BUDGET_MS = 1500;
/** The store client's budget plus slack for a loaded machine: far below the one-minute request timeout. */
const ANSWER_WITHIN_MS = RETRY_BUDGET_MS + 5000;
const cms = "/api/v1/namespaces/default/configmaps";
const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: name } });

interface Status {
  kind: string;
  status: string;
  code: number;
  reason: string;
  message: string;
  details?: { name?: string; kind?: string; retryAfterSeconds?: number };
}

let dir = "";
let redis: RedisServer | undefined;
let spec: StoreNodeSpec;
let store: ChildProcess | undefined;
let kv: EtcdKv | undefined;
let reader: RedisFeed | undefined;
let replica: Replica | undefined;
let admin: HttpsClient;

async function startStore(): Promise<void> {
  store = spawnStoreNode(spec, { stdio: ["ignore", "ignore", "inherit"] });
  await waitForStore(`127.0.0.1:${spec.clientPort}`, 60_000, store);
}

/** The answer and how long it took. */
async function timed(call: () => Promise<HttpResponse>): Promise<{ res: HttpResponse; ms: number }> {
  const start = Date.now();
  const res = await call();
  return { res, ms: Date.now() - start };
}

/** Polls until `call` answers `status` (the replica serving again). */
async function eventually(call: () => Promise<HttpResponse>, status: number, timeoutMs = 20_000): Promise<HttpResponse> {
  const deadline = Date.now() + timeoutMs;
  let last: HttpResponse | undefined;
  while (Date.now() < deadline) {
    last = await call();
    if (last.status === status) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no ${status} within ${timeoutMs} ms; last answer ${last?.status}: ${last?.text}`);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "store-outage-"));
  redis = await startRedis();
  const [clientPort, peerPort] = await Promise.all([freePort(), freePort()]);
  spec = {
    name: "s0",
    clientPort,
    peerPort,
    dataDir: join(dir, "s0"),
    initialCluster: `s0=http://127.0.0.1:${peerPort}`,
    redisUrl: redis.url,
    revisionStream: "revisions",
    electionTimeoutMs: 500,
    heartbeatIntervalMs: 50,
  };
  await startStore();
  kv = new EtcdKv([`127.0.0.1:${clientPort}`], { callTimeoutMs: CALL_TIMEOUT_MS, retryBudgetMs: RETRY_BUDGET_MS });
  reader = new RedisFeed(kv, { url: redis.url, stream: "revisions" });
  await reader.start();
  const profile = getProfile("plat");
  const pki = await ensurePki(dir, { profile });
  replica = await startReplica({
    profile,
    kinds: builtinKinds(profile),
    kv,
    feed: reader.feed,
    tls: { key: pki.serving.keyPem, cert: pki.serving.certPem, clientCa: pki.ca.certPem },
    compactIntervalMs: 0,
  });
  admin = new HttpsClient(replica.url, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
}, 90_000);

afterAll(async () => {
  admin?.close();
  store?.kill("SIGCONT");
  await replica?.close();
  await reader?.stop();
  await kv?.close();
  if (store) await stopChild(store, 2000);
  await redis?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("a replica whose store stops answering", () => {
  it("answers 504 Timeout while the store is stopped, within the store client's deadline, and serves again once it continues", async () => {
    expect((await admin.post(cms, cm("before-stop"))).status).toBe(201);
    store?.kill("SIGSTOP");
    try {
      for (const call of [() => admin.get(`${cms}/before-stop`), () => admin.get(cms), () => admin.post(cms, cm("while-stopped"))]) {
        const { res, ms } = await timed(call);
        expect(res.status, res.text).toBe(504);
        expect(res.json<Status>()).toMatchObject({
          kind: "Status",
          status: "Failure",
          code: 504,
          reason: "Timeout",
          message: "Timeout: request did not complete within requested timeout - context deadline exceeded",
        });
        expect(ms).toBeLessThan(ANSWER_WITHIN_MS);
      }
    } finally {
      store?.kill("SIGCONT");
    }
    const got = await eventually(() => admin.get(`${cms}/before-stop`), 200);
    expect(got.json<{ data: { k: string } }>().data.k).toBe("before-stop");
    expect((await admin.post(cms, cm("after-continue"))).status).toBe(201);
    expect((await admin.get(`${cms}/after-continue`)).status).toBe(200);
  }, 60_000);

  it("answers 500 ServerTimeout with Retry-After while the store is down, and serves again after it restarts", async () => {
    const beforeKill = await admin.post(cms, cm("before-kill"));
    expect(beforeKill.status).toBe(201);
    const from = beforeKill.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const watch = admin.watch(`${cms}?watch=1&resourceVersion=${from}`);
    if (store) await stopChild(store, 0);
    const cases: Array<[string, () => Promise<HttpResponse>]> = [
      ["get", () => admin.get(`${cms}/before-kill`)],
      ["list", () => admin.get(cms)],
      ["create", () => admin.post(cms, cm("while-down"))],
    ];
    for (const [operation, call] of cases) {
      const { res, ms } = await timed(call);
      expect(res.status, `${operation}: ${res.text}`).toBe(500);
      expect(res.headers["retry-after"]).toBe("2");
      expect(res.json<Status>()).toMatchObject({
        kind: "Status",
        status: "Failure",
        code: 500,
        reason: "ServerTimeout",
        message: `The ${operation} operation against configmaps could not be completed at this time, please try again.`,
        details: { name: operation, kind: "configmaps", retryAfterSeconds: 2 },
      });
      expect(ms).toBeLessThan(ANSWER_WITHIN_MS);
    }
    await startStore();
    const got = await eventually(() => admin.get(`${cms}/before-kill`), 200);
    expect(got.json<{ data: { k: string } }>().data.k).toBe("before-kill");
    expect((await admin.get(`${cms}/before-stop`)).status).toBe(200);
    expect((await admin.post(cms, cm("after-restart"))).status).toBe(201);
    const [added] = await watch.waitFor(1, 15_000);
    watch.stop();
    expect(watch.status).toBe(200);
    const seen = watch.events.filter((e) => e.type !== "BOOKMARK").map((e) => `${e.type}:${(e.object.metadata as { name: string }).name}`);
    expect(added, "the watch opened before the store died saw nothing after its restart").toBeDefined();
    expect(seen).toEqual(["ADDED:after-restart"]);
  }, 90_000);
});
