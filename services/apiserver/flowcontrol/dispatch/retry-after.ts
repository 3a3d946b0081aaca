/**
 * The `Retry-After` of a rejected request, per priority level, as the platform adapts it
 * (in whole seconds, 1 to 32): rejections are counted per second; when a new second
 * starts, the rejections of the last `retryAfter` seconds decide the next value:
 * - at least 3 x retryAfter of them, and the last increase at least retryAfter seconds
 *   ago: it doubles (at most 32), like TCP backing off;
 * - fewer than retryAfter of them: it goes down by one (at least 1).
 * Deterministic: the caller passes the time (milliseconds).
 */

export const MAX_RETRY_AFTER_SECONDS = 32;

class LevelHistory {
  /** Finished seconds with their rejections, oldest first (at most the last 32 s). */
  private history: Array<{ second: number; count: number }> = [];
  private currentSecond = 0;
  private currentCount = 0;
  private lastIncrease = 0;
  retryAfter = 1;

  record(second: number): void {
    if (second === this.currentSecond) {
      this.currentCount++;
      return;
    }
    if (this.currentCount > 0) this.history.push({ second: this.currentSecond, count: this.currentCount });
    while (this.history.length > 0 && second - this.history[0].second > MAX_RETRY_AFTER_SECONDS) this.history.shift();
    this.currentSecond = second;
    this.currentCount = 1;
    this.adjust(second);
  }

  private adjust(second: number): void {
    let recent = 0;
    for (let i = this.history.length - 1; i >= 0; i--) {
      const h = this.history[i];
      if (second - h.second > this.retryAfter) break;
      if (h.second < second) recent += h.count;
    }
    if (second - this.lastIncrease >= this.retryAfter && recent >= 3 * this.retryAfter) {
      this.retryAfter = Math.min(MAX_RETRY_AFTER_SECONDS, this.retryAfter * 2);
      this.lastIncrease = second;
    } else if (recent < this.retryAfter && this.retryAfter > 1) {
      this.retryAfter--;
    }
  }
}

export class RetryAfterTracker {
  private readonly levels = new Map<string, LevelHistory>();

  /** Counts one rejection of the level at `nowMs`. */
  recordRejection(level: string, nowMs: number): void {
    let h = this.levels.get(level);
    if (!h) {
      h = new LevelHistory();
      this.levels.set(level, h);
    }
    h.record(Math.floor(nowMs / 1000));
  }

  /** The seconds to put in `Retry-After` for the level now. */
  retryAfter(level: string): number {
    return this.levels.get(level)?.retryAfter ?? 1;
  }
}
