import { describe, expect, it } from "vitest";
import { decodeEntry, encodeEntry, revisionOfId, streamId, StreamEntryError } from "./revision-entry.ts";

describe("revision stream entries", () => {
  it("round-trips every field of every change", () => {
    const entry = {
      revision: 42,
      changes: [
        { type: "PUT" as const, key: "/registry/core/pods/ns/a", value: new Uint8Array([1, 2]), prevValue: new Uint8Array([3]), createRevision: 40, modRevision: 42, version: 2 },
        { type: "DELETE" as const, key: "/registry/core/pods/ns/b", prevValue: new Uint8Array([9]), createRevision: 0, modRevision: 42, version: 0 },
      ],
    };
    const back = decodeEntry(encodeEntry(entry));
    expect(back.revision).toBe(42);
    expect(back.changes[0]).toEqual(entry.changes[0]);
    expect(back.changes[1].value).toBeUndefined();
    expect(Array.from(back.changes[1].prevValue ?? [])).toEqual([9]);
  });

  it("maps ids to revisions and back", () => {
    expect(streamId(7)).toBe("7-0");
    expect(revisionOfId("7-0")).toBe(7);
    expect(revisionOfId("12345-3")).toBe(12345);
    expect(revisionOfId("x-0")).toBeNaN();
  });

  it("rejects garbage with a typed error", () => {
    expect(() => decodeEntry(new Uint8Array([0xff, 0x00, 0x13]))).toThrow(StreamEntryError);
    expect(() => decodeEntry(encodeEntry({ revision: 1, changes: [] }).subarray(0, 2))).toThrow(StreamEntryError);
  });
});
