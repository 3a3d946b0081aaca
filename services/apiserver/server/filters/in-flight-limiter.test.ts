import { describe, expect, it } from "vitest";
import { StatusError } from "../../../../shared/api/status.ts";
import { InFlightLimiter, type SeatRequest } from "./in-flight-limiter.ts";

const req = (user: string, pool: SeatRequest["pool"] = "mutating", privileged = false): SeatRequest => ({ pool, user, privileged });

function refused(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
}

describe("in-flight limiter", () => {
  it.each([
    // [pool size, min user seats, requests of one user admitted before a refusal]
    { max: 8, min: 2, alone: 4 }, // half the pool: one share stays free for a newcomer
    { max: 200, min: 4, alone: 100 },
    { max: 10, min: 8, alone: 5 }, // the minimum is at most half the pool
    { max: 12, min: 2, alone: 6 },
    { max: 3, min: 4, alone: 1 }, // a tiny pool still keeps room for others
    { max: 1, min: 4, alone: 1 },
  ])("a lone user of a pool of $max holds at most $alone seats", ({ max, min, alone }) => {
    const l = new InFlightLimiter({ maxReadOnly: max, maxMutating: max, minUserSeats: min });
    for (let i = 0; i < alone; i++) l.acquire(req("mallory"));
    const err = refused(() => l.acquire(req("mallory")));
    expect(err.status).toMatchObject({ code: 429, reason: "TooManyRequests", message: "Too many requests, please try again later.", details: { retryAfterSeconds: 1 } });
    expect(l.seatsInUse("mutating", "mallory")).toBe(alone);
  });

  it("gives each user at least the minimum when many are active", () => {
    const l = new InFlightLimiter({ maxReadOnly: 100, maxMutating: 100, minUserSeats: 4 });
    for (let u = 0; u < 20; u++) l.acquire(req(`user-${u}`));
    // 20 active users: floor(100 / 21) = 4 = the minimum
    for (let i = 0; i < 3; i++) l.acquire(req("user-0"));
    expect(() => l.acquire(req("user-0"))).toThrow(StatusError);
    expect(l.seatsInUse("mutating", "user-0")).toBe(4);
  });

  it("keeps room for other users while one user holds its share", () => {
    const l = new InFlightLimiter({ maxReadOnly: 8, maxMutating: 8, minUserSeats: 1 });
    for (let i = 0; i < 4; i++) l.acquire(req("mallory"));
    expect(() => l.acquire(req("mallory"))).toThrow(StatusError);
    // with two active users the share is floor(8 / 3) = 2
    l.acquire(req("alice"));
    l.acquire(req("alice"));
    expect(() => l.acquire(req("alice"))).toThrow(StatusError);
    l.acquire(req("bob"));
    l.acquire(req("bob"));
    expect(l.seatsInUse("mutating")).toBe(8);
    expect(() => l.acquire(req("carol"))).toThrow(StatusError); // the pool is full
  });

  it("never refuses system:masters: seats when there is room, none when the pool is full", () => {
    const l = new InFlightLimiter({ maxReadOnly: 2, maxMutating: 2, minUserSeats: 2 });
    l.acquire(req("mallory"));
    l.acquire(req("alice"));
    const releases = [0, 1, 2].map(() => l.acquire(req("admin", "mutating", true)));
    expect(l.counts.mutating).toBe(5);
    expect(l.seatsInUse("mutating", "admin")).toBe(0);
    for (const r of releases) r();
    expect(l.counts.mutating).toBe(2);
  });

  it("counts every request as one seat of its pool, and releases once", () => {
    const l = new InFlightLimiter({ maxReadOnly: 2, maxMutating: 1, minUserSeats: 2 });
    const first = l.acquire(req("alice", "readOnly"));
    expect(l.seatsInUse("readOnly")).toBe(1);
    first();
    first();
    expect(l.seatsInUse("readOnly")).toBe(0);
    l.acquire(req("alice", "readOnly"));
    l.acquire(req("bob", "readOnly"));
    expect(() => l.acquire(req("carol", "readOnly"))).toThrow(StatusError);
    // pools are separate
    l.acquire(req("bob", "mutating"));
    expect(l.counts).toEqual({ readOnly: 2, mutating: 1 });
  });

  it("does not limit a pool of size 0", () => {
    const l = new InFlightLimiter({ maxReadOnly: 0, maxMutating: 0 });
    for (let i = 0; i < 1000; i++) l.acquire(req("mallory"));
    expect(l.counts.mutating).toBe(1000);
  });
});
