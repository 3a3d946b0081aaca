import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MvccStore } from "../mvcc/store.ts";
import { encodeSnapshot } from "../mvcc/snapshot.ts";
import { b } from "../mvcc/testing/helpers.ts";
import { BackupFormatError, decodeBackupImage, encodeBackupImage, verifiedImage, withChecksum } from "./backup-image.ts";
import { BoltFormatError, readBolt, writeBolt, type BoltBucket } from "./bolt-file.ts";
import { hashKV } from "./hash.ts";
import { fitsQuota, quotaCost } from "./quota.ts";

const key = (i: number) => Buffer.from(`key-${String(i).padStart(6, "0")}`);

describe("bolt file", () => {
  const cases: [string, BoltBucket[], number?][] = [
    ["empty buckets", [{ name: "a", entries: [] }, { name: "b", entries: [] }]],
    ["one leaf", [{ name: "key", entries: [[key(1), Buffer.from("v")]] }]],
    ["branch levels", [{ name: "key", entries: Array.from({ length: 2000 }, (_, i) => [key(i), Buffer.from(`value ${i}`)] as const) }], 512],
    ["a value over many pages", [{ name: "key", entries: [[key(1), Buffer.alloc(20_000, 7)], [key(2), Buffer.from("small")]] }]],
    ["bucket names out of order", [{ name: "meta", entries: [[Buffer.from("x"), Buffer.from("1")]] }, { name: "alarm", entries: [] }]],
  ];
  it.each(cases)("reads back what it wrote: %s", (_, buckets, pageSize) => {
    const file = writeBolt(buckets, pageSize);
    expect(file.length % (pageSize ?? 4096)).toBe(0);
    const back = readBolt(file);
    expect([...back.keys()]).toEqual(buckets.map((x) => x.name).sort());
    for (const bucket of buckets) expect(back.get(bucket.name)?.map(([k, v]) => [Buffer.from(k), Buffer.from(v)])).toEqual(bucket.entries);
  });

  it("refuses keys out of order and files that are not bbolt databases", () => {
    expect(() => writeBolt([{ name: "k", entries: [[key(2), b("")], [key(1), b("")]] }])).toThrow(BoltFormatError);
    expect(() => readBolt(Buffer.alloc(8192, 1))).toThrow(/no valid meta page/);
    const file = Buffer.from(writeBolt([{ name: "k", entries: [[key(1), b("v")]] }]));
    file[3 * 4096 + 8] = 0x10; // the bucket's leaf page becomes a freelist page
    expect(() => readBolt(file)).toThrow(/not a branch or leaf page/);
  });

  it("uses the other meta page when one is damaged", () => {
    const file = Buffer.from(writeBolt([{ name: "k", entries: [[key(1), b("v")]] }]));
    file[4096 + 16 + 20] ^= 0xff; // meta 1 (the newer) fails its checksum
    expect(readBolt(file).get("k")).toHaveLength(1);
  });
});

function history(): MvccStore {
  const s = new MvccStore();
  s.leaseGrant({ id: 9n, ttl: 60 });
  s.leaseGrant({ id: -2n, ttl: 5 });
  s.put({ key: b("a"), value: b("1") });
  s.put({ key: b("a"), value: b("2"), lease: 9n });
  s.put({ key: b("b"), value: new Uint8Array([0, 255]) });
  s.deleteRange({ key: b("a") });
  s.put({ key: b("a"), value: b("3"), lease: -2n });
  s.txn({ success: [{ type: "put", request: { key: b("c"), value: b("") } }, { type: "deleteRange", request: { key: b("b") } }] });
  return s;
}

describe("backup image", () => {
  const states: [string, () => MvccStore][] = [
    ["empty", () => new MvccStore()],
    ["history with leases, deletes and re-creation", history],
    [
      "compacted",
      () => {
        const s = history();
        s.compact(5);
        return s;
      },
    ],
    [
      "compacted at the current revision after a delete",
      () => {
        const s = history();
        s.deleteRange({ key: b("c") });
        s.compact(s.currentRevision);
        return s;
      },
    ],
  ];
  it.each(states)("decodes to the same state: %s", (_, make) => {
    const s = make();
    const image = encodeBackupImage(s.state(), 42);
    const back = decodeBackupImage(verifiedImage(withChecksum(image)));
    expect(back.consistentIndex).toBe(42);
    expect(Buffer.from(encodeSnapshot(back.state))).toEqual(Buffer.from(s.snapshot()));
  });

  it("checks the sha256 trailer of a file that has one", () => {
    const image = encodeBackupImage(history().state(), 1);
    const file = Buffer.from(withChecksum(image));
    expect(file.subarray(image.length).toString("hex")).toBe(createHash("sha256").update(image).digest("hex"));
    file[10] ^= 1;
    expect(() => verifiedImage(file)).toThrow(/expected sha256/);
    expect(verifiedImage(image)).toBe(image);
    expect(() => decodeBackupImage(Buffer.alloc(4096 * 3))).toThrow(BackupFormatError);
  });

  it("HashKV is a function of the history up to the revision", () => {
    const a = history();
    const rev = a.currentRevision;
    const before = hashKV(a.state(), rev);
    a.put({ key: b("later"), value: b("x") });
    expect(hashKV(a.state(), rev)).toEqual(before);
    expect(hashKV(a.state(), 0).hash).not.toBe(before.hash);
    const other = history();
    other.put({ key: b("later"), value: b("y") });
    expect(hashKV(other.state(), rev)).toEqual(before);
    expect(hashKV(other.state(), 0).hash).not.toBe(hashKV(a.state(), 0).hash);
    a.compact(4);
    expect(() => hashKV(a.state(), 4)).toThrow(/compacted/);
    expect(() => hashKV(a.state(), a.currentRevision + 1)).toThrow(/future revision/);
  });
});

describe("quota", () => {
  const put = (k: string, v: string) => ({ type: "put" as const, request: { key: b(k), value: b(v) } });
  it.each([
    ["put", put("k", "vvvv"), 256 + 1 + 4],
    ["delete", { type: "deleteRange" as const, request: { key: b("k") } }, 0],
    ["compact", { type: "compact" as const, request: { revision: 3 } }, 0],
    ["lease grant", { type: "leaseGrant" as const, request: { id: 1n, ttl: 5 } }, 64],
    ["delete-only txn", { type: "txn" as const, request: { success: [{ type: "deleteRange" as const, request: { key: b("k") } }] } }, 0],
    ["txn: the larger branch", { type: "txn" as const, request: { success: [put("a", "1"), put("b", "22")], failure: [put("c", "1")] } }, 2 * 256 + 2 + 3],
  ])("cost of a %s", (_, request, cost) => {
    expect(quotaCost(request)).toBe(cost);
  });
  it.each([
    [0, 0, 100, true],
    [90, 10, 100, false],
    [89, 10, 100, true],
    [500, 0, 100, true],
  ])("size %d + cost %d against quota %d fits: %s", (size, cost, quota, fits) => {
    expect(fitsQuota(size, cost, quota)).toBe(fits);
  });
});
