import { describe, expect, it } from "vitest";
import { decodeRequest, encodeRequest } from "./request-codec.ts";
import { ENTRY_OVERHEAD_BYTES, MvccStore } from "./store.ts";
import { b } from "./testing/helpers.ts";
import type { AlarmType, StoreRequest } from "./types.ts";

function withAlarm(alarm: AlarmType): MvccStore {
  const s = new MvccStore();
  s.leaseGrant({ id: 5n, ttl: 10 });
  s.put({ key: b("k"), value: b("v") });
  s.apply({ type: "alarm", request: { action: "activate", memberId: 7n, alarm } });
  return s;
}

const writes: [string, StoreRequest, "ok" | "no-space" | "corrupt", "ok" | "corrupt"][] = [
  // [name, request, result under NOSPACE, result under CORRUPT]
  ["put", { type: "put", request: { key: b("k"), value: b("x") } }, "no-space", "corrupt"],
  ["txn that puts on its failure branch", { type: "txn", request: { failure: [{ type: "put", request: { key: b("k"), value: b("x") } }] } }, "no-space", "corrupt"],
  ["delete", { type: "deleteRange", request: { key: b("k") } }, "ok", "corrupt"],
  ["delete-only txn", { type: "txn", request: { success: [{ type: "deleteRange", request: { key: b("k") } }] } }, "ok", "corrupt"],
  ["lease grant", { type: "leaseGrant", request: { id: 6n, ttl: 5 } }, "no-space", "corrupt"],
  ["lease revoke", { type: "leaseRevoke", request: { id: 5n } }, "ok", "ok"],
  ["compact", { type: "compact", request: { revision: 2 } }, "ok", "ok"],
];

describe("alarms", () => {
  it.each(writes)("%s while NOSPACE / CORRUPT is raised", (_, request, noSpace, corrupt) => {
    for (const [alarm, expected] of [["NOSPACE", noSpace], ["CORRUPT", corrupt]] as const) {
      const s = withAlarm(alarm);
      const res = s.apply(request);
      expect(res.result.type === "error" ? res.result.error.code : "ok").toBe(expected);
    }
  });

  it("uses etcd's messages", () => {
    const res = withAlarm("NOSPACE").apply(writes[0][1]);
    expect(res.result.type === "error" && res.result.error.message).toBe("etcdserver: mvcc: database space exceeded");
    const corrupt = withAlarm("CORRUPT").apply(writes[0][1]);
    expect(corrupt.result.type === "error" && corrupt.result.error.message).toBe("etcdserver: corrupt cluster");
  });

  it("activates and deactivates once, answering with what changed, and survives a snapshot", () => {
    const s = withAlarm("NOSPACE");
    expect(s.alarm({ action: "activate", memberId: 7n, alarm: "NOSPACE" }).response.alarms).toEqual([]);
    s.alarm({ action: "activate", memberId: 3n, alarm: "CORRUPT" });
    const restored = MvccStore.fromSnapshot(s.snapshot());
    expect(restored.alarms()).toEqual([
      { memberId: 3n, alarm: "CORRUPT" },
      { memberId: 7n, alarm: "NOSPACE" },
    ]);
    expect(s.alarm({ action: "deactivate", memberId: 7n, alarm: "NOSPACE" }).response.alarms).toEqual([{ memberId: 7n, alarm: "NOSPACE" }]);
    expect(s.alarm({ action: "deactivate", memberId: 7n, alarm: "NOSPACE" }).response.alarms).toEqual([]);
    s.alarm({ action: "deactivate", memberId: 3n, alarm: "CORRUPT" });
    expect(s.put({ key: b("k"), value: b("again") }).revision).toBe(s.currentRevision);
  });

  it("encodes alarm requests in the log", () => {
    const req: StoreRequest = { type: "alarm", request: { action: "deactivate", memberId: 0xffff_ffff_ffffn, alarm: "CORRUPT" } };
    expect(decodeRequest(encodeRequest(req))).toEqual(req);
  });
});

describe("space accounting", () => {
  it("counts retained entries, keeps the high-water mark until defragment, and is rebuilt from a snapshot", () => {
    const s = new MvccStore();
    const entry = (k: string, v: string) => k.length + v.length + ENTRY_OVERHEAD_BYTES;
    s.put({ key: b("a"), value: b("1111") });
    s.put({ key: b("a"), value: b("22") });
    s.put({ key: b("a"), value: b("3") });
    s.deleteRange({ key: b("a") });
    const all = entry("a", "1111") + entry("a", "22") + entry("a", "3") + entry("a", "");
    expect(s.space()).toEqual({ inUse: all, allocated: all });
    // A rolled back txn costs nothing.
    s.apply({ type: "txn", request: { success: [{ type: "put", request: { key: b("x"), value: b("y") } }, { type: "put", request: { key: b("z"), lease: 99n } }] } });
    expect(s.space().inUse).toBe(all);
    // Compaction keeps the tombstone at the compact revision and the put before it.
    s.compact(s.currentRevision);
    const kept = entry("a", "3") + entry("a", "");
    expect(s.space()).toEqual({ inUse: kept, allocated: all });
    s.defragment();
    expect(s.space()).toEqual({ inUse: kept, allocated: kept });
    s.put({ key: b("b"), value: b("v") });
    const restored = MvccStore.fromSnapshot(s.snapshot());
    expect(restored.space()).toEqual({ inUse: kept + entry("b", "v"), allocated: kept + entry("b", "v") });
  });
});
