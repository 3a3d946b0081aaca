/** The chaos test's after-run checks on synthetic data: each catches what it should. */
import { describe, expect, it } from "vitest";
import type { RevisionChange } from "../../services/apiserver/storage/kv.ts";
import { checkLinearizable } from "../support/linearizability/checker.ts";
import { kvModel } from "../support/linearizability/kv-model.ts";
import { lostWrites } from "./lost-writes.ts";
import type { KvOp } from "./recorder.ts";
import { checkAcknowledgedWrites, checkHistory, checkStream, type StreamRecord } from "./stream-check.ts";

const enc = new TextEncoder();
const history: RevisionChange[] = [2, 3, 4, 5].map((r) => ({
  revision: r,
  changes: [{ type: "PUT", key: "k", value: enc.encode(`v${r}`), createRevision: 2, modRevision: r, version: r - 1 }],
}));
const record = (r: number, value = `v${r}`): StreamRecord => ({
  id: `${r}-0`,
  entry: { revision: r, changes: [{ type: "PUT", key: "k", value: enc.encode(value), createRevision: 2, modRevision: r, version: r - 1 }] },
});

describe("chaos checks", () => {
  it("accept a whole stream and history", () => {
    expect(checkHistory(history, 5)).toEqual([]);
    expect(checkStream("s", [3, 4, 5].map((r) => record(r)), history, 5)).toEqual([]);
  });

  it("find a gap, a short stream, a wrong entry and a history hole", () => {
    expect(checkStream("s", [record(2), record(4), record(5)], history, 5).join()).toMatch(/gap or disorder: 2-0 then 4-0/);
    expect(checkStream("s", [record(2), record(3)], history, 5).join()).toMatch(/ends at 3/);
    expect(checkStream("s", [record(2), record(3, "other")], history, undefined).join()).toMatch(/revision 3 differs/);
    expect(checkHistory([history[0], history[2], history[3]], 5).join()).toMatch(/2 followed by 4/);
  });

  it("find an acknowledged write missing from the history", () => {
    const op: KvOp = { id: 1, client: 0, input: { kind: "put", key: "k", value: "mine" }, called: 0, returned: 1, output: { kind: "put", revision: 3 } };
    expect(checkAcknowledgedWrites([op], history).join()).toMatch(/#1 put\(k, mine\)@3/);
  });

  it("find a lost write in a linearization", () => {
    // The final read sees the value before the acknowledged put: a linearizable
    // history only if the put took effect before it, which the order must show.
    const ops: KvOp[] = [
      { id: 0, client: 0, input: { kind: "put", key: "k", value: "a" }, called: 0, returned: 10, output: { kind: "put" } },
      { id: 1, client: 1, input: { kind: "put", key: "k", value: "b" }, called: 0, returned: 10, output: { kind: "put" } },
      { id: 2, client: 2, input: { kind: "get", key: "k" }, called: 20, returned: 30, output: { kind: "get", value: "a" } },
    ];
    const res = checkLinearizable(kvModel, ops);
    expect(lostWrites(ops, res.partitions)).toEqual([]);
    const tampered = [{ partition: "k", ok: true as const, order: [0, 1, 2] }];
    expect(lostWrites(ops, tampered).join()).toMatch(/#1 \(b\)/);
  });
});
