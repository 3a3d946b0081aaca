/**
 * Seats a request occupies, after the platform's list work estimator: one seat per
 * 100 objects a list is expected to process, at least 1 and at most 10. The object
 * count is that of the whole resource (as the platform's storage object counts);
 * a list served from the watch cache processes every stored object, a list read
 * from storage processes `limit` objects twice (decode and encode), or every object
 * plus `limit` when a selector filters them. A watch that asks for its initial events
 * (`sendInitialEvents=true`) costs what a list from the cache costs (those seats are held
 * only until the watch is set up). A list or watch that names one object
 * (`fieldSelector=metadata.name=x`, the request's name) processes one object, as a GET.
 * List options that do not parse (a `limit` that is not an integer) take the widest
 * request: the request fails validation anyway, as the platform estimates it. Other
 * requests take one seat; an unknown count is the minimum. The result never exceeds
 * `maxSeats` (a priority level's widest request).
 */
import type { RequestInfo } from "../../endpoints/request-info.ts";

export const MIN_SEATS = 1;
export const MAX_SEATS = 10;
export const OBJECTS_PER_SEAT = 100;
/** A `limit` the platform's list options accept (a decimal integer). */
const INTEGER = /^[+-]?\d+$/;

/** Number of stored objects of the request's resource, or undefined when unknown. */
export type ObjectCount = (info: RequestInfo) => number | undefined;

/** The platform's rule: continuations and exact resource versions are read from storage, the rest from the cache. */
function listsFromStorage(q: URLSearchParams): boolean {
  const rv = q.get("resourceVersion") ?? "";
  const match = q.get("resourceVersionMatch") ?? "";
  const limit = Number(q.get("limit") ?? "0");
  const legacyExact = limit > 0 && match === "" && rv !== "" && rv !== "0";
  return (q.get("continue") ?? "") !== "" || match === "Exact" || legacyExact;
}

export function estimateSeats(info: RequestInfo, query: URLSearchParams, count: ObjectCount, maxSeats = MAX_SEATS): number {
  if (!info.isResourceRequest || (info.verb !== "list" && info.verb !== "watch")) return MIN_SEATS;
  const cap = Math.max(MIN_SEATS, Math.min(MAX_SEATS, maxSeats));
  const rawLimit = query.get("limit");
  if (rawLimit !== null && rawLimit !== "" && !INTEGER.test(rawLimit)) return cap;
  const initialEvents = info.verb === "watch" && query.get("sendInitialEvents") === "true";
  if (info.verb === "watch" && !initialEvents) return MIN_SEATS;
  if (info.name !== "") return MIN_SEATS;
  const stored = count(info);
  if (stored === undefined) return MIN_SEATS;
  if (initialEvents) return Math.min(cap, Math.max(MIN_SEATS, Math.ceil(stored / OBJECTS_PER_SEAT)));
  const askedLimit = Number(rawLimit ?? "0");
  const limit = Number.isFinite(askedLimit) && askedLimit > 0 && askedLimit < stored ? askedLimit : stored;
  let objects: number;
  if (!listsFromStorage(query)) objects = stored;
  else if ((query.get("labelSelector") ?? "") !== "" || (query.get("fieldSelector") ?? "") !== "") objects = stored + limit;
  else objects = 2 * limit;
  return Math.min(cap, Math.max(MIN_SEATS, Math.ceil(objects / OBJECTS_PER_SEAT)));
}
