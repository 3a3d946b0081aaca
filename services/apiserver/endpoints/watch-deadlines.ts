/**
 * Deadlines of watches (`timeoutSeconds`, or the default 30–60 minutes) on one shared
 * timer: a per-watch timer of a random duration costs each watch a timer and a timer
 * list of its own. Long deadlines are checked by one unref'd 1-second tick that runs
 * only while some are pending (they may fire up to a second late); deadlines shorter
 * than `SHORT_MS` keep a precise timer each.
 */
export interface Expiring {
  expire(): void;
}

const SHORT_MS = 10_000;
const TICK_MS = 1000;
const due = new Map<Expiring, number>();
const short = new Map<Expiring, NodeJS.Timeout>();
let ticker: NodeJS.Timeout | undefined;

/** Calls `target.expire()` once, `afterMs` from now, unless cancelled first. */
export function scheduleExpiry(target: Expiring, afterMs: number): void {
  cancelExpiry(target);
  if (afterMs < SHORT_MS) {
    short.set(
      target,
      setTimeout(() => {
        short.delete(target);
        target.expire();
      }, afterMs),
    );
    return;
  }
  due.set(target, Date.now() + afterMs);
  if (!ticker) {
    ticker = setInterval(tick, TICK_MS);
    ticker.unref();
  }
}

export function cancelExpiry(target: Expiring): void {
  due.delete(target);
  const t = short.get(target);
  if (t) {
    clearTimeout(t);
    short.delete(target);
  }
}

/** Deadlines pending (tests, metrics). */
export function pendingExpiries(): number {
  return due.size + short.size;
}

function tick(): void {
  const now = Date.now();
  for (const [target, at] of due) {
    if (at > now) continue;
    due.delete(target);
    target.expire();
  }
  if (due.size === 0 && ticker) {
    clearInterval(ticker);
    ticker = undefined;
  }
}
