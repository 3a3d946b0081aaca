/**
 * The platform's work estimate of a write (create, update, patch, delete): one seat while
 * it executes and, when at least `WATCHES_PER_SEAT` watches are interested in it, the
 * work of sending their events after it: each watch costs 1/10 of a seat for 5 ms. That
 * work (ceil(watches / 10) seats x 5 ms) is held as `finalSeats` for `additionalLatencyMs`
 * after the request ends, reshaped to at most the level's widest request (and at most
 * 10 seats) by stretching the time. A service account's token request makes no event.
 * Pure: the watch count and the level's widest request are inputs.
 */

export const WATCHES_PER_SEAT = 10;
export const EVENT_ADDITIONAL_DURATION_MS = 5;
export const MAXIMUM_SEATS_LIMIT = 10;

export interface WorkEstimate {
  /** Seats while the request executes. */
  initialSeats: number;
  /** Seats held after it ends, for `additionalLatencyMs`. */
  finalSeats: number;
  additionalLatencyMs: number;
}

export function estimateMutatingWork(watchCount: number, maxSeats: number, request: { resource: string; subresource: string }): WorkEstimate {
  const none: WorkEstimate = { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 };
  if (request.resource === "serviceaccounts" && request.subresource === "token") return none;
  if (watchCount < WATCHES_PER_SEAT) return none;
  const wanted = Math.ceil(watchCount / WATCHES_PER_SEAT);
  const finalWork = wanted * EVENT_ADDITIONAL_DURATION_MS;
  const cap = maxSeats <= 0 || maxSeats > MAXIMUM_SEATS_LIMIT ? MAXIMUM_SEATS_LIMIT : maxSeats;
  const finalSeats = Math.min(wanted, cap);
  return { initialSeats: 1, finalSeats, additionalLatencyMs: finalWork / finalSeats };
}
