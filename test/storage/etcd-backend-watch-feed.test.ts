/**
 * The etcd Watch revision feed (services/apiserver/storage/etcd-watch-feed.ts) on a
 * real etcd 3.4 member, reached through a TCP proxy of the test that can cut its
 * connections or refuse new ones: strictly consecutive revisions with writes outside
 * the registry prefix bridged, resume after a cut stream without loss or repeat, and
 * compaction during a disconnect failing subscribers with CompactedError before the
 * feed goes on from the current revision.
 */
import { connect, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EtcdKv } from "../../services/apiserver/storage/etcd-kv.ts";
import { EndpointPool, grpcMembers } from "../../services/apiserver/storage/etcd-kv-pool.ts";
import { EtcdWatchFeed } from "../../services/apiserver/storage/etcd-watch-feed.ts";
import { CompactedError, type RevisionChange } from "../../services/apiserver/storage/kv.ts";
import { startEtcdCluster, type EtcdCluster } from "../support/etcd.ts";

interface Proxy {
  endpoint: string;
  cut(): void;
  setDown(down: boolean): void;
  close(): Promise<void>;
}

async function startProxy(target: string): Promise<Proxy> {
  const [host, port] = target.split(":");
  const sockets = new Set<Socket>();
  let down = false;
  const server: Server = createServer((client) => {
    if (down) return void client.destroy();
    const upstream = connect(Number(port), host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("proxy has no port");
  const cut = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    endpoint: `127.0.0.1:${address.port}`,
    cut,
    setDown(value) {
      down = value;
      if (value) cut();
    },
    close: () => {
      cut();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

let etcd: EtcdCluster | undefined;
let kv: EtcdKv;
let proxy: Proxy | undefined;
let pool: EndpointPool | undefined;
let feed: EtcdWatchFeed | undefined;

beforeAll(async () => {
  etcd = await startEtcdCluster(1);
  kv = new EtcdKv(etcd.endpoints);
  proxy = await startProxy(etcd.endpoints[0]);
  pool = new EndpointPool(grpcMembers([proxy.endpoint]));
  feed = new EtcdWatchFeed(kv, pool, { progressIntervalMs: 200, stallTimeoutMs: 2000 });
  await feed.start();
}, 60_000);

afterAll(async () => {
  feed?.stop();
  pool?.close();
  await proxy?.close();
  await kv?.close();
  await etcd?.stop();
});

const put = (key: string) => kv.txn([], [{ type: "put", key, value: Buffer.from(key) }], []).then((r) => r.revision);

/** Subscribes after `after` and records every change (and the first error). */
function record(after: number) {
  const changes: RevisionChange[] = [];
  const state: { error?: Error } = {};
  const stop = feed!.feed.subscribe(after, (c) => changes.push(c), (err) => (state.error = err));
  const until = async (revision: number, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    while ((changes.at(-1)?.revision ?? after) < revision && state.error === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  };
  return { changes, state, stop, until };
}

const consecutive = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("the etcd Watch revision feed on a real etcd", () => {
  it("delivers strictly consecutive revisions, one change per revision, with writes outside the prefix bridged", async () => {
    const start = feed!.position;
    const rec = record(start);
    const foreign: number[] = [];
    for (let i = 0; i < 10; i++) {
      await put(`/registry/core/configmaps/feed/c${i}`);
      if (i % 3 === 0) foreign.push(await put(`/elsewhere/k${i}`));
    }
    const pair = await kv.txn([], [{ type: "put", key: "/registry/core/configmaps/feed/p1", value: Buffer.from("1") }, { type: "put", key: "/registry/core/configmaps/feed/p2", value: Buffer.from("2") }], []);
    const last = await put(`/elsewhere/last`);
    await rec.until(last);
    rec.stop();
    expect(rec.state.error).toBeUndefined();
    expect(rec.changes.map((c) => c.revision)).toEqual(consecutive(start + 1, last));
    for (const c of rec.changes) {
      const keys = c.changes.map((k) => k.key);
      if (foreign.includes(c.revision) || c.revision === last) expect(keys).toEqual([]);
      else if (c.revision === pair.revision) expect(keys).toEqual(["/registry/core/configmaps/feed/p1", "/registry/core/configmaps/feed/p2"]);
      else expect(keys).toHaveLength(1);
    }
  });

  it("resumes after the last delivered revision when its stream is cut, losing and repeating nothing", async () => {
    const start = feed!.position;
    const streamsBefore = feed!.stats.streams;
    const rec = record(start);
    let last = start;
    for (let i = 0; i < 60; i++) {
      last = await put(`/registry/core/configmaps/feed/cut${i}`);
      if (i % 20 === 10) proxy!.cut();
    }
    await rec.until(last, 15_000);
    rec.stop();
    expect(rec.state.error).toBeUndefined();
    expect(rec.changes.map((c) => c.revision)).toEqual(consecutive(start + 1, last));
    expect(feed!.stats.streams).toBeGreaterThan(streamsBefore);
  });

  it("fails subscribers with CompactedError when etcd compacted what it missed while disconnected, then goes on from the current revision", async () => {
    const rec = record(feed!.position);
    proxy!.setDown(true);
    let missed = 0;
    for (let i = 0; i < 5; i++) missed = await put(`/registry/core/configmaps/feed/missed${i}`);
    await kv.compact(missed);
    proxy!.setDown(false);
    const deadline = Date.now() + 15_000;
    while (rec.state.error === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    rec.stop();
    expect(rec.state.error).toBeInstanceOf(CompactedError);
    while (feed!.position < missed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const after = record(feed!.position);
    const next = await put(`/registry/core/configmaps/feed/after-compaction`);
    await after.until(next);
    after.stop();
    expect(after.state.error).toBeUndefined();
    expect(after.changes.at(-1)?.changes.map((k) => k.key)).toEqual(["/registry/core/configmaps/feed/after-compaction"]);
  });
});
