import { describe, expect, it } from "vitest";
import { ErrFutureRev, StoreError } from "./errors.ts";
import { MvccStore } from "./store.ts";
import { b, changes, events, kvs } from "./testing/helpers.ts";

describe("revisions", () => {
  it("start at 1 and grow by one per write, not per read or no-op", () => {
    const s = new MvccStore();
    expect(s.currentRevision).toBe(1);
    expect(s.put({ key: b("a"), value: b("1") }).revision).toBe(2);
    expect(s.put({ key: b("b"), value: b("1") }).revision).toBe(3);
    s.range({ key: b("a") });
    expect(s.currentRevision).toBe(3);
    const noop = s.deleteRange({ key: b("missing") });
    expect(noop).toEqual({ revision: 3, change: null, response: { deleted: 0, prevKvs: [] } });
    expect(s.currentRevision).toBe(3);
  });

  it("track create_revision, mod_revision and version per key", () => {
    const s = new MvccStore();
    s.put({ key: b("a"), value: b("1") });
    s.put({ key: b("b"), value: b("1") });
    s.put({ key: b("a"), value: b("2") });
    s.put({ key: b("a"), value: b("3") });
    expect(kvs(s.range({ key: b("a") }).kvs)).toEqual(["a=3@2/5/v3"]);
    expect(kvs(s.range({ key: b("b") }).kvs)).toEqual(["b=1@3/3/v1"]);
  });

  it("give a multi-key delete one revision with sub-revisions in key order", () => {
    const s = new MvccStore();
    for (const k of ["c", "a", "b"]) s.put({ key: b(k), value: b(k) });
    const res = s.deleteRange({ key: b("a"), rangeEnd: b("z"), prevKv: true });
    expect(res.revision).toBe(5);
    expect(res.response.deleted).toBe(3);
    expect(kvs(res.response.prevKvs)).toEqual(["a=a@3/3/v1", "b=b@4/4/v1", "c=c@2/2/v1"]);
    expect(events(res.change?.events ?? [])).toEqual([
      "DELETE a=@0/5/v0 prev a=a@3/3/v1",
      "DELETE b=@0/5/v0 prev b=b@4/4/v1",
      "DELETE c=@0/5/v0 prev c=c@2/2/v1",
    ]);
  });

  it("return prevKv on put only when asked", () => {
    const s = new MvccStore();
    expect(s.put({ key: b("a"), value: b("1"), prevKv: true }).response).toEqual({});
    expect(kvs([s.put({ key: b("a"), value: b("2"), prevKv: true }).response.prevKv!])).toEqual(["a=1@2/2/v1"]);
    expect(s.put({ key: b("a"), value: b("3") }).response).toEqual({});
  });

  it("copy put inputs so later mutation of the caller's buffer does not leak in", () => {
    const s = new MvccStore();
    const key = b("k");
    const value = b("v1");
    s.put({ key, value });
    key[0] = 0x7a;
    value[1] = 0x39;
    expect(kvs(s.range({ key: b("k") }).kvs)).toEqual(["k=v1@2/2/v1"]);
  });
});

describe("tombstones and generations", () => {
  it("delete hides a key, recreation starts a new generation at version 1", () => {
    const s = new MvccStore();
    s.put({ key: b("a"), value: b("1") }); // 2
    s.put({ key: b("a"), value: b("2") }); // 3
    s.deleteRange({ key: b("a") }); // 4
    expect(s.range({ key: b("a") }).kvs).toEqual([]);
    expect(s.range({ key: b("a") }).count).toBe(0);
    s.put({ key: b("a"), value: b("3") }); // 5
    s.put({ key: b("a"), value: b("4") }); // 6
    expect(kvs(s.range({ key: b("a") }).kvs)).toEqual(["a=4@5/6/v2"]);
    // history across generations
    expect(kvs(s.range({ key: b("a"), revision: 2 }).kvs)).toEqual(["a=1@2/2/v1"]);
    expect(kvs(s.range({ key: b("a"), revision: 3 }).kvs)).toEqual(["a=2@2/3/v2"]);
    expect(s.range({ key: b("a"), revision: 4 }).kvs).toEqual([]);
    expect(kvs(s.range({ key: b("a"), revision: 5 }).kvs)).toEqual(["a=3@5/5/v1"]);
    expect(s.range({ key: b("a"), revision: 1 }).kvs).toEqual([]);
  });

  it("a delete of an already deleted key changes nothing", () => {
    const s = new MvccStore();
    s.put({ key: b("a"), value: b("1") });
    s.deleteRange({ key: b("a") });
    const again = s.deleteRange({ key: b("a") });
    expect(again.change).toBeNull();
    expect(s.currentRevision).toBe(3);
  });
});

describe("history reads", () => {
  it("ranges at every past revision see exactly that state", () => {
    const s = new MvccStore();
    s.put({ key: b("a"), value: b("1") }); // 2
    s.put({ key: b("b"), value: b("1") }); // 3
    s.put({ key: b("a"), value: b("2") }); // 4
    s.deleteRange({ key: b("b") }); // 5
    s.put({ key: b("c"), value: b("1") }); // 6
    const all = (rev: number) => kvs(s.range({ key: b("\0"), rangeEnd: b("\0"), revision: rev }).kvs);
    expect(all(1)).toEqual([]);
    expect(all(2)).toEqual(["a=1@2/2/v1"]);
    expect(all(3)).toEqual(["a=1@2/2/v1", "b=1@3/3/v1"]);
    expect(all(4)).toEqual(["a=2@2/4/v2", "b=1@3/3/v1"]);
    expect(all(5)).toEqual(["a=2@2/4/v2"]);
    expect(all(6)).toEqual(["a=2@2/4/v2", "c=1@6/6/v1"]);
    expect(all(0)).toEqual(all(6));
  });

  it("a future revision fails with ErrFutureRev", () => {
    const s = new MvccStore();
    s.put({ key: b("a"), value: b("1") });
    expect(() => s.range({ key: b("a"), revision: 3 })).toThrow(ErrFutureRev);
    expect(() => s.range({ key: b("a"), revision: 3 })).toThrow("mvcc: required revision is a future revision");
  });

  it("requests with an empty key fail", () => {
    const s = new MvccStore();
    expect(() => s.put({ key: new Uint8Array(0), value: b("x") })).toThrow(StoreError);
    expect(() => s.range({ key: new Uint8Array(0) })).toThrow("etcdserver: key is not provided");
    expect(() => s.deleteRange({ key: new Uint8Array(0) })).toThrow("etcdserver: key is not provided");
    expect(s.currentRevision).toBe(1);
  });
});

describe("change feed", () => {
  it("each write returns its RevisionChange with prevKv, and changesSince replays them", () => {
    const s = new MvccStore();
    const c1 = s.put({ key: b("a"), value: b("1") }).change;
    expect(c1?.revision).toBe(2);
    expect(events(c1?.events ?? [])).toEqual(["PUT a=1@2/2/v1"]);
    s.put({ key: b("a"), value: b("2") });
    s.put({ key: b("b/x"), value: b("1") });
    s.deleteRange({ key: b("a") });
    expect(changes(s.changesSince(0))).toEqual([
      "2: PUT a=1@2/2/v1",
      "3: PUT a=2@2/3/v2 prev a=1@2/2/v1",
      "4: PUT b/x=1@4/4/v1",
      "5: DELETE a=@0/5/v0 prev a=2@2/3/v2",
    ]);
    expect(changes(s.changesSince(4))).toEqual(["4: PUT b/x=1@4/4/v1", "5: DELETE a=@0/5/v0 prev a=2@2/3/v2"]);
    expect(changes(s.changesSince(3, { key: b("a") }))).toEqual([
      "3: PUT a=2@2/3/v2 prev a=1@2/2/v1",
      "5: DELETE a=@0/5/v0 prev a=2@2/3/v2",
    ]);
    expect(changes(s.changesSince(0, { key: b("b/"), rangeEnd: b("b0") }))).toEqual(["4: PUT b/x=1@4/4/v1"]);
    expect(s.changesSince(6)).toEqual([]);
  });

  it("the change returned by a write is the one kept in history", () => {
    const s = new MvccStore();
    const { change } = s.put({ key: b("a"), value: b("1") });
    expect(s.changesSince(2)[0]).toBe(change);
  });
});
