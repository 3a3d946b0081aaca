import { describe, expect, it } from "vitest";
import type { FlowControlConfig, PriorityLevelView } from "../contract.ts";
import { FlowController } from "./controller.ts";
import { rfc3339Nano, tabulate } from "./dump.ts";
import { flowHash } from "./shuffle-shard.ts";

const exempt: PriorityLevelView = { name: "exempt", uid: "u-exempt", type: "Exempt", nominalConcurrencyShares: 0, lendablePercent: 0 };
const queued = (name: string, shares: number, lendablePercent: number): PriorityLevelView => ({
  name,
  uid: `u-${name}`,
  type: "Limited",
  nominalConcurrencyShares: shares,
  lendablePercent,
  limitResponse: { type: "Queue", queuing: { queues: 4, handSize: 2, queueLengthLimit: 10 } },
});
const config = (...levels: PriorityLevelView[]): FlowControlConfig => ({ flowSchemas: [], priorityLevels: levels });
const spec = (fs: string, user: string) => ({ flowSchema: fs, distinguisher: user, hash: flowHash(fs, user), seats: 1 });

describe("flow controller", () => {
  it("without demand, a level that can lend gives its seats to one that cannot, from the start", () => {
    const c = new FlowController({ serverConcurrencyLimit: 20, now: () => 0 }, config(exempt, queued("fixed", 10, 0), queued("lender", 10, 100)));
    // lower bounds 10 and 0: the allocation in proportion to them gives "fixed" the 20 seats
    expect(c.level("fixed")?.currentLimit).toBe(20);
    expect(c.level("lender")?.currentLimit).toBe(0);
  });

  it("a busy level borrows the seats an idle level lends, at the next adjustment", () => {
    let now = 0;
    const c = new FlowController({ serverConcurrencyLimit: 20, now: () => now }, config(exempt, queued("busy", 10, 50), queued("idle", 10, 50)));
    expect(c.level("busy")?.currentLimit).toBe(10);
    expect(c.level("idle")?.currentLimit).toBe(10);
    for (let i = 0; i < 30; i++) c.start("busy", spec("busy", `u${i}`));
    expect(c.level("busy")?.queues.seatsInUse).toBe(10);
    now += 10_000;
    c.adjust();
    // busy's smoothed demand is 30 seats, idle's none: idle keeps its lower bound (5), busy takes the rest
    expect(c.level("idle")?.currentLimit).toBe(5);
    expect(c.level("busy")?.currentLimit).toBe(15);
    expect(c.level("busy")?.queues.seatsInUse).toBe(15);
  });

  it("a configuration change re-divides the seats by the demand seen so far, as the platform's digest does", () => {
    let now = 0;
    const levels = config(exempt, queued("busy", 10, 50), queued("idle", 10, 50));
    const c = new FlowController({ serverConcurrencyLimit: 20, now: () => now }, levels);
    for (let i = 0; i < 30; i++) c.start("busy", spec("busy", `u${i}`));
    now += 4_000;
    c.apply(config(exempt, queued("busy", 10, 50), queued("idle", 10, 50), queued("new", 0, 0)));
    // before the next periodic adjustment: the 4 s of demand already count
    expect(c.level("busy")?.currentLimit).toBe(15);
    expect(c.level("busy")?.queues.seatsInUse).toBe(15);
    expect(c.level("new")?.currentLimit).toBe(0);
  });

  it("a removed level keeps draining (quiescing) and is dropped once idle", () => {
    const c = new FlowController({ serverConcurrencyLimit: 10 }, config(exempt, queued("old", 10, 0)));
    const started = c.start("old", spec("old", "u"));
    c.apply(config(exempt, queued("new", 10, 0)));
    expect(c.level("old")?.quiescing).toBe(true);
    expect(c.dumpPriorityLevels()).toContain("old,");
    if (started) c.finish(started.level, started.request, 0.01, false);
    expect(c.level("old")).toBeUndefined();
    expect(c.level("new")?.currentLimit).toBe(10);
  });

  it("dumps align their columns like Go's tabwriter and print times as RFC 3339 with nanoseconds", () => {
    expect(tabulate([["PriorityLevelName", "IsIdle", "X"], ["exempt", "true", "0"]])).toBe("PriorityLevelName, IsIdle, X\nexempt,            true,   0\n");
    expect(rfc3339Nano(Date.UTC(2026, 10, 26, 8, 0, 0, 120))).toBe("2026-11-26T08:00:00.12Z");
    expect(rfc3339Nano(Date.UTC(2026, 10, 26, 8, 0, 0, 0))).toBe("2026-11-26T08:00:00Z");
    expect(rfc3339Nano(undefined)).toBe("0001-01-01T00:00:00Z");
    const c = new FlowController({ serverConcurrencyLimit: 4 }, config(exempt, queued("pl", 4, 0)));
    const queues = c.dumpQueues().trimEnd().split("\n");
    expect(queues[0].split(/,\s*/)).toEqual(["PriorityLevelName", "Index", "PendingRequests", "ExecutingRequests", "SeatsInUse", "NextDispatchR", "InitialSeatsSum", "MaxSeatsSum", "TotalWorkSum"]);
    expect(queues.slice(1).map((l) => l.split(/,\s*/)[0])).toEqual(["pl", "pl", "pl", "pl"]);
    expect(queues[1]).toMatch(/0\.00000000ss/);
  });
});
