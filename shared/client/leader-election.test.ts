/**
 * The pure core of leader election (decideLeaseAction) as a table: what a candidate
 * does with the Lease it read, its previous observation and its clock; and the
 * validation of the three durations.
 */
import { describe, expect, it } from "vitest";
import { decideLeaseAction, microTime, validateLeaderElectionTimes, type LeaseDecisionInput, type LeaseRecord } from "./leader-election.ts";

const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const held = (holder: string, extra: Partial<LeaseRecord> = {}): LeaseRecord => ({
  holderIdentity: holder,
  leaseDurationSeconds: 15,
  acquireTime: microTime(T0 - 60_000),
  renewTime: microTime(T0 - 1_000),
  leaseTransitions: 3,
  ...extra,
});

interface Row {
  name: string;
  input: Omit<LeaseDecisionInput, "identity" | "leaseDurationMs">;
  action: "create" | "update" | "wait";
  transitions?: number;
  acquiring?: boolean;
  expiresAtMs?: number;
  keepsAcquireTime?: boolean;
}

const rows: Row[] = [
  { name: "no lease: create it with 0 transitions", input: { current: undefined, previous: undefined, nowMs: T0 }, action: "create", transitions: 0 },
  { name: "another holder, first seen now: wait a full duration from now", input: { current: held("b"), previous: undefined, nowMs: T0 }, action: "wait", expiresAtMs: T0 + 15_000 },
  {
    name: "another holder, unchanged since 14.9 s: still wait",
    input: { current: held("b"), previous: { record: held("b"), observedAtMs: T0 - 14_900 }, nowMs: T0 },
    action: "wait",
    expiresAtMs: T0 + 100,
  },
  {
    name: "another holder, unchanged for the whole duration: take it over, one more transition",
    input: { current: held("b"), previous: { record: held("b"), observedAtMs: T0 - 15_000 }, nowMs: T0 },
    action: "update",
    transitions: 4,
    acquiring: true,
  },
  {
    name: "another holder renewed since the last look: the wait starts again (its clock is never read)",
    input: { current: held("b", { renewTime: microTime(T0 + 999_999) }), previous: { record: held("b"), observedAtMs: T0 - 60_000 }, nowMs: T0 },
    action: "wait",
    expiresAtMs: T0 + 15_000,
  },
  {
    name: "a released lease (empty holder): take it at once",
    input: { current: held("", { leaseDurationSeconds: 1 }), previous: undefined, nowMs: T0 },
    action: "update",
    transitions: 4,
    acquiring: true,
  },
  {
    name: "a 1 s lease is honoured by its own duration, not ours",
    input: { current: held("b", { leaseDurationSeconds: 1 }), previous: { record: held("b", { leaseDurationSeconds: 1 }), observedAtMs: T0 - 1_000 }, nowMs: T0 },
    action: "update",
    transitions: 4,
    acquiring: true,
  },
  {
    name: "our own lease: renew, same transitions and acquire time",
    input: { current: held("a"), previous: { record: held("a"), observedAtMs: T0 - 2_000 }, nowMs: T0 },
    action: "update",
    transitions: 3,
    acquiring: false,
    keepsAcquireTime: true,
  },
  {
    name: "our own lease even if long unrenewed: renew",
    input: { current: held("a"), previous: { record: held("a"), observedAtMs: T0 - 60_000 }, nowMs: T0 },
    action: "update",
    transitions: 3,
    acquiring: false,
    keepsAcquireTime: true,
  },
];

describe("decideLeaseAction", () => {
  for (const row of rows) {
    it(row.name, () => {
      const { decision } = decideLeaseAction({ ...row.input, identity: "a", leaseDurationMs: 15_000 });
      expect(decision.action).toBe(row.action);
      if (decision.action === "wait") {
        expect(decision.expiresAtMs).toBe(row.expiresAtMs);
        expect(decision.holder).toBe(row.input.current?.holderIdentity);
        return;
      }
      expect(decision.record.holderIdentity).toBe("a");
      expect(decision.record.leaseDurationSeconds).toBe(15);
      expect(decision.record.renewTime).toBe(microTime(row.input.nowMs));
      expect(decision.record.leaseTransitions).toBe(row.transitions);
      if (decision.action === "update") expect(decision.acquiring).toBe(row.acquiring);
      if (row.keepsAcquireTime) expect(decision.record.acquireTime).toBe(row.input.current?.acquireTime);
      else expect(decision.record.acquireTime).toBe(microTime(row.input.nowMs));
    });
  }

  it("keeps the first observation time while the record is unchanged", () => {
    const first = decideLeaseAction({ current: held("b"), previous: undefined, nowMs: T0, identity: "a", leaseDurationMs: 15_000 });
    const second = decideLeaseAction({ current: held("b"), previous: first.observation, nowMs: T0 + 5_000, identity: "a", leaseDurationMs: 15_000 });
    expect(second.observation?.observedAtMs).toBe(T0);
  });

  it("writes MicroTime with six fractional digits", () => {
    expect(microTime(Date.parse("2026-01-01T00:00:00.123Z"))).toBe("2026-01-01T00:00:00.123000Z");
  });
});

describe("validateLeaderElectionTimes", () => {
  const cases: Array<[number, number, number, string | undefined]> = [
    [15_000, 10_000, 2_000, undefined],
    [10_000, 10_000, 2_000, "leaseDuration must be greater than renewDeadline"],
    [15_000, 2_400, 2_000, "renewDeadline must be greater than retryPeriod*JitterFactor"],
    [0, 10_000, 2_000, "leaseDuration must be greater than zero"],
    [15_000, 10_000, 0, "retryPeriod must be greater than zero"],
  ];
  for (const [lease, renew, retry, error] of cases) {
    it(`${lease}/${renew}/${retry} → ${error ?? "valid"}`, () => {
      if (error) expect(() => validateLeaderElectionTimes(lease, renew, retry)).toThrow(error);
      else expect(() => validateLeaderElectionTimes(lease, renew, retry)).not.toThrow();
    });
  }
});
