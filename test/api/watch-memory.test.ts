/**
 * Memory of idle watches (issue 14): an in-process replica's JS heap is measured after full
 * collections with no watch open (after WARM watches were opened and closed, so the code
 * paths are compiled and the tables grown), with MEASURED idle watches open, and once they
 * are closed again. The watch clients run in a child process (the hardening benchmark's), so
 * the heap holds only what the server keeps for them, TLS connection, HTTP request and
 * response included.
 * - What closing the watches releases is what an open idle watch holds: at most
 *   PER_WATCH_LIMIT_KIB each (the goal). Measured: 8.97 KiB; 10.9 KiB when the node
 *   response kept a header table, an AbortSignal and a seat-hold object per watch; a bare
 *   node HTTPS server holding a streamed response open keeps ~7.4 KiB. This figure moves by
 *   about 1 % between runs.
 * - The growth while they open also counts what closing would not give back (a leak), but
 *   code compiled meanwhile and collections of older garbage move it by several KiB per
 *   watch: its bound, GROWTH_LIMIT_KIB, is loose.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensurePki } from "../../services/apiserver/server/certs.ts";
import { ChildChannel } from "../bench/child-channel.ts";
import type { ClientTarget, HardeningReply, HardeningRequest } from "../bench/hardening-clients.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

const WARM = 50;
const MEASURED = 200;
const PER_WATCH_LIMIT_KIB = 10;
const GROWTH_LIMIT_KIB = 14;
const WATCH_PATH = "/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&labelSelector=memory%3Didle";

let api: TestApiserver;
let clients: ChildChannel<HardeningRequest, HardeningReply>;
let target: ClientTarget;

setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;

/** Heap in use after full collections (two, a turn apart: what the first freed is finalized first). */
async function heapUsed(): Promise<number> {
  collect();
  await new Promise((r) => setTimeout(r, 50));
  collect();
  return process.memoryUsage().heapUsed;
}

async function until(what: string, cond: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Opens `count` watches and waits until the cache has every one of them. */
async function openWatches(count: number, baseline: number): Promise<void> {
  expect((await clients.ask({ type: "watch", target, path: WATCH_PATH, count }, "watching")).open).toBe(count);
  await until(`${count} watchers are registered`, () => api.replica.cache.watcherCount >= baseline + count);
}

/** Closes every watch opened and waits until the server let go of them (their responses closed). */
async function closeWatches(baseline: number): Promise<void> {
  await clients.ask({ type: "close" }, "closed");
  await until("the watchers are gone", () => api.replica.cache.watcherCount <= baseline);
  await new Promise((r) => setTimeout(r, 200));
}

beforeAll(async () => {
  api = await startTestApiserver({ bookmarkIntervalMs: 60_000 });
  const pki = await ensurePki(api.dir, { profile: api.profile });
  target = { url: api.replica.url, ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem };
  clients = new ChildChannel<HardeningRequest, HardeningReply>(new URL("../bench/hardening-clients.ts", import.meta.url));
});

afterAll(async () => {
  clients?.kill();
  await api?.close();
});

describe("idle watches", () => {
  it(`hold at most ${PER_WATCH_LIMIT_KIB} KiB of heap each (${MEASURED} watches, what closing them releases)`, async () => {
    const baseline = api.replica.cache.watcherCount;
    try {
      await openWatches(WARM, baseline);
      await closeWatches(baseline);
      const idle = await heapUsed();
      await openWatches(MEASURED, baseline);
      await new Promise((r) => setTimeout(r, 200));
      const open = await heapUsed();
      await closeWatches(baseline);
      const closed = await heapUsed();
      const heldKib = (open - closed) / MEASURED / 1024;
      const grownKib = (open - idle) / MEASURED / 1024;
      process.stdout.write(`idle watches: ${heldKib.toFixed(2)} KiB of heap each released on close, ${grownKib.toFixed(2)} KiB grown each while opening\n`);
      expect(heldKib).toBeLessThanOrEqual(PER_WATCH_LIMIT_KIB);
      expect(grownKib).toBeLessThanOrEqual(GROWTH_LIMIT_KIB);
    } finally {
      await clients.ask({ type: "close" }, "closed");
    }
  }, 60_000);
});
