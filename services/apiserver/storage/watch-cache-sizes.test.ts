/**
 * The watch cache's stored-bytes sum per resource keeps no size per key: a change's
 * replaced value (`prevValue`) is what leaves the sum, and a change that lacks it is
 * counted at the resource's average size. A scripted feed sends the changes.
 */
import { describe, expect, it } from "vitest";
import type { KeyChange, KvStore, RevisionChange, RevisionFeed } from "./kv.ts";
import { encodeForStorage } from "./object.ts";
import { WatchCache } from "./watch-cache.ts";

const PREFIX = "/registry/core/configmaps/";

function value(name: string, size: number): Uint8Array {
  return encodeForStorage({ metadata: { name, namespace: "ns", resourceVersion: "1" }, data: { v: "x".repeat(size) } });
}

/** A cache over an empty store whose feed the test drives. */
async function scriptedCache(): Promise<{ cache: WatchCache; send: (revision: number, change: KeyChange) => void }> {
  let deliver: ((c: RevisionChange) => void) | undefined;
  const kv = { range: async () => ({ kvs: [], more: false, revision: 1, count: 0 }) } as unknown as KvStore;
  const feed = {
    subscribe: (_from: number, onChange: (c: RevisionChange) => void) => {
      deliver = onChange;
      return () => {};
    },
  } as unknown as RevisionFeed;
  const cache = new WatchCache(kv, feed, { root: "/registry/" });
  await cache.start();
  return { cache, send: (revision, change) => deliver?.({ revision, changes: [change] }) };
}

function put(key: string, v: Uint8Array, prev: Uint8Array | undefined, revision: number): KeyChange {
  return { type: "PUT", key, value: v, prevValue: prev, createRevision: 2, modRevision: revision, version: 1 } as KeyChange;
}

function del(key: string, prev: Uint8Array | undefined, revision: number): KeyChange {
  return { type: "DELETE", key, prevValue: prev, createRevision: 0, modRevision: revision, version: 0 } as KeyChange;
}

describe("watch cache stored sizes", () => {
  it("takes a replaced value's size from the change's previous value", async () => {
    const { cache, send } = await scriptedCache();
    const a = value("a", 100);
    const b = value("b", 300);
    send(2, put(`${PREFIX}ns/a`, a, undefined, 2));
    send(3, put(`${PREFIX}ns/b`, b, undefined, 3));
    expect(cache.resourceStats(PREFIX)).toEqual({ objects: 2, averageBytes: Math.floor((a.length + b.length) / 2) });
    const a2 = value("a", 1000);
    send(4, put(`${PREFIX}ns/a`, a2, a, 4));
    expect(cache.resourceStats(PREFIX)).toEqual({ objects: 2, averageBytes: Math.floor((a2.length + b.length) / 2) });
    send(5, del(`${PREFIX}ns/a`, a2, 5));
    expect(cache.resourceStats(PREFIX)).toEqual({ objects: 1, averageBytes: b.length });
  });

  it("counts a change without its previous value at the resource's average, and empties with the last object", async () => {
    const { cache, send } = await scriptedCache();
    const small = value("a", 100);
    const large = value("b", 500);
    send(2, put(`${PREFIX}ns/a`, small, undefined, 2));
    send(3, put(`${PREFIX}ns/b`, large, undefined, 3));
    const average = (small.length + large.length) / 2;
    send(4, del(`${PREFIX}ns/a`, undefined, 4));
    expect(cache.resourceStats(PREFIX)).toEqual({ objects: 1, averageBytes: Math.floor(small.length + large.length - average) });
    send(5, del(`${PREFIX}ns/b`, undefined, 5));
    expect(cache.resourceStats(PREFIX)).toEqual({ objects: 0, averageBytes: 0 });
    send(6, put(`${PREFIX}ns/c`, small, undefined, 6));
    expect(cache.resourceStats(PREFIX)).toEqual({ objects: 1, averageBytes: small.length });
  });
});
