/** The cluster chaos suite's pure after-run checks, on tables of synthetic data. */
import { describe, expect, it } from "vitest";
import type { RevisionChange } from "../../services/apiserver/storage/kv.ts";
import type { UncertainWrite } from "./api-recorder.ts";
import { brokenFigures, type ChaosFigures } from "./chaos-report.ts";
import { configMapForm, longestUnavailability, settleUncertainWrites } from "./outcomes.ts";
import type { KvOp } from "./recorder.ts";
import { checkAcknowledgedWrites } from "./stream-check.ts";
import { checkWatcher, expectedEvents, type ExpectedEvent } from "./watch-check.ts";

const enc = new TextEncoder();
const KEY = (name: string) => `/registry/core/configmaps/chaos/${name}`;
const stored = (v: string) => enc.encode(JSON.stringify({ kind: "ConfigMap", metadata: { name: "k" }, data: { v } }));
const put = (revision: number, name: string, v: string, createRevision = revision): RevisionChange => ({
  revision,
  changes: [{ type: "PUT", key: KEY(name), value: stored(v), createRevision, modRevision: revision, version: 1 }],
});
const del = (revision: number, name: string, prev: string): RevisionChange => ({
  revision,
  changes: [{ type: "DELETE", key: KEY(name), prevValue: stored(prev), createRevision: 0, modRevision: revision, version: 0 }],
});
const history: RevisionChange[] = [put(2, "a", "c0-0"), put(3, "a", "c1-0", 2), { revision: 4, changes: [{ type: "PUT", key: "/registry/core/configmaps/other/a", value: stored("x"), createRevision: 4, modRevision: 4, version: 1 }] }, del(5, "a", "c1-0")];

describe("watch check", () => {
  const expected = expectedEvents(history, "chaos");
  const ev = (type: string, name: string, revision: number) => ({ type, name, revision });

  it("derives ADDED, MODIFIED and DELETED events of the namespace only", () => {
    expect(expected).toEqual<ExpectedEvent[]>([ev("ADDED", "a", 2), ev("MODIFIED", "a", 3), ev("DELETED", "a", 5)] as ExpectedEvent[]);
  });

  const cases: Array<{ name: string; received: ReturnType<typeof ev>[]; gaps?: Array<{ from: number; to: number }>; start?: number; want: Partial<Record<"lost" | "duplicated" | "outOfOrder" | "wrong" | "relisted", number>> }> = [
    { name: "all, once, in order", received: [ev("ADDED", "a", 2), ev("MODIFIED", "a", 3), ev("DELETED", "a", 5)], want: {} },
    { name: "one lost", received: [ev("ADDED", "a", 2), ev("DELETED", "a", 5)], want: { lost: 1 } },
    { name: "one twice", received: [ev("ADDED", "a", 2), ev("MODIFIED", "a", 3), ev("MODIFIED", "a", 3), ev("DELETED", "a", 5)], want: { duplicated: 1 } },
    { name: "two swapped", received: [ev("ADDED", "a", 2), ev("DELETED", "a", 5), ev("MODIFIED", "a", 3)], want: { outOfOrder: 1 } },
    { name: "wrong type", received: [ev("MODIFIED", "a", 2), ev("MODIFIED", "a", 3), ev("DELETED", "a", 5)], want: { wrong: 1 } },
    { name: "an event that never happened", received: [ev("ADDED", "a", 2), ev("MODIFIED", "a", 3), ev("MODIFIED", "a", 4), ev("DELETED", "a", 5)], want: { wrong: 1 } },
    { name: "skipped by a relist after 410", received: [ev("ADDED", "a", 2), ev("DELETED", "a", 5)], gaps: [{ from: 2, to: 4 }], want: { relisted: 1 } },
    { name: "starting later", received: [ev("DELETED", "a", 5)], start: 3, want: {} },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const f = checkWatcher(expected, c.start ?? 1, c.received, c.gaps ?? []);
      expect({ lost: f.lost, duplicated: f.duplicated, outOfOrder: f.outOfOrder, wrong: f.wrong, relisted: f.relisted }).toEqual({ lost: 0, duplicated: 0, outOfOrder: 0, wrong: 0, relisted: 0, ...c.want });
    });
  }
});

describe("outcomes of writes without a definite answer", () => {
  const op = (id: number, input: KvOp["input"]): KvOp => ({ id, client: 0, input, called: 0 });
  const uncertain = (o: KvOp, value: string, failure: UncertainWrite["failure"] = "5xx"): UncertainWrite => ({ op: o, failure, status: 500, message: "", value, during: "kill-store-leader" });

  const cases: Array<{ name: string; write: UncertainWrite; deletedIds?: number[]; deleteTargets?: Array<[number, string]>; committed: boolean }> = [
    { name: "a put whose value is stored", write: uncertain(op(1, { kind: "put", key: "a", value: "c1-0" }), "c1-0"), committed: true },
    { name: "a put whose value is not", write: uncertain(op(1, { kind: "put", key: "a", value: "c9-9" }), "c9-9"), committed: false },
    { name: "a value that is a prefix of a stored one", write: uncertain(op(1, { kind: "put", key: "a", value: "c1-" }), "c1-"), committed: false },
    { name: "a value stored under another key", write: uncertain(op(1, { kind: "cas", key: "b", expect: { modRevision: 0 }, value: "c0-0" }), "c0-0"), committed: false },
    { name: "a delete of the version it targeted", write: uncertain(op(7, { kind: "delete", key: "a" }), "c1-0"), deleteTargets: [[7, "c1-0"]], committed: true },
    { name: "a delete whose version an acknowledged delete removed", write: uncertain(op(7, { kind: "delete", key: "a" }), "c1-0"), deleteTargets: [[7, "c1-0"], [8, "c1-0"]], deletedIds: [8], committed: false },
    { name: "a delete of a version never deleted", write: uncertain(op(7, { kind: "delete", key: "a" }), "c0-0"), deleteTargets: [[7, "c0-0"]], committed: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const [settled] = settleUncertainWrites([c.write], history, "chaos", new Map(c.deleteTargets ?? []), new Set(c.deletedIds ?? []));
      expect(settled.committed).toBe(c.committed);
    });
  }

  it("acknowledged writes are found in their stored form", () => {
    const acked = (value: string, revision: number): KvOp => ({ id: 1, client: 0, input: { kind: "put", key: "a", value }, called: 0, returned: 1, output: { kind: "put", revision } });
    expect(checkAcknowledgedWrites([acked("c1-0", 3)], history, configMapForm("chaos"))).toEqual([]);
    expect(checkAcknowledgedWrites([acked("c1-0", 2)], history, configMapForm("chaos")).join()).toMatch(/#1 put\(a, c1-0\)@2/);
  });
});

describe("longest unavailability", () => {
  const done = (returned: number): KvOp => ({ id: returned, client: 0, input: { kind: "get", key: "a" }, called: returned - 1, returned, output: { kind: "get", value: null } });
  const cases: Array<{ name: string; returns: number[]; from: number; to: number; want: { ms: number; at: number } }> = [
    { name: "no operation at all", returns: [], from: 0, to: 1000, want: { ms: 1000, at: 0 } },
    { name: "the largest gap between returns", returns: [100, 200, 900, 1000], from: 0, to: 1000, want: { ms: 700, at: 200 } },
    { name: "the stretch before the first", returns: [600, 700], from: 0, to: 800, want: { ms: 600, at: 0 } },
    { name: "the stretch after the last", returns: [100], from: 0, to: 1000, want: { ms: 900, at: 100 } },
  ];
  for (const c of cases) it(c.name, () => expect(longestUnavailability(c.returns.map(done), c.from, c.to)).toEqual(c.want));
});

describe("broken figures", () => {
  const clean: ChaosFigures = {
    seed: 1,
    seconds: 1,
    faults: [],
    operations: 10,
    acknowledgedWrites: 5,
    uncertain: { "5xx": 1, timeout: 0, connection: 2, unexpected: 0 },
    committed: { "5xx": 0, timeout: 0, connection: 1, unexpected: 0 },
    acknowledgedWritesLost: 0,
    lostSamples: [],
    linearizable: true,
    linearizabilityDetail: "",
    watchers: [{ received: 3, expected: 3, lost: 0, duplicated: 0, outOfOrder: 0, wrong: 0, relisted: 0, samples: [] }],
    longestUnavailability: { ms: 10, at: 0 },
    unavailabilityDuring: "no fault",
    errors: {},
    committedFailureFaults: [],
    connectionLostDuring: { "kill-replica": 1 },
  };
  const cases: Array<{ name: string; change: Partial<ChaosFigures>; broken: RegExp | undefined }> = [
    { name: "a clean run (a committed write whose connection was lost is reported, not broken)", change: {}, broken: undefined },
    { name: "a lost acknowledged write", change: { acknowledgedWritesLost: 1 }, broken: /acknowledged writes lost: 1/ },
    { name: "a committed write answered 5xx", change: { committed: { "5xx": 1, timeout: 0, connection: 0, unexpected: 0 }, committedFailureFaults: ["kill-store-leader"] }, broken: /answered as failures: 1 \(during kill-store-leader\)/ },
    { name: "a committed write timed out", change: { committed: { "5xx": 0, timeout: 1, connection: 0, unexpected: 0 } }, broken: /answered as failures: 1/ },
    { name: "an unexpected answer", change: { uncertain: { "5xx": 0, timeout: 0, connection: 0, unexpected: 1 } }, broken: /unexpected answers to writes: 1/ },
    { name: "a duplicated watch event", change: { watchers: [{ ...clean.watchers[0], duplicated: 1 }] }, broken: /watch events duplicated: 1/ },
    { name: "a history that is not linearizable", change: { linearizable: false }, broken: /linearizable: false/ },
    { name: "a check that could not decide", change: { linearizable: "unknown" }, broken: /linearizable: unknown/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const broken = brokenFigures({ ...clean, ...c.change });
      if (c.broken === undefined) expect(broken).toEqual([]);
      else expect(broken.join("\n")).toMatch(c.broken);
    });
  }
});
