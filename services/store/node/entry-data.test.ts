import { describe, expect, it } from "vitest";
import { encodeRequest } from "../mvcc/index.ts";
import { ConfChangeType } from "../raft/index.ts";
import { CodecError } from "../transport/binary.ts";
import { decodeConfContext, decodeRequestEntry, encodeConfContext, encodeRequestEntry } from "./entry-data.ts";
import { MemberList, type Member } from "./members.ts";
import { decodeSnapshotData, encodeSnapshotData, encodeSnapshotDataHeader } from "./snapshot-data.ts";

const member = (id: number, isLearner = false): Member => ({ id, name: `n${id}`, peerUrls: [`https://10.0.0.${id}:2380`], clientUrls: [`https://10.0.0.${id}:2379`, "http://ü.example:1"], isLearner });

describe("node entry and snapshot data", () => {
  it("round-trips a tagged store request", () => {
    const tag = { proposer: 3, nonce: 2 ** 31 - 1, seq: 123456789 };
    const request = { type: "put" as const, request: { key: new Uint8Array([1, 2]), value: new Uint8Array([3]), lease: -5n } };
    const d = decodeRequestEntry(encodeRequestEntry(tag, request));
    expect(d?.tag).toEqual(tag);
    expect(d?.request.type).toBe("put");
    expect(d?.request.request).toMatchObject({ key: new Uint8Array([1, 2]), value: new Uint8Array([3]), lease: -5n });
    expect(decodeRequestEntry(new Uint8Array(0))).toBeUndefined();
  });

  it("takes the request's encoding when the caller made it already: the same entry", () => {
    const tag = { proposer: 1, nonce: 9, seq: 4 };
    const request = { type: "put" as const, request: { key: new Uint8Array([1]), value: new Uint8Array(1024).fill(7) } };
    expect(encodeRequestEntry(tag, request, encodeRequest(request))).toEqual(encodeRequestEntry(tag, request));
    // The given bytes are the entry's request part, not encoded again.
    const other = encodeRequest({ type: "compact", request: { revision: 3 } });
    expect(decodeRequestEntry(encodeRequestEntry(tag, request, other))?.request).toEqual({ type: "compact", request: { revision: 3 } });
  });

  it("refuses unknown versions and kinds", () => {
    const buf = encodeRequestEntry({ proposer: 1, nonce: 1, seq: 1 }, { type: "compact", request: { revision: 5 } });
    expect(() => decodeRequestEntry(Uint8Array.of(2, ...buf.subarray(1)))).toThrow(CodecError);
    expect(() => decodeRequestEntry(Uint8Array.of(1, 9, ...buf.subarray(2)))).toThrow(/unknown entry kind/);
    expect(() => decodeConfContext(Uint8Array.of(7))).toThrow(CodecError);
  });

  it("round-trips conf change contexts with and without a member", () => {
    const tag = { proposer: 1, nonce: 42, seq: 7 };
    expect(decodeConfContext(encodeConfContext(tag, member(4, true)))).toEqual({ tag, member: member(4, true) });
    expect(decodeConfContext(encodeConfContext(tag, undefined))).toEqual({ tag, member: undefined });
    expect(decodeConfContext(undefined)).toEqual({});
  });

  it("round-trips snapshot data (members and mvcc bytes)", () => {
    const mvcc = new Uint8Array([9, 8, 7, 6]);
    const d = decodeSnapshotData(encodeSnapshotData([member(1), member(2, true)], mvcc));
    expect(d.members).toEqual([member(1), member(2, true)]);
    expect([...d.mvcc]).toEqual([9, 8, 7, 6]);
    expect(d.removed).toEqual([]);
  });

  it("has the header alone followed by the mvcc bytes equal the whole (the sliced snapshot writes them so)", () => {
    const mvcc = new Uint8Array([5, 4, 3]);
    const members = [member(1), member(2, true)];
    for (const removed of [[], [{ id: 7, index: 3, term: 2 }]]) {
      expect(new Uint8Array([...encodeSnapshotDataHeader(members, removed), ...mvcc])).toEqual(encodeSnapshotData(members, mvcc, removed));
    }
  });

  it("writes snapshot data version 1 until an id is removed, then version 2 with the removed ids", () => {
    const mvcc = new Uint8Array([9, 8]);
    const v1 = encodeSnapshotData([member(1)], mvcc);
    expect(v1[0]).toBe(1);
    expect(encodeSnapshotData([member(1)], mvcc, [])).toEqual(v1);
    const removed = [
      { id: 2, index: 17, term: 3 },
      { id: 300, index: 2 ** 40, term: 9 },
    ];
    const v2 = encodeSnapshotData([member(1)], mvcc, removed);
    expect(v2[0]).toBe(2);
    const d = decodeSnapshotData(v2);
    expect(d).toEqual({ members: [member(1)], removed, mvcc: d.mvcc });
    expect([...d.mvcc]).toEqual([9, 8]);
    expect(() => decodeSnapshotData(Uint8Array.of(3, 0))).toThrow(CodecError);
    expect(() => decodeSnapshotData(v2.subarray(0, v2.byteLength - 4))).toThrow(CodecError);
  });

  it("applies conf changes to the member list", () => {
    const list = new MemberList([member(1), member(2)]);
    list.apply({ type: ConfChangeType.AddLearnerNode, nodeId: 3 }, member(3));
    expect(list.get(3)?.isLearner).toBe(true);
    list.apply({ type: ConfChangeType.AddNode, nodeId: 3 }, undefined);
    expect(list.get(3)).toEqual(member(3, false));
    list.apply({ type: ConfChangeType.UpdateNode, nodeId: 2 }, { ...member(2), name: "renamed" });
    expect(list.get(2)?.name).toBe("renamed");
    list.apply({ type: ConfChangeType.UpdateNode, nodeId: 9 }, member(9));
    expect(list.has(9)).toBe(false);
    list.apply({ type: ConfChangeType.RemoveNode, nodeId: 1 }, undefined, { index: 12, term: 4 });
    expect(list.list().map((m) => m.id)).toEqual([2, 3]);
    expect(list.removal(1)).toEqual({ id: 1, index: 12, term: 4 });
    expect(list.removed()).toEqual([{ id: 1, index: 12, term: 4 }]);
    // Adding the id again (a member replaced at the same peer URLs) clears its removal.
    list.apply({ type: ConfChangeType.AddLearnerNode, nodeId: 1 }, member(1, true));
    expect(list.removal(1)).toBeUndefined();
    expect(list.has(1)).toBe(true);
  });
});
