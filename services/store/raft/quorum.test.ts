import { describe, expect, it } from "vitest";
import { VoteResult, jointCommittedIndex, jointVoteResult, majorityCommittedIndex, majorityVoteResult } from "./quorum.ts";

const acked = (m: Record<number, number | undefined>) => (id: number) => m[id];
const votes = (m: Record<number, boolean | undefined>) =>
  new Map(Object.entries(m).flatMap(([k, v]): [number, boolean][] => (v === undefined ? [] : [[Number(k), v]])));

describe("majority config", () => {
  it.each([
    { voters: [1], acks: { 1: 5 }, want: 5 },
    { voters: [1, 2, 3], acks: { 1: 5, 2: 3, 3: 1 }, want: 3 },
    { voters: [1, 2, 3], acks: { 1: 5 }, want: 0 },
    { voters: [1, 2, 3, 4], acks: { 1: 9, 2: 8, 3: 7, 4: 1 }, want: 7 },
    { voters: [1, 2, 3, 4, 5], acks: { 1: 9, 2: 8, 3: 2, 4: 2, 5: 1 }, want: 2 },
  ])("voters $voters with acks $acks commit $want", ({ voters, acks, want }) => {
    expect(majorityCommittedIndex(new Set(voters), acked(acks))).toBe(want);
  });

  it("an empty config commits everything so it is neutral in a joint config", () => {
    expect(majorityCommittedIndex(new Set(), acked({}))).toBe(Number.MAX_SAFE_INTEGER);
    expect(majorityVoteResult(new Set(), votes({}))).toBe(VoteResult.Won);
  });

  it.each([
    { voters: [1, 2, 3], v: { 1: true, 2: true }, want: VoteResult.Won },
    { voters: [1, 2, 3], v: { 1: true }, want: VoteResult.Pending },
    { voters: [1, 2, 3], v: { 1: true, 2: false, 3: false }, want: VoteResult.Lost },
    { voters: [1, 2, 3, 4], v: { 1: true, 2: true }, want: VoteResult.Pending },
    { voters: [1, 2, 3, 4], v: { 1: true, 2: false, 3: false }, want: VoteResult.Lost },
    { voters: [1, 2, 3], v: { 1: true, 9: true }, want: VoteResult.Pending },
  ])("voters $voters with votes $v -> $want", ({ voters, v, want }) => {
    expect(majorityVoteResult(new Set(voters), votes(v))).toBe(want);
  });
});

describe("joint config", () => {
  const cfg = { incoming: new Set([1, 2, 4]), outgoing: new Set([1, 2, 3]) };
  it("commits the minimum of both majorities", () => {
    expect(jointCommittedIndex(cfg, acked({ 1: 10, 2: 3, 3: 10, 4: 10 }))).toBe(10);
    expect(jointCommittedIndex(cfg, acked({ 1: 10, 2: 1, 3: 1, 4: 10 }))).toBe(1);
    expect(jointCommittedIndex({ incoming: new Set([1, 2, 3]), outgoing: new Set() }, acked({ 1: 4, 2: 4 }))).toBe(4);
  });
  it.each([
    { v: { 1: true, 4: true }, want: VoteResult.Pending },
    { v: { 1: true, 4: true, 3: true }, want: VoteResult.Won },
    { v: { 1: true, 4: true, 3: false, 2: false }, want: VoteResult.Lost },
    { v: { 1: true, 2: true }, want: VoteResult.Won },
  ])("votes $v -> $want", ({ v, want }) => {
    expect(jointVoteResult(cfg, votes(v))).toBe(want);
  });
});
