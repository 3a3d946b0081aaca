/**
 * What the priority-and-fairness filter holds for a request after admitting it: its seats
 * until its response is over (SeatHold), and a counted watch until its response closes
 * (forgetWhenResponseIsOver). Both keep no closure per request: the node response's
 * `close` listener is one shared function that finds its hold on the response.
 */
import type { Handler, RequestContext } from "./context.ts";
import { callNext } from "./call-next.ts";
import type { DeadlineTimers, Expirable } from "./deadline-timers.ts";

/** An admitted request's seats (an APF admission, or an in-flight limiter's seat); `release` is idempotent. */
export interface HeldSeats {
  release(watch: boolean): void;
}

const SEAT_HOLD = Symbol("seatHold");
type HoldingResponse = NonNullable<RequestContext["outgoing"]> & { [SEAT_HOLD]?: SeatHold };

/** The shared `close` listener of held seats (`this` is the response): the hold on it ends. */
function endSeatHoldOnClose(this: HoldingResponse): void {
  this[SEAT_HOLD]?.expireNow();
}

/**
 * The seats of one request while its handler runs and its response is open, given back
 * once: when the handler fails, when the deadline passes while it runs, when the node
 * response closes or, for a body that streams on, when the hold limit (scheduled on the
 * shared timer queue, no timer of its own) expires first. One object per request and no
 * closure: it is itself the deadline's listener, and the response's `close` listener is
 * one shared function that finds the hold on the response.
 */
export class SeatHold implements Expirable {
  settled = false;
  expiresAt = Infinity;
  private out: HoldingResponse | undefined;
  private deadline: RequestContext["deadline"] | undefined;

  constructor(private readonly seats: HeldSeats) {}

  /** Runs the handler with the seats held; not async: the handler's answer is followed with one `then`. */
  run(ctx: RequestContext, next: Handler, maxHoldMs: number, timers: DeadlineTimers): Promise<Response> {
    this.deadline = ctx.deadline;
    ctx.deadline.watch(this);
    return callNext(next, ctx, this).then(
      (response) => {
        this.holdUntilResponseIsOver(ctx, maxHoldMs, timers);
        return response;
      },
      (err: unknown) => {
        this.expireNow();
        throw err;
      },
    );
  }

  /** Gives the seats back once the node response is over (at once when there is none or it is over already). */
  private holdUntilResponseIsOver(ctx: RequestContext, maxHoldMs: number, timers: DeadlineTimers): void {
    if (this.settled) return;
    const out = ctx.outgoing as HoldingResponse | undefined;
    if (!out || out.closed || out.destroyed) {
      this.expireNow();
      return;
    }
    this.out = out;
    out[SEAT_HOLD] = this;
    out.on("close", endSeatHoldOnClose); // expireNow removes it (no once-wrapper)
    if (maxHoldMs > 0) {
      this.expiresAt = Date.now() + maxHoldMs;
      timers.schedule(maxHoldMs, this);
    }
  }

  /** The handler failed: the seats come back at once (callNext). */
  settle(): void {
    this.expireNow();
  }

  expireNow(): void {
    if (this.settled) return;
    this.settled = true;
    this.deadline?.unwatch(this);
    this.deadline = undefined;
    const out = this.out;
    if (out) {
      out.off("close", endSeatHoldOnClose);
      out[SEAT_HOLD] = undefined;
      this.out = undefined;
    }
    this.seats.release(false);
  }
}

const FORGET_WATCH = Symbol("forgetWatch");
type CountedResponse = NonNullable<RequestContext["outgoing"]> & { [FORGET_WATCH]?: () => void };

/** The shared `close` listener of counted watches (`this` is the response): it forgets the watch and removes itself. */
function forgetWatchOnClose(this: CountedResponse): void {
  const forget = this[FORGET_WATCH];
  this[FORGET_WATCH] = undefined;
  this.off("close", forgetWatchOnClose);
  forget?.();
}

/**
 * Calls `forget` once the watch's node response closes (at once when there is none or it
 * closed already). An open watch keeps only `forget` on its response: no hold object,
 * bound listener or once-wrapper of its own.
 */
export function forgetWhenResponseIsOver(ctx: RequestContext, forget: () => void): void {
  const out = ctx.outgoing as CountedResponse | undefined;
  if (!out || out.closed || out.destroyed || out[FORGET_WATCH]) {
    forget();
    return;
  }
  out[FORGET_WATCH] = forget;
  out.on("close", forgetWatchOnClose);
}
