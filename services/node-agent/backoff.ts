/**
 * The heartbeat retry schedule (pure): after a failed Lease write the agent waits
 * 200 ms, then doubles the wait each further failure, never longer than 7 s; a success
 * starts the schedule over. The regular renew interval is the lease duration × 0.25
 * (10 s for the default 40 s).
 */

export const LEASE_RETRY_INITIAL_MS = 200;
export const LEASE_RETRY_MAX_MS = 7000;
/** Share of the lease duration between two renewals. */
export const RENEW_INTERVAL_FRACTION = 0.25;

/** The wait before retry number `failures` (1 = after the first failure). */
export function retryDelayMs(failures: number, initialMs = LEASE_RETRY_INITIAL_MS, maxMs = LEASE_RETRY_MAX_MS): number {
  if (!Number.isInteger(failures) || failures < 1) throw new RangeError(`failures must be a positive integer, got ${failures}`);
  // 2^(failures-1) overflows to Infinity for large counts; the cap still applies.
  return Math.min(initialMs * 2 ** (failures - 1), maxMs);
}

/** The renew interval for a lease duration in seconds. */
export function renewIntervalMs(leaseDurationSeconds: number): number {
  return leaseDurationSeconds * 1000 * RENEW_INTERVAL_FRACTION;
}
