import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StoreBackend } from "./backend.ts";
import { LocalBackend } from "./local-backend.ts";
import { b, startTestServer, str, type TestServer } from "./testing/support.ts";
import type { PbWatchResponse } from "../../../shared/etcd/wire.ts";

const ALL = Buffer.from([0]);

function summary(res: PbWatchResponse): string[] {
  return (res.events ?? []).map((e) => `${e.type} ${str(e.kv.key)}@${e.kv.mod_revision}${e.type === "PUT" ? `=${str(e.kv.value)}` : ""}`);
}

describe("Watch service", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ progressNotifyIntervalMs: 150 });
  });
  afterEach(async () => {
    await t.close();
  });

  const put = (key: string, value: string) => t.call("KV", "Put", { key: b(key), value: b(value) });
  const del = (key: string) => t.call("KV", "DeleteRange", { key: b(key) });

  it("creates a watcher and streams live puts and deletes with previous values", async () => {
    const w = t.watch();
    w.create({ key: b("a"), prev_kv: true });
    const created = await w.next();
    expect(created).toMatchObject({ watch_id: "0", created: true, canceled: false });
    expect(created.header.member_id).toBe("1");
    await put("a", "1");
    await put("b", "x");
    await del("a");
    const e1 = await w.next();
    expect(summary(e1)).toEqual(["PUT a@2=1"]);
    expect(e1.header.revision).toBe("2");
    const e2 = await w.next();
    expect(summary(e2)).toEqual(["DELETE a@4"]);
    expect(str(e2.events?.[0].prev_kv?.value)).toBe("1");
  });

  it("catches up from start_revision, then continues live without gaps or repeats", async () => {
    for (let i = 0; i < 5; i++) await put(`k${i}`, String(i));
    const w = t.watch();
    w.create({ key: ALL, range_end: ALL, start_revision: 3 });
    expect((await w.next()).created).toBe(true);
    const caught = await w.next();
    expect(summary(caught)).toEqual(["PUT k1@3=1", "PUT k2@4=2", "PUT k3@5=3", "PUT k4@6=4"]);
    await put("k5", "5");
    expect(summary(await w.next())).toEqual(["PUT k5@7=5"]);
    expect(await w.quiet()).toBe(true);
  });

  it("catches up a long history in batches, in order", async () => {
    for (let i = 0; i < 2500; i++) await t.backend.propose({ type: "put", request: { key: b(`h/${i % 10}`), value: b(String(i)) } });
    const w = t.watch();
    w.create({ key: b("h/"), range_end: b("h0"), start_revision: 1 });
    await w.next();
    const seen: number[] = [];
    while (seen.length < 2500) for (const e of (await w.next()).events ?? []) seen.push(Number(e.kv.mod_revision));
    expect(seen).toEqual(Array.from({ length: 2500 }, (_, i) => i + 2));
  });

  it("filters by prefix and by event type, and serves many watchers on one stream", async () => {
    const w = t.watch();
    w.create({ key: b("p/"), range_end: b("p0") });
    w.create({ key: b("p/"), range_end: b("p0"), filters: ["NOPUT"] });
    w.create({ key: b("p/"), range_end: b("p0"), filters: ["NODELETE"], watch_id: 7 });
    const ids = [(await w.next()).watch_id, (await w.next()).watch_id, (await w.next()).watch_id];
    expect(ids).toEqual(["0", "1", "7"]);
    await put("p/1", "a");
    await put("other", "b");
    await del("p/1");
    const got = new Map<string, string[]>();
    for (let i = 0; i < 4; i++) {
      const r = await w.next();
      got.set(String(r.watch_id), [...(got.get(String(r.watch_id)) ?? []), ...summary(r)]);
    }
    expect(got.get("0")).toEqual(["PUT p/1@2=a", "DELETE p/1@4"]);
    expect(got.get("1")).toEqual(["DELETE p/1@4"]);
    expect(got.get("7")).toEqual(["PUT p/1@2=a"]);
    expect(got.size).toBe(3);
  });

  it("cancels a watcher; a duplicate watch id is refused", async () => {
    const w = t.watch();
    w.create({ key: b("a"), watch_id: 5 });
    await w.next();
    w.create({ key: b("a"), watch_id: 5 });
    const dup = await w.next();
    expect(dup).toMatchObject({ watch_id: "-1", created: true, canceled: true });
    expect(dup.cancel_reason).toMatch(/duplicate watch ID/);
    w.cancel(5);
    expect(await w.next()).toMatchObject({ watch_id: "5", canceled: true });
    await put("a", "1");
    expect(await w.quiet()).toBe(true);
  });

  it("cancels a watcher whose start revision was compacted, with compact_revision", async () => {
    for (let i = 0; i < 4; i++) await put("c", String(i));
    await t.call("KV", "Compact", { revision: 4 });
    const w = t.watch();
    w.create({ key: b("c"), start_revision: 2 });
    expect((await w.next()).created).toBe(true);
    const res = await w.next();
    expect(res).toMatchObject({ watch_id: "0", canceled: true, compact_revision: "4" });
    w.create({ key: b("c"), start_revision: 4 });
    expect((await w.next()).created).toBe(true);
    expect(summary(await w.next())).toEqual(["PUT c@4=2", "PUT c@5=3"]);
  });

  it("answers progress requests and sends progress notifications", async () => {
    await put("x", "1");
    const w = t.watch();
    w.create({ key: b("y"), progress_notify: true });
    await w.next();
    w.progress();
    const p = await w.next();
    expect(p).toMatchObject({ watch_id: "-1" });
    expect(p.header.revision).toBe("2");
    expect(p.events ?? []).toHaveLength(0);
    const n = await w.next(1000);
    expect(n.watch_id).toBe("0");
    expect(n.events ?? []).toHaveLength(0);
  });

  it("survives malformed watch requests", async () => {
    const w = t.watch();
    w.create({ key: b("a"), start_revision: "99999999999999999" });
    const bad = await w.next();
    expect(bad).toMatchObject({ created: true, canceled: true, watch_id: "-1" });
    w.cancel(12345);
    w.stream.write({});
    w.create({ key: b("a") });
    expect((await w.next()).created).toBe(true);
    await put("a", "ok");
    expect(summary(await w.next())).toEqual(["PUT a@2=ok"]);
  });
});

describe("Watch service without applied-change notifications", () => {
  it("catches watchers up when the state advanced silently (as after a snapshot install)", async () => {
    const local = new LocalBackend();
    const silent: StoreBackend = { mvcc: local.mvcc, propose: (r) => local.propose(r), readBarrier: () => local.readBarrier(), onApplied: () => () => {}, status: () => local.status() };
    const t = await startTestServer({}, silent);
    try {
      const w = t.watch();
      w.create({ key: b("s") });
      await w.next();
      local.mvcc.apply({ type: "put", request: { key: b("s"), value: b("1") } });
      expect(summary(await w.next(3000))).toEqual(["PUT s@2=1"]);
    } finally {
      await t.close();
    }
  });
});

describe("Watch fragments", () => {
  it("splits a large revision into fragments only for watchers that ask for them", async () => {
    const t = await startTestServer({ maxRequestBytes: 16 * 1024 });
    try {
      const w = t.watch();
      for (let i = 0; i < 6; i++) await t.call("KV", "Put", { key: b(`f/${i}`), value: b("v".repeat(4000)) });
      w.create({ key: b("f/"), range_end: b("f0"), fragment: true, prev_kv: true });
      w.create({ key: b("f/"), range_end: b("f0"), prev_kv: true });
      await w.next();
      await w.next();
      // One small request, one revision whose events (with previous values) exceed the limit.
      await t.call("KV", "DeleteRange", { key: b("f/"), range_end: b("f0") });
      const parts: PbWatchResponse[] = [];
      let whole: PbWatchResponse | undefined;
      while (whole === undefined || parts.length === 0 || parts[parts.length - 1].fragment) {
        const r = await w.next();
        if (r.watch_id === "0") parts.push(r);
        else whole = r;
      }
      expect(parts.length).toBeGreaterThan(1);
      expect(parts.slice(0, -1).every((p) => p.fragment)).toBe(true);
      expect(parts.flatMap((p) => p.events ?? []).map((e) => str(e.kv.key))).toEqual(["f/0", "f/1", "f/2", "f/3", "f/4", "f/5"]);
      expect(whole.events).toHaveLength(6);
      expect(whole.fragment).toBe(false);
    } finally {
      await t.close();
    }
  });
});
