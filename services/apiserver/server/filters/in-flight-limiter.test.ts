import { describe, expect, it } from "vitest";
import { StatusError } from "../../../../shared/api/status.ts";
import { InFlightLimiter, type SeatRequest } from "./in-flight-limiter.ts";

const req = (pool: SeatRequest["pool"] = "mutating", privileged = false): SeatRequest => ({ pool, privileged });

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
  it.each([1, 3, 8, 200])("lets the requests of a pool of %i fill it, then refuses with 429 and Retry-After 1", (max) => {
    // The platform's max-in-flight filter has no per-user share: one user's requests take every seat.
    const l = new InFlightLimiter({ maxReadOnly: max, maxMutating: max });
    for (let i = 0; i < max; i++) l.acquire(req());
    const err = refused(() => l.acquire(req()));
    expect(err.status).toMatchObject({ code: 429, reason: "TooManyRequests", message: "Too many requests, please try again later.", details: { retryAfterSeconds: 1 } });
    expect(l.seatsInUse("mutating")).toBe(max);
    expect(l.counts.mutating).toBe(max);
  });

  it("frees a seat for the next request when one is released", () => {
    const l = new InFlightLimiter({ maxReadOnly: 2, maxMutating: 2 });
    const first = l.acquire(req());
    l.acquire(req());
    expect(() => l.acquire(req())).toThrow(StatusError);
    first();
    l.acquire(req());
    expect(l.seatsInUse("mutating")).toBe(2);
  });

  it("never refuses system:masters: seats when there is room, none when the pool is full", () => {
    const l = new InFlightLimiter({ maxReadOnly: 2, maxMutating: 2 });
    l.acquire(req("mutating", true));
    l.acquire(req());
    const releases = [0, 1, 2].map(() => l.acquire(req("mutating", true)));
    expect(l.counts.mutating).toBe(5);
    expect(l.seatsInUse("mutating")).toBe(2);
    for (const r of releases) r();
    expect(l.counts.mutating).toBe(2);
    expect(l.seatsInUse("mutating")).toBe(2);
    expect(() => l.acquire(req())).toThrow(StatusError);
  });

  it("counts every request as one seat of its pool, and releases once", () => {
    const l = new InFlightLimiter({ maxReadOnly: 2, maxMutating: 1 });
    const first = l.acquire(req("readOnly"));
    expect(l.seatsInUse("readOnly")).toBe(1);
    first();
    first();
    expect(l.seatsInUse("readOnly")).toBe(0);
    l.acquire(req("readOnly"));
    l.acquire(req("readOnly"));
    expect(() => l.acquire(req("readOnly"))).toThrow(StatusError);
    // pools are separate
    l.acquire(req("mutating"));
    expect(l.counts).toEqual({ readOnly: 2, mutating: 1 });
  });

  it("does not limit a pool of size 0", () => {
    const l = new InFlightLimiter({ maxReadOnly: 0, maxMutating: 0 });
    for (let i = 0; i < 1000; i++) l.acquire(req());
    expect(l.counts.mutating).toBe(1000);
    expect(l.seatsInUse("mutating")).toBe(0);
  });
});
