import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RenewedToken, type IssuedToken } from "./renewed-token.ts";

/** An issuer that hands out token-1, token-2, … each living `lifeMs` from the fake clock's now. */
function issuer(lifeMs: number): { issue: () => Promise<IssuedToken>; calls: () => number } {
  let n = 0;
  return {
    issue: () => {
      n += 1;
      return Promise.resolve({ token: `token-${n}`, expiresAt: Date.now() + lifeMs });
    },
    calls: () => n,
  };
}

describe("a service account token kept in memory", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("asks once for all callers that wait together", async () => {
    const { issue, calls } = issuer(3_600_000);
    const token = new RenewedToken(issue, () => {});
    const got = await Promise.all([token.credential(), token.credential(), token.credential()]);
    expect(got.map((c) => c.token)).toEqual(["token-1", "token-1", "token-1"]);
    expect(calls()).toBe(1);
    token.close();
  });

  it("renews at 80 % of the token's life", async () => {
    const { issue, calls } = issuer(3_600_000);
    const token = new RenewedToken(issue, () => {});
    await token.fetch();
    await vi.advanceTimersByTimeAsync(2_880_000 - 1);
    expect(calls()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls()).toBe(2);
    expect((await token.credential()).token).toBe("token-2");
    token.close();
  });

  it("never hands out a token that a 401 answered again", async () => {
    const { issue, calls } = issuer(3_600_000);
    const token = new RenewedToken(issue, () => {});
    const first = await token.credential();
    token.unauthorized({ token: "some-older-token" });
    expect((await token.credential()).token).toBe("token-1");
    token.unauthorized(first);
    expect((await token.credential()).token).toBe("token-2");
    expect(calls()).toBe(2);
    token.close();
  });

  it("keeps the current token when a renewal fails, and reports the failure", async () => {
    let n = 0;
    const errors: unknown[] = [];
    const token = new RenewedToken(
      () => (++n === 1 ? Promise.resolve({ token: "token-1", expiresAt: Date.now() + 50_000 }) : Promise.reject(new Error("apiserver down"))),
      (err) => errors.push(err),
    );
    await token.fetch();
    // 80 % of a 50 s life is 40 s: the renewal waits for the floor of 48 s
    await vi.advanceTimersByTimeAsync(48_000 - 1);
    expect(n).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(n).toBe(2);
    expect(errors.map(String)).toEqual(["Error: apiserver down"]);
    expect((await token.credential()).token).toBe("token-1");
    token.close();
  });

  it("issues a new token when the current one expired while renewals failed", async () => {
    let n = 0;
    const token = new RenewedToken(
      () => (++n === 1 ? Promise.resolve({ token: "token-1", expiresAt: Date.now() + 50_000 }) : n === 2 ? Promise.reject(new Error("apiserver down")) : Promise.resolve({ token: `token-${n}`, expiresAt: Date.now() + 3_600_000 })),
      () => {},
    );
    await token.fetch();
    await vi.advanceTimersByTimeAsync(49_999);
    expect(n).toBe(2);
    expect((await token.credential()).token).toBe("token-1");
    await vi.advanceTimersByTimeAsync(1);
    expect((await token.credential()).token).toBe("token-3");
    token.close();
  });

  it("renews nothing once closed", async () => {
    const { issue, calls } = issuer(3_600_000);
    const token = new RenewedToken(issue, () => {});
    await token.fetch();
    token.close();
    await vi.advanceTimersByTimeAsync(4_000_000);
    expect(calls()).toBe(1);
  });
});
