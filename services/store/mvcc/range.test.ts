import { describe, expect, it } from "vitest";
import { prefixEnd } from "./keys.ts";
import { MvccStore } from "./store.ts";
import { b, kvs, str } from "./testing/helpers.ts";

function seeded(): MvccStore {
  const s = new MvccStore();
  // revisions 2..7
  for (const [k, v] of [
    ["/a/1", "z"],
    ["/a/2", "y"],
    ["/a/3", "x"],
    ["/b/1", "w"],
    ["/a/1", "v"],
    ["/a0", "u"],
  ]) {
    s.put({ key: b(k), value: b(v) });
  }
  return s;
}

const keys = (list: { key: Uint8Array }[]) => list.map((kv) => str(kv.key));

describe("range", () => {
  it("with an empty range end reads one key", () => {
    const s = seeded();
    expect(kvs(s.range({ key: b("/a/1") }).kvs)).toEqual(["/a/1=v@2/6/v2"]);
    expect(s.range({ key: b("/a/") }).count).toBe(0);
  });

  it("with [key, rangeEnd) is half-open and ordered by key bytes", () => {
    const s = seeded();
    expect(keys(s.range({ key: b("/a/1"), rangeEnd: b("/a/3") }).kvs)).toEqual(["/a/1", "/a/2"]);
    expect(keys(s.range({ key: b("/a/3"), rangeEnd: b("/a/1") }).kvs)).toEqual([]);
  });

  it("with a prefix end reads the prefix only", () => {
    const s = seeded();
    const r = s.range({ key: b("/a/"), rangeEnd: prefixEnd(b("/a/")) });
    expect(keys(r.kvs)).toEqual(["/a/1", "/a/2", "/a/3"]);
    expect(r.count).toBe(3);
    expect(r.more).toBe(false);
  });

  it("with rangeEnd \\0 reads every key >= key; \\0..\\0 reads all keys", () => {
    const s = seeded();
    expect(keys(s.range({ key: b("/a0"), rangeEnd: new Uint8Array([0]) }).kvs)).toEqual(["/a0", "/b/1"]);
    expect(s.range({ key: new Uint8Array([0]), rangeEnd: new Uint8Array([0]) }).count).toBe(5);
  });

  it("compares keys as unsigned bytes", () => {
    const s = new MvccStore();
    for (const k of [[0x61, 0xff], [0x61, 0x7f], [0x61], [0x61, 0x80, 0x00], [0x62]]) {
      s.put({ key: new Uint8Array(k), value: b("") });
    }
    const r = s.range({ key: new Uint8Array([0x61]), rangeEnd: prefixEnd(new Uint8Array([0x61])) });
    expect(r.kvs.map((kv) => [...kv.key])).toEqual([[0x61], [0x61, 0x7f], [0x61, 0x80, 0x00], [0x61, 0xff]]);
  });

  it("limit returns the first keys, full count and more", () => {
    const s = seeded();
    const r = s.range({ key: b("/"), rangeEnd: b("0"), limit: 2 });
    expect(keys(r.kvs)).toEqual(["/a/1", "/a/2"]);
    expect(r.count).toBe(5);
    expect(r.more).toBe(true);
    const exact = s.range({ key: b("/"), rangeEnd: b("0"), limit: 5 });
    expect(exact.kvs).toHaveLength(5);
    expect(exact.more).toBe(false);
  });

  it("countOnly returns the count without kvs; keysOnly drops values", () => {
    const s = seeded();
    const c = s.range({ key: b("/"), rangeEnd: b("0"), countOnly: true, limit: 1 });
    expect(c).toEqual({ revision: 7, kvs: [], count: 5, more: false });
    const k = s.range({ key: b("/a/"), rangeEnd: b("/a0"), keysOnly: true });
    expect(k.kvs.map((kv) => kv.value.length)).toEqual([0, 0, 0]);
    expect(k.kvs.map((kv) => kv.modRevision)).toEqual([6, 3, 4]);
    // the stored values are untouched
    expect(kvs(s.range({ key: b("/a/1") }).kvs)).toEqual(["/a/1=v@2/6/v2"]);
  });

  it("sorts by each target in both orders, stable on key", () => {
    const s = seeded();
    const all = { key: b("/"), rangeEnd: b("0") };
    expect(keys(s.range({ ...all, sortTarget: "VALUE" }).kvs)).toEqual(["/a0", "/a/1", "/b/1", "/a/3", "/a/2"]);
    expect(keys(s.range({ ...all, sortTarget: "VALUE", sortOrder: "DESCEND" }).kvs)).toEqual([
      "/a/2",
      "/a/3",
      "/b/1",
      "/a/1",
      "/a0",
    ]);
    expect(keys(s.range({ ...all, sortTarget: "MOD", sortOrder: "DESCEND" }).kvs)).toEqual([
      "/a0",
      "/a/1",
      "/b/1",
      "/a/3",
      "/a/2",
    ]);
    expect(keys(s.range({ ...all, sortTarget: "CREATE", sortOrder: "DESCEND" }).kvs)).toEqual([
      "/a0",
      "/b/1",
      "/a/3",
      "/a/2",
      "/a/1",
    ]);
    expect(keys(s.range({ ...all, sortTarget: "VERSION", sortOrder: "DESCEND" }).kvs)).toEqual([
      "/a/1",
      "/a/2",
      "/a/3",
      "/a0",
      "/b/1",
    ]);
    expect(keys(s.range({ ...all, sortTarget: "KEY", sortOrder: "DESCEND", limit: 2 }).kvs)).toEqual(["/b/1", "/a0"]);
    const top = s.range({ ...all, sortTarget: "MOD", sortOrder: "DESCEND", limit: 1 });
    expect(keys(top.kvs)).toEqual(["/a0"]);
    expect(top.more).toBe(true);
  });

  it("filters on mod and create revision without changing count", () => {
    const s = seeded();
    const all = { key: b("/"), rangeEnd: b("0") };
    const r = s.range({ ...all, minModRevision: 4, maxModRevision: 6 });
    expect(keys(r.kvs)).toEqual(["/a/1", "/a/3", "/b/1"]);
    expect(r.count).toBe(5);
    expect(keys(s.range({ ...all, minCreateRevision: 3, maxCreateRevision: 4 }).kvs)).toEqual(["/a/2", "/a/3"]);
    const limited = s.range({ ...all, minModRevision: 4, limit: 1 });
    expect(keys(limited.kvs)).toEqual(["/a/1"]);
    expect(limited.more).toBe(true);
  });

  it("reads a past revision with limit", () => {
    const s = seeded();
    const r = s.range({ key: b("/"), rangeEnd: b("0"), revision: 4, limit: 2 });
    expect(kvs(r.kvs)).toEqual(["/a/1=z@2/2/v1", "/a/2=y@3/3/v1"]);
    expect(r.count).toBe(3);
    expect(r.more).toBe(true);
    expect(r.revision).toBe(7);
  });

  it("handles 20k keys in order with prefix pages", () => {
    const s = new MvccStore();
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const j = (i * 7919) % n; // insertion out of order
      s.put({ key: b(`/k/${String(j).padStart(6, "0")}`), value: b(String(j)) });
    }
    let from = b("/k/");
    const end = prefixEnd(b("/k/"));
    const seen: string[] = [];
    for (;;) {
      const page = s.range({ key: from, rangeEnd: end, limit: 1000 });
      seen.push(...keys(page.kvs));
      if (!page.more) break;
      const last = page.kvs[page.kvs.length - 1].key;
      from = new Uint8Array([...last, 0]);
    }
    expect(seen).toHaveLength(n);
    expect(seen[0]).toBe("/k/000000");
    expect(seen[n - 1]).toBe(`/k/${String(n - 1).padStart(6, "0")}`);
    expect([...seen].sort()).toEqual(seen);
  });
});
