/**
 * The decision core of unambiguous write answers (storage/write-outcome.ts): from the
 * key's state after the fence, and where needed from its changes since, whether a write
 * whose txn call failed ambiguously committed, and at which revision.
 */
import { describe, expect, it } from "vitest";
import { judgeFromCurrent, judgeFromHistory, MIN_RESOLVE_BUDGET_MS, resolveBudgetMs, type Verdict, type WriteIntent } from "../../services/apiserver/storage/write-outcome.ts";
import type { KeyChange } from "../../services/apiserver/storage/kv.ts";

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const KEY = "/registry/configmaps/default/a";
const OURS = bytes('{"metadata":{"uid":"u-ours","name":"a"},"data":{"k":"2"}}');
const OTHER = bytes('{"metadata":{"uid":"u-other","name":"a"},"data":{"k":"3"}}');

const create: WriteIntent = { kind: "create", key: KEY, value: OURS };
const update: WriteIntent = { kind: "update", key: KEY, value: OURS, baseRevision: 10 };
const del: WriteIntent = { kind: "delete", key: KEY, baseRevision: 10 };

const at = (value: Uint8Array, createRevision: number, modRevision: number) => ({ value, createRevision, modRevision });
const put = (modRevision: number, value: Uint8Array, version: number, key = KEY): KeyChange => ({ type: "PUT", key, value, createRevision: modRevision - version + 1, modRevision, version });
const gone = (modRevision: number, key = KEY): KeyChange => ({ type: "DELETE", key, createRevision: 0, modRevision, version: 0 });

describe("judgeFromCurrent", () => {
  it.each<[string, WriteIntent, ReturnType<typeof at> | undefined, Verdict]>([
    ["create, key absent: not committed", create, undefined, { outcome: "not-committed" }],
    ["create, our bytes: committed at the creating revision", create, at(OURS, 12, 12), { outcome: "committed", revision: 12 }],
    ["create, our bytes updated to the same bytes since: still the creating revision", create, at(OURS, 12, 14), { outcome: "committed", revision: 12 }],
    ["create, other bytes: the creating revision decides", create, at(OTHER, 12, 15), { outcome: "history", after: 11 }],
    ["update, key at the compared revision: not committed", update, at(OTHER, 5, 10), { outcome: "not-committed" }],
    ["update, our bytes after the compared revision: committed there", update, at(OURS, 5, 11), { outcome: "committed", revision: 11 }],
    ["update, other bytes after the compared revision: history", update, at(OTHER, 5, 13), { outcome: "history", after: 10 }],
    ["update, key gone: history", update, undefined, { outcome: "history", after: 10 }],
    ["delete, key at the compared revision: not committed", del, at(OTHER, 5, 10), { outcome: "not-committed" }],
    ["delete, key gone: history", del, undefined, { outcome: "history", after: 10 }],
    ["delete, key recreated: history", del, at(OTHER, 12, 12), { outcome: "history", after: 10 }],
  ])("%s", (_name, intent, current, expected) => {
    expect(judgeFromCurrent(intent, current)).toEqual(expected);
  });
});

describe("judgeFromHistory", () => {
  it.each<[string, WriteIntent, KeyChange[], Verdict]>([
    ["create: our bytes created the key", create, [put(12, OURS, 1), put(13, OTHER, 2)], { outcome: "committed", revision: 12 }],
    ["create: another write created the key", create, [put(12, OTHER, 1)], { outcome: "not-committed" }],
    ["create: our bytes only as a later update are not our create", create, [put(12, OTHER, 1), put(13, OURS, 2)], { outcome: "not-committed" }],
    ["create: other keys' changes are ignored", create, [put(12, OURS, 1, "/registry/configmaps/default/b")], { outcome: "not-committed" }],
    ["update: ours is the first change after the compared revision", update, [put(11, OURS, 3), put(12, OTHER, 4)], { outcome: "committed", revision: 11 }],
    ["update: another write came first (ours then failed its compare)", update, [put(11, OTHER, 3), put(12, OURS, 4)], { outcome: "not-committed" }],
    ["update: a delete came first", update, [gone(11)], { outcome: "not-committed" }],
    ["update: no change after the compared revision", update, [put(9, OURS, 2), put(10, OTHER, 3)], { outcome: "not-committed" }],
    ["delete: the first change is a delete", del, [gone(11), put(12, OTHER, 1)], { outcome: "committed", revision: 11 }],
    ["delete: the first change is an update", del, [put(11, OTHER, 3), gone(12)], { outcome: "not-committed" }],
    ["delete: no change", del, [], { outcome: "not-committed" }],
  ])("%s", (_name, intent, changes, expected) => {
    expect(judgeFromHistory(intent, changes)).toEqual(expected);
  });
});

describe("resolveBudgetMs: how long a resolution may wait for the store", () => {
  it.each<[string, number | undefined, number, number]>([
    ["a fast failure with a store client of 15 s: the client's budget (an election under load can take seconds)", 15_000, 5, 15_000],
    ["a slow failure: twice the time it took", 1500, 1000, 2000],
    ["a failure slower than half the client's budget: twice its time", 15_000, 10_000, 20_000],
    ["no client budget known: at least the minimum", undefined, 5, MIN_RESOLVE_BUDGET_MS],
  ])("%s", (_name, unavailableBudgetMs, failedAfterMs, expected) => {
    expect(resolveBudgetMs({ unavailableBudgetMs }, failedAfterMs)).toBe(expected);
  });
});
