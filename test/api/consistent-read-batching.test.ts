/**
 * Consistent ("most recent") reads share one revision read (issue 16), through HTTPS:
 * - 64 concurrent GETs make far fewer revision reads of the store than 64;
 * - a write acknowledged before a GET starts is always seen by that GET, on a replica
 *   whose watch cache lags the store while other GETs keep a revision read in flight
 *   (a GET that joined a read sent before the write would answer the old object).
 * The store is the in-process one behind a wrapper that counts revision reads and
 * answers every Range 40 ms late (the round trip of a store over the network; the read
 * itself is served when sent), and, for the lagging replica, delivers the revision
 * feed 120 ms late.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EtcdApi, EtcdCallOptions, UnaryName, UnaryRequest, UnaryResponse } from "../../shared/etcd/methods.ts";
import type { StreamEntry } from "../../shared/stream/revision-entry.ts";
import { EmbeddedKv, type InProcessStore } from "../../services/apiserver/storage/embedded-kv.ts";
import { memoryStore } from "../../services/store/embedded.ts";
import { startSecondReplica, startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import type { HttpsClient } from "../support/https-client.ts";

const RANGE_DELAY_MS = 40;
const FEED_DELAY_MS = 120;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Counter {
  revisionReads: number;
}

/** The store as seen over a slow network: Ranges answered late, revision reads counted. */
function slowStore(store: InProcessStore, counter: Counter, feedDelayMs: number): InProcessStore {
  const api: EtcdApi = {
    async unary<M extends UnaryName>(method: M, req: UnaryRequest<M>, opts?: EtcdCallOptions): Promise<UnaryResponse<M>> {
      const res = await store.api.unary(method, req, opts);
      if (method === "Range") {
        if ((req as UnaryRequest<"Range">).count_only === true) counter.revisionReads++;
        await sleep(RANGE_DELAY_MS);
      }
      return res;
    },
    stream: (method) => store.api.stream(method),
    close: () => undefined,
  };
  return {
    api,
    currentRevision: () => store.currentRevision(),
    onRevision: (listener: (entry: StreamEntry) => void) => store.onRevision((entry) => void setTimeout(() => listener(entry), feedDelayMs)),
  };
}

describe("consistent reads share one revision read", () => {
  const store = memoryStore();
  const fast: Counter = { revisionReads: 0 };
  const lagging: Counter = { revisionReads: 0 };
  // Revision reads shared as with a remote store (sent at the end of the turn), not the in-process default.
  const kv = new EmbeddedKv(slowStore(store, fast, 0), { revisionReads: {} });
  const laggingKv = new EmbeddedKv(slowStore(store, lagging, FEED_DELAY_MS), { revisionReads: {} });
  let api: TestApiserver;
  let second: { replica: { close(): Promise<void> }; admin: HttpsClient };

  beforeAll(async () => {
    api = await startTestApiserver({ kv, feed: kv.feed });
    second = await startSecondReplica(api, { kv: laggingKv, feed: laggingKv.feed });
    const ns = await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "reads" } });
    expect(ns.status).toBe(201);
  });

  afterAll(async () => {
    second?.admin.close();
    await second?.replica.close();
    await api?.close();
    await kv.close();
    await laggingKv.close();
    await store.close();
  });

  it("64 concurrent GETs make far fewer than 64 revision reads", async () => {
    const created = await api.admin.post("/api/v1/namespaces/reads/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "one" }, data: { a: "1" } });
    expect(created.status).toBe(201);
    const burst = () => Promise.all(Array.from({ length: 64 }, () => api.admin.get("/api/v1/namespaces/reads/configmaps/one")));
    await burst(); // opens the 64 TLS connections, so the measured GETs arrive together
    const before = fast.revisionReads;
    const answers = await burst();
    const reads = fast.revisionReads - before;
    expect(answers.map((a) => a.status)).toEqual(Array<number>(64).fill(200));
    expect(reads).toBeGreaterThanOrEqual(1);
    expect(reads).toBeLessThanOrEqual(16);
  });

  it("a write acknowledged before a GET starts is seen by it, while other GETs keep reads in flight", async () => {
    const path = "/api/v1/namespaces/reads/configmaps/seen";
    expect((await api.admin.post("/api/v1/namespaces/reads/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "seen" }, data: { v: "0" } })).status).toBe(201);
    let running = true;
    // Eight independent readers: a revision read of the lagging replica is nearly always in flight.
    const background = Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        await sleep(i * 3);
        while (running) await second.admin.get(path);
      }),
    );
    try {
      for (let i = 1; i <= 15; i++) {
        const put = await api.admin.patch(path, { data: { v: String(i) } }, "application/merge-patch+json");
        expect(put.status).toBe(200);
        const written = put.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
        const got = await second.admin.get(path);
        expect(got.status).toBe(200);
        const obj = got.json<{ data: { v: string }; metadata: { resourceVersion: string } }>();
        expect(obj.data.v).toBe(String(i));
        expect(obj.metadata.resourceVersion).toBe(written);
        await sleep(Math.floor(Math.random() * 4));
      }
    } finally {
      running = false;
      await background;
    }
    expect(lagging.revisionReads).toBeGreaterThan(0);
  });
});
