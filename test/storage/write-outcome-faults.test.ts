/**
 * Unambiguous write answers under a store leader kill (storage/write-outcome.ts): a
 * real 3-member store cluster (test/chaos/store-cluster.ts), an apiserver replica over
 * it through the store's gRPC API and the Redis revision stream, and concurrent
 * writers creating ConfigMaps over HTTPS while the store leader is killed (SIGKILL).
 * Every answer is a success whose object exists, or a definite retriable failure
 * (the platform's 500 ServerTimeout with retryAfterSeconds, or 504 Timeout) whose
 * object does not; never an InternalError; and a client that retries a failed create
 * gets 201, never 409. (Without the resolution, the creates in flight at the kill were
 * answered 500 ServerTimeout although committed.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type StoreConnection } from "../../services/apiserver/server/store-connection.ts";
import { StoreCluster, STREAM } from "../chaos/store-cluster.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
const WRITERS = 6;

let cluster: StoreCluster;
let store: StoreConnection;
let api: TestApiserver;

beforeAll(async () => {
  cluster = await StoreCluster.start(3);
  await cluster.waitForLeader();
  store = await openStore({ dataDir: cluster.dir, endpoints: cluster.endpoints, redisUrl: cluster.redis.url, stream: STREAM });
  api = await startTestApiserver({ kv: store.kv, feed: store.feed });
}, 120_000);

afterAll(async () => {
  await api?.close();
  await store?.close();
  await cluster?.stop();
}, 60_000);

interface Answer {
  name: string;
  status: number;
  sentAt: number;
  answeredAt: number;
  text: string;
}

function isRetriableStorageFailure(a: Answer): boolean {
  if (a.status === 504) return true;
  if (a.status !== 500) return false;
  const status = JSON.parse(a.text) as { reason?: string; details?: { retryAfterSeconds?: number } };
  return status.reason === "ServerTimeout" && (status.details?.retryAfterSeconds ?? 0) > 0;
}

describe("creates in flight while the store leader is killed", () => {
  it("are answered as committed successes or definite failures, never 500, and a retry never meets 409", async () => {
    const answers: Answer[] = [];
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const name = `fault-${w}-${i}`;
        const sentAt = Date.now();
        const res = await api.admin.post(CONFIGMAPS, { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { writer: String(w) } }).catch((err: unknown) => ({ status: 0, text: String(err) }));
        answers.push({ name, status: res.status, sentAt, answeredAt: Date.now(), text: res.text });
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
    await new Promise((r) => setTimeout(r, 1500));
    const leader = await cluster.waitForLeader();
    const killedAt = Date.now();
    await cluster.kill(leader);
    await cluster.waitForLeader();
    await new Promise((r) => setTimeout(r, 1500));
    stop = true;
    await Promise.all(writers);

    const inFlightAtKill = answers.filter((a) => a.sentAt <= killedAt && a.answeredAt > killedAt);
    const failed = answers.filter((a) => a.status !== 201);
    process.stdout.write(
      `leader kill: ${answers.length} creates, ${inFlightAtKill.length} in flight at the kill (answered ${inFlightAtKill.map((a) => a.status).join(",")}), ${failed.length} failed (${[...new Set(failed.map((a) => a.status))].join(",")})\n`,
    );
    expect(inFlightAtKill.length).toBeGreaterThan(0);
    // Failures are the platform's retriable storage answers: 500 ServerTimeout with retryAfterSeconds (the store
    // could not take the write: nothing applied) or 504 Timeout; never an InternalError, never a broken connection.
    expect(failed.filter((a) => !isRetriableStorageFailure(a))).toEqual([]);

    // Successes exist; failures do not, and their retry creates them.
    for (const a of answers) {
      const got = await api.admin.get(`${CONFIGMAPS}/${a.name}`);
      expect({ name: a.name, answered: a.status, stored: got.status }).toEqual({ name: a.name, answered: a.status, stored: a.status === 201 ? 200 : 404 });
    }
    for (const a of failed) {
      const retry = await api.admin.post(CONFIGMAPS, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: a.name } });
      expect({ name: a.name, retry: retry.status }).toEqual({ name: a.name, retry: 201 });
    }
  }, 90_000);
});
