/**
 * Time-weighted statistics of a level's seat demand (seats executing plus seats waiting),
 * as the platform's integrator keeps them: `set(now, value)` records that the value holds
 * from `now` on; `reset(now)` returns the average, standard deviation and maximum over the
 * time since the previous reset and starts a new period that begins at the current value.
 * Deterministic: the caller passes the time (milliseconds).
 */
import type { DemandObservation } from "./concurrency-limits.ts";

export class DemandIntegrator {
  private value = 0;
  private since: number;
  private start: number;
  private integral = 0;
  private integralOfSquares = 0;
  private max = 0;

  constructor(now: number) {
    this.since = now;
    this.start = now;
  }

  get current(): number {
    return this.value;
  }

  set(now: number, value: number): void {
    this.advance(now);
    this.value = value;
    if (value > this.max) this.max = value;
  }

  reset(now: number): DemandObservation {
    this.advance(now);
    const durationMs = now - this.start;
    const average = durationMs > 0 ? this.integral / durationMs : 0;
    const variance = durationMs > 0 ? Math.max(0, this.integralOfSquares / durationMs - average * average) : 0;
    const obs: DemandObservation = { durationMs, average, deviation: Math.sqrt(variance), max: this.max };
    this.start = now;
    this.integral = 0;
    this.integralOfSquares = 0;
    this.max = this.value;
    return obs;
  }

  private advance(now: number): void {
    const dt = Math.max(0, now - this.since);
    this.integral += this.value * dt;
    this.integralOfSquares += this.value * this.value * dt;
    this.since = Math.max(this.since, now);
  }
}
