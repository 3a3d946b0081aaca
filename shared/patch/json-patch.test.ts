import { describe, expect, it } from "vitest";
import { applyJsonPatchBounded, JsonPatchError, type JsonPatchErrorKind } from "./json-patch.ts";

const doc = { metadata: { name: "a" }, data: { k: "v" }, list: [1, 2] };

/** Patch, limits, and the expected error kind with a fragment of its message. */
const REFUSED: Array<[string, unknown, { maxOperations?: number; maxCopyBytes?: number }, JsonPatchErrorKind, string]> = [
  ["not an array", { op: "add" }, {}, "malformed", "must be an array"],
  ["over the operation cap", [{ op: "test", path: "/data/k", value: "v" }, { op: "test", path: "/data/k", value: "v" }], { maxOperations: 1 }, "too-many-operations", "maximum operations in a JSON patch is 1, got 2"],
  ["copy over budget", [{ op: "copy", from: "/data", path: "/d2" }], { maxCopyBytes: 5 }, "copy-limit", "exceeding the limit 5"],
  ["missing path", [{ op: "remove", path: "/data/none" }], {}, "apply", 'remove operation does not apply: doc is missing path: "/data/none"'],
  ["failed test", [{ op: "test", path: "/data/k", value: "w" }], {}, "apply", "testing value /data/k failed"],
  ["unknown op", [{ op: "explode", path: "/a" }], {}, "apply", "Unexpected kind: explode"],
  ["bad pointer", [{ op: "add", path: "data", value: 1 }], {}, "apply", "invalid JSON pointer"],
  ["index out of range", [{ op: "add", path: "/list/5", value: 1 }], {}, "apply", "invalid index"],
];

describe("bounded JSON patch engine", () => {
  it.each(REFUSED)("%s is a typed refusal and leaves the input untouched", async (_name, ops, limits, kind, fragment) => {
    const before = JSON.stringify(doc);
    const err = await applyJsonPatchBounded(doc, ops, limits).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JsonPatchError);
    expect((err as JsonPatchError).kind).toBe(kind);
    expect((err as JsonPatchError).message).toContain(fragment);
    expect(JSON.stringify(doc)).toBe(before);
  });

  it("the amplifying copy patch stops at the byte budget", async () => {
    const ops: unknown[] = [{ op: "add", path: "/m", value: { x: "y".repeat(1000) } }];
    for (let i = 0; i < 40; i++) ops.push({ op: "copy", from: "/m", path: `/m/c${i}` });
    const err = await applyJsonPatchBounded({}, ops).catch((e: unknown) => e);
    expect((err as JsonPatchError).kind).toBe("copy-limit");
  });

  it("applies within the limits on a copy", async () => {
    const out = await applyJsonPatchBounded(doc, [{ op: "copy", from: "/data/k", path: "/data/k2" }, { op: "move", from: "/list/0", path: "/list/-" }]);
    expect(out).toEqual({ metadata: { name: "a" }, data: { k: "v", k2: "v" }, list: [2, 1] });
    expect(doc.list).toEqual([1, 2]);
  });
});
