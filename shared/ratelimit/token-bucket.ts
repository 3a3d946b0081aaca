// A token bucket on an injected clock (milliseconds): `qps` tokens a second,
// at most `burst` held, full at the start. Pure: the caller passes the time.

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    startMs: number,
  ) {
    this.tokens = burst;
    this.last = startMs;
  }

  private refill(nowMs: number): void {
    if (nowMs > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((nowMs - this.last) / 1000) * this.qps);
      this.last = nowMs;
    }
  }

  /** Takes a token and answers 0, or answers the milliseconds until one is there (nothing taken). */
  tryTake(nowMs: number): number {
    this.refill(nowMs);
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    if (this.qps <= 0) return Number.POSITIVE_INFINITY;
    // The small allowance keeps float noise (1.0000000000000009 ms) from adding a millisecond.
    return Math.max(1, Math.ceil(((1 - this.tokens) / this.qps) * 1000 - 1e-9));
  }

  /** Takes a token when one is there. */
  tryAccept(nowMs: number): boolean {
    return this.tryTake(nowMs) === 0;
  }
}
