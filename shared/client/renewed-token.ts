/**
 * A bearer token that the holder issues itself (a TokenRequest, say) and renews before it
 * expires: a credential provider for the client transport, beside the exec plugin's.
 *
 * Contracts:
 * - Held in memory only: nothing is written to disk.
 * - Concurrent callers share one issue.
 * - Renewed at 80 % of its life (never sooner than MIN_RENEW_MS), and at once when a
 *   request sent with it was answered 401 or when it has expired: `credential()` never
 *   returns a token a 401 was reported for, nor one past its expiry.
 * - A renewal that fails keeps the current token (valid until it expires) and is
 *   reported through `onRenewalError`; the next renewal is the caller's next request.
 * - After `close()` nothing is renewed on a timer.
 */
import type { Credential, CredentialProvider } from "./transport.ts";

/** The shortest wait before a renewal, whatever expiry the issuer gave. */
export const MIN_RENEW_MS = 48_000;

/** A token and the time (ms since the epoch) it expires. */
export interface IssuedToken {
  token: string;
  expiresAt: number;
}

export class RenewedToken implements CredentialProvider {
  private current?: IssuedToken;
  private pending?: Promise<string>;
  private timer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly issue: () => Promise<IssuedToken>,
    private readonly onRenewalError: (err: unknown) => void,
    private readonly now: () => number = Date.now,
  ) {}

  async credential(): Promise<Credential> {
    const c = this.current;
    return { token: c !== undefined && c.expiresAt > this.now() ? c.token : await this.fetch() };
  }

  unauthorized(used: Credential): void {
    if (used.token !== undefined && used.token === this.current?.token) this.current = undefined;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  /** Issues a fresh token (one issue for all who wait) and schedules its renewal. */
  fetch(): Promise<string> {
    this.pending ??= this.issue()
      .then((issued) => {
        this.current = issued;
        this.schedule(Math.max(MIN_RENEW_MS, (issued.expiresAt - this.now()) * 0.8));
        return issued.token;
      })
      .finally(() => (this.pending = undefined));
    return this.pending;
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    if (this.closed) return;
    this.timer = setTimeout(() => void this.fetch().catch(this.onRenewalError), ms);
    this.timer.unref();
  }
}
