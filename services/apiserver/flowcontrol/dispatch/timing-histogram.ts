/**
 * A timing ratio histogram, as the platform's metrics of a variable over time (such as
 * `apiserver_flowcontrol_demand_seats`): the variable is numerator / denominator, and each
 * nanosecond it holds a value counts as one observation of that value. So a bucket holds
 * the nanoseconds the ratio spent at or below its bound, the count is the nanoseconds since
 * the histogram began, and the sum is the integral of the ratio over time (ratio x ns).
 * Setting the same value again changes nothing; a snapshot brings the time up to `now`.
 * Deterministic: the caller passes the time (milliseconds); nothing runs by itself.
 */

const NS_PER_MS = 1e6;

export interface TimingSnapshot {
  /** Upper bounds, ascending. */
  bounds: readonly number[];
  /** Cumulative nanoseconds at or below each bound. */
  cumulative: number[];
  /** Nanoseconds in all (the +Inf bucket and the count). */
  count: number;
  /** Integral of the ratio over time, in ratio x nanoseconds. */
  sum: number;
}

export class TimingRatioHistogram {
  private readonly perBucket: number[];
  private count = 0;
  private sum = 0;
  private since: number;
  private numerator: number;
  private denominator: number;

  constructor(
    readonly bounds: readonly number[],
    now: number,
    initial: { numerator?: number; denominator?: number } = {},
  ) {
    this.perBucket = bounds.map(() => 0);
    this.since = now;
    this.numerator = initial.numerator ?? 0;
    this.denominator = initial.denominator ?? 1;
  }

  /** The current ratio (a zero denominator counts as 1). */
  get ratio(): number {
    return this.numerator / (this.denominator === 0 ? 1 : this.denominator);
  }

  setNumerator(now: number, value: number): void {
    if (value === this.numerator) return;
    this.advance(now);
    this.numerator = value;
  }

  setDenominator(now: number, value: number): void {
    if (value === this.denominator) return;
    this.advance(now);
    this.denominator = value;
  }

  snapshot(now: number): TimingSnapshot {
    this.advance(now);
    let acc = 0;
    const cumulative = this.perBucket.map((ns) => (acc += ns));
    return { bounds: this.bounds, cumulative, count: this.count, sum: this.sum };
  }

  /** Credits the time since the last change to the value that held during it. */
  private advance(now: number): void {
    const ns = Math.max(0, now - this.since) * NS_PER_MS;
    this.since = Math.max(this.since, now);
    if (ns === 0) return;
    const r = this.ratio;
    const bucket = this.bounds.findIndex((b) => r <= b);
    if (bucket >= 0) this.perBucket[bucket] += ns;
    this.count += ns;
    this.sum += r * ns;
  }
}
