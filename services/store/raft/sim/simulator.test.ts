// Thousands of seeded schedules of 3- and 5-node groups (plus two spare
// nodes) under drops, duplicates, reordering, partitions, crashes and
// restarts, with membership changes (voters and learners added, promoted,
// demoted and removed, the leader included, simple and joint); every action
// is followed by the safety checks, and every schedule ends with a calm phase
// that must elect a leader and commit a proposal on every member. A smaller
// batch runs the fixed-membership schedules.
//
// The calm phase's goal is waived only where it cannot be fair: some live
// voter's configuration lacks a quorum of live voters because a removed
// member shut down before the others learned of its removal (the case
// retirement.ts documents as not guaranteed). Such seeds are printed, and
// they must stay rare: a retirement policy that lets removed members leave
// too early would show up here.
//
// LONG=1 runs ten times more schedules. A failure names its seed:
// replaySeed(seed) reruns it with a trace.
import { describe, expect, it } from "vitest";
import { SimulationError, replaySeed, runSchedule } from "./simulator.ts";
import type { SimOptions } from "./simulator.ts";

const LONG = process.env.LONG === "1";
const SCHEDULES = LONG ? 20_000 : 2_000;
const STATIC_SCHEDULES = LONG ? 5_000 : 500;

interface Totals {
  three: number;
  five: number;
  leaders: number;
  committed: number;
  crashes: number;
  snapshots: number;
  maxTerm: number;
  calm: number;
  confChanges: number;
  added: number;
  removed: number;
  promoted: number;
  jointEntered: number;
  jointLeft: number;
  leadersRemoved: number;
  retiredEstablished: number;
  retiredUnneeded: number;
  /** Seeds whose liveness goal was waived (see above). */
  waived: number[];
}

function runMany(first: number, count: number, opts: SimOptions): { totals: Totals; failures: string[] } {
  const failures: string[] = [];
  const totals: Totals = { three: 0, five: 0, leaders: 0, committed: 0, crashes: 0, snapshots: 0, maxTerm: 0, calm: 0, confChanges: 0, added: 0, removed: 0, promoted: 0, jointEntered: 0, jointLeft: 0, leadersRemoved: 0, retiredEstablished: 0, retiredUnneeded: 0, waived: [] };
  const started = performance.now();
  for (let seed = first; seed < first + count && failures.length < 3; seed++) {
    try {
      const r = runSchedule(seed, opts);
      if (r.nodes === 3) totals.three++;
      else totals.five++;
      totals.leaders += r.leadersElected;
      totals.committed += r.committed;
      totals.crashes += r.crashes;
      totals.snapshots += r.snapshotsInstalled;
      totals.maxTerm = Math.max(totals.maxTerm, r.maxTerm);
      totals.calm = Math.max(totals.calm, r.calmSteps);
      totals.confChanges += r.membership.confChanges;
      totals.added += r.membership.added;
      totals.removed += r.membership.removed;
      totals.promoted += r.membership.promoted;
      totals.jointEntered += r.membership.jointEntered;
      totals.jointLeft += r.membership.jointLeft;
      totals.leadersRemoved += r.membership.leadersRemoved;
      totals.retiredEstablished += r.retired.established;
      totals.retiredUnneeded += r.retired.unneeded;
      if (r.livenessWaived !== undefined) {
        totals.waived.push(seed);
        console.log(`raft simulator: seed ${seed}: liveness goal waived: ${r.livenessWaived}`);
      }
    } catch (e) {
      if (!(e instanceof SimulationError)) throw e;
      failures.push(e.message);
    }
  }
  const ms = Math.round(performance.now() - started);
  console.log(`raft simulator: ${count} schedules (membership ${opts.membership !== false}) in ${ms} ms`, totals);
  return { totals, failures };
}

describe("raft simulator", () => {
  it(`keeps every invariant over ${SCHEDULES} seeded schedules with membership changes`, () => {
    const { totals, failures } = runMany(1, SCHEDULES, {});
    expect(failures, failures.join("\n")).toEqual([]);
    // The schedules exercised what they are meant to (so that a pass means something).
    expect(totals.three).toBeGreaterThan(0);
    expect(totals.five).toBeGreaterThan(0);
    expect(totals.leaders).toBeGreaterThan(2 * SCHEDULES);
    expect(totals.committed).toBeGreaterThan(10 * SCHEDULES);
    expect(totals.crashes).toBeGreaterThan(SCHEDULES / 2);
    expect(totals.snapshots).toBeGreaterThan(SCHEDULES / 10);
    expect(totals.confChanges).toBeGreaterThan(SCHEDULES);
    expect(totals.added).toBeGreaterThan(SCHEDULES / 2);
    expect(totals.removed).toBeGreaterThan(SCHEDULES / 2);
    expect(totals.promoted).toBeGreaterThan(SCHEDULES / 20);
    expect(totals.jointEntered).toBeGreaterThan(SCHEDULES / 5);
    expect(totals.jointLeft).toBeGreaterThan(SCHEDULES / 5);
    expect(totals.leadersRemoved).toBeGreaterThan(SCHEDULES / 20);
    expect(totals.retiredUnneeded).toBeGreaterThan(SCHEDULES / 20);
    expect(totals.waived.length).toBeLessThanOrEqual(Math.ceil(SCHEDULES / 2000));
  }, 600_000);

  it(`keeps every invariant over ${STATIC_SCHEDULES} seeded schedules with a fixed membership`, () => {
    const { totals, failures } = runMany(1, STATIC_SCHEDULES, { membership: false });
    expect(failures, failures.join("\n")).toEqual([]);
    expect(totals.confChanges).toBe(0);
    expect(totals.waived).toEqual([]);
    expect(totals.leaders).toBeGreaterThan(2 * STATIC_SCHEDULES);
    expect(totals.committed).toBeGreaterThan(10 * STATIC_SCHEDULES);
  }, 600_000);

  it("reproduces a schedule from its seed alone", () => {
    const a = replaySeed(4242);
    const b = replaySeed(4242);
    expect(a.trace.length).toBeGreaterThan(100);
    expect(b.trace).toEqual(a.trace);
    expect(runSchedule(4243).trace).toEqual([]);
  });

  it("digests a schedule's Readies reproducibly, and only when asked", () => {
    const a = runSchedule(77, { digest: true });
    expect(a.digest).toMatch(/^[0-9a-f]{16}$/);
    expect(runSchedule(77, { digest: true }).digest).toBe(a.digest);
    expect(runSchedule(78, { digest: true }).digest).not.toBe(a.digest);
    expect(runSchedule(77).digest).toBe("");
  });

  it("catches a broken application that sends before persisting, naming the seed", () => {
    const caught: string[] = [];
    for (let seed = 1; seed <= 300 && caught.length === 0; seed++) {
      try {
        runSchedule(seed, { unsafeSendBeforePersist: true });
      } catch (e) {
        if (!(e instanceof SimulationError)) throw e;
        expect(e.seed).toBe(seed);
        expect(e.message).toContain(`replaySeed(${seed})`);
        caught.push(e.message);
      }
    }
    expect(caught).toHaveLength(1);
  });
});
