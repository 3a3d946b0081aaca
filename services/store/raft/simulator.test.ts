// Thousands of seeded schedules of 3- and 5-node groups under drops,
// duplicates, reordering, partitions, crashes and restarts; every action is
// followed by the safety checks, and every schedule ends with a calm phase
// that must elect a leader and commit a proposal on every node.
//
// LONG=1 runs ten times more schedules. A failure names its seed:
// replaySeed(seed) reruns it with a trace.
import { describe, expect, it } from "vitest";
import { SimulationError, replaySeed, runSchedule } from "./simulator.ts";

const LONG = process.env.LONG === "1";
const SCHEDULES = LONG ? 20_000 : 2_000;

describe("raft simulator", () => {
  it(`keeps every invariant over ${SCHEDULES} seeded schedules`, () => {
    const failures: string[] = [];
    const totals = { three: 0, five: 0, leaders: 0, committed: 0, crashes: 0, snapshots: 0, maxTerm: 0, calm: 0 };
    const started = performance.now();
    for (let seed = 1; seed <= SCHEDULES && failures.length < 3; seed++) {
      try {
        const r = runSchedule(seed);
        if (r.nodes === 3) totals.three++;
        else totals.five++;
        totals.leaders += r.leadersElected;
        totals.committed += r.committed;
        totals.crashes += r.crashes;
        totals.snapshots += r.snapshotsInstalled;
        totals.maxTerm = Math.max(totals.maxTerm, r.maxTerm);
        totals.calm = Math.max(totals.calm, r.calmSteps);
      } catch (e) {
        if (!(e instanceof SimulationError)) throw e;
        failures.push(e.message);
      }
    }
    const ms = Math.round(performance.now() - started);
    console.log(`raft simulator: ${SCHEDULES} schedules in ${ms} ms`, totals);
    expect(failures, failures.join("\n")).toEqual([]);
    // The schedules exercised what they are meant to (so that a pass means something).
    expect(totals.three).toBeGreaterThan(0);
    expect(totals.five).toBeGreaterThan(0);
    expect(totals.leaders).toBeGreaterThan(2 * SCHEDULES);
    expect(totals.committed).toBeGreaterThan(10 * SCHEDULES);
    expect(totals.crashes).toBeGreaterThan(SCHEDULES / 2);
    expect(totals.snapshots).toBeGreaterThan(SCHEDULES / 10);
  }, 300_000);

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
