/**
 * The expiry of a request's deadline, as a cheap one-shot event: callbacks run once
 * when `expire` is called (a callback added afterwards runs at once). Cheaper per
 * request than an AbortController and its EventTarget, which the request path
 * would otherwise pay on every call.
 */
export class Deadline {
  private callbacks: Array<() => void> | undefined;
  private expiredWith: unknown;
  private done = false;

  get expired(): boolean {
    return this.done;
  }

  /** The error the deadline expired with (a 504 Status). */
  get reason(): unknown {
    return this.expiredWith;
  }

  /** Runs `fn` at expiry; returns a function that removes it. */
  onExpire(fn: () => void): () => void {
    if (this.done) {
      fn();
      return () => {};
    }
    (this.callbacks ??= []).push(fn);
    return () => {
      const list = this.callbacks;
      if (!list) return;
      const i = list.indexOf(fn);
      if (i >= 0) list.splice(i, 1);
    };
  }

  expire(reason: unknown): void {
    if (this.done) return;
    this.done = true;
    this.expiredWith = reason;
    const list = this.callbacks;
    this.callbacks = undefined;
    for (const fn of list ?? []) fn();
  }
}

/** The deadline of a request without one (long-running, or no timeout configured): it never expires. */
export const NEVER = new Deadline();
