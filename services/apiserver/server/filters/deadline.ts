/**
 * The expiry of a request's deadline, as a cheap one-shot event: callbacks run once
 * when `expire` is called (a callback added afterwards runs at once). Cheaper per
 * request than an AbortController and its EventTarget, which the request path
 * would otherwise pay on every call. A deadline with a time (`expiresAt`) is
 * expired by the DeadlineTimers it is scheduled on, unless it settles first.
 */
import type { Expirable } from "./deadline-timers.ts";

/** Told when a deadline expires (an object, so a listener per request needs no closure). */
export interface ExpiryListener {
  expireNow(): void;
}

export class Deadline implements Expirable {
  private callbacks: ExpiryListener[] | undefined;
  private expiredWith: unknown;
  private done = false;
  private finished = false;

  /** @param expiresAt absolute time (Date.now()) of the deadline (Infinity: none) */
  constructor(readonly expiresAt = Infinity) {}

  get expired(): boolean {
    return this.done;
  }

  /** True once expired, or once the request no longer needs the deadline. */
  get settled(): boolean {
    return this.done || this.finished;
  }

  /** The error the deadline expired with (a 504 Status). */
  get reason(): unknown {
    return this.expiredWith;
  }

  /** Runs `fn` at expiry; returns a function that removes it. */
  onExpire(fn: () => void): () => void {
    const listener: ExpiryListener = { expireNow: fn };
    this.watch(listener);
    return () => this.unwatch(listener);
  }

  /** Calls `listener.expireNow()` at expiry (at once when expired already), until `unwatch`. */
  watch(listener: ExpiryListener): void {
    if (this.done) listener.expireNow();
    else (this.callbacks ??= []).push(listener);
  }

  unwatch(listener: ExpiryListener): void {
    const list = this.callbacks;
    if (!list) return;
    const i = list.indexOf(listener);
    if (i >= 0) list.splice(i, 1);
  }

  expire(reason: unknown): void {
    if (this.done) return;
    this.done = true;
    this.expiredWith = reason;
    const list = this.callbacks;
    this.callbacks = undefined;
    for (const listener of list ?? []) listener.expireNow();
  }

  /** The timed expiry (DeadlineTimers); a subclass gives the reason and answers the request. */
  expireNow(): void {
    if (!this.finished) this.expire(undefined);
  }

  /** The request is answered: a timed expiry no longer applies (and its callbacks are let go). */
  settle(): void {
    this.finished = true;
    if (!this.done) this.callbacks = undefined;
  }
}

/** The deadline of a request without one (long-running, or no timeout configured): it never expires. */
export const NEVER = new Deadline();
