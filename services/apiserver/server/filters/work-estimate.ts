/**
 * Seats a request occupies, after the platform's list work estimator (release 1.35,
 * SizeBasedListCostEstimate on by default): seats for the memory a list loads at once,
 * one per 100,000 bytes, at least 1 and at most 100. The objects loaded are the
 * resource's stored objects (or `limit` of them when fewer), all of them for a list
 * from storage with a selector (at least half the stored objects), one when the list
 * names one object (`fieldSelector=metadata.name=x`, the request's name); their size is
 * the resource's average stored size (the largest object etcd accepts, 1.5 MB, when
 * objects exist and no size is known), and a list from the watch cache counts at most
 * 1,000,000 bytes (it streams its answer). With the gate off (no average size given),
 * the older rule, at most 10 seats: one seat per 100 objects processed: every stored
 * object for a list from the cache, `limit` twice (decode and encode) from storage,
 * every object plus `limit` from storage with a selector. Continuations and exact
 * resource versions are read from storage, the rest from the cache. A watch that sends
 * initial events costs what a list from the cache costs (those seats are held only
 * until the watch is set up): one that asks for them (`sendInitialEvents=true`), or a
 * legacy watch that gets them (no `sendInitialEvents=true`, resource version unset or
 * "0"); another watch one seat. List options that do not parse (a `limit` that is not
 * an integer) take the widest request: the request fails validation anyway, as the
 * platform estimates it. Other requests take one seat; an unknown resource the
 * minimum. The result never exceeds `maxSeats`, the priority level's widest request
 * (0: the level sets no bound, the limits above apply).
 */
import type { RequestInfo } from "../../endpoints/request-info.ts";

export const MIN_SEATS = 1;
/** The widest list by object count (gate off), and the estimator's limit for other requests. */
export const MAX_SEATS = 10;
/** The widest list with size-based estimates (the platform's list seats limit with the gate on). */
export const MAX_LIST_SEATS_BY_SIZE = 100;
export const OBJECTS_PER_SEAT = 100;
/** Bytes loaded at once per seat (size-based estimate). */
export const BYTES_PER_SEAT = 100_000;
/** What a list from the watch cache counts at most (size-based): it streams its answer. */
export const CACHE_LIST_MAX_BYTES = 1_000_000;
/** The size assumed for objects whose size is unknown: the largest request etcd accepts. */
export const MAX_OBJECT_BYTES = 1_500_000;
/** A `limit` the platform's list options accept (a decimal integer). */
const INTEGER = /^[+-]?\d+$/;

/** Stored objects of a resource; `averageBytes` (0 when unknown) is given when lists are estimated by size. */
export interface ResourceStats {
  objects: number;
  averageBytes?: number;
}

/** Stored objects of the request's resource, or undefined when the resource is unknown. */
export type ObjectCount = (info: RequestInfo) => ResourceStats | undefined;

/** The platform's rule: continuations and exact resource versions are read from storage, the rest from the cache. */
function listsFromStorage(q: URLSearchParams): boolean {
  const rv = q.get("resourceVersion") ?? "";
  const match = q.get("resourceVersionMatch") ?? "";
  const limit = Number(q.get("limit") ?? "0");
  const legacyExact = limit > 0 && match === "" && rv !== "" && rv !== "0";
  return (q.get("continue") ?? "") !== "" || match === "Exact" || legacyExact;
}

export function estimateSeats(info: RequestInfo, query: URLSearchParams, stats: ObjectCount, maxSeats = 0): number {
  if (!info.isResourceRequest || (info.verb !== "list" && info.verb !== "watch")) return MIN_SEATS;
  const stored = stats(info);
  const limit = stored?.averageBytes === undefined ? MAX_SEATS : MAX_LIST_SEATS_BY_SIZE;
  const cap = maxSeats > 0 && maxSeats < limit ? maxSeats : limit;
  const rawLimit = query.get("limit");
  if (rawLimit !== null && rawLimit !== "" && !INTEGER.test(rawLimit)) return cap;
  if (info.verb === "watch" && !sendsInitialEvents(query)) return MIN_SEATS;
  if (stored === undefined) return MIN_SEATS;
  const list: ListShape = {
    single: info.name !== "",
    fromCache: info.verb === "watch" || !listsFromStorage(query),
    selector: (query.get("labelSelector") ?? "") !== "" || (query.get("fieldSelector") ?? "") !== "",
    limit: Number(rawLimit ?? "0"),
  };
  const seats = stored.averageBytes === undefined ? seatsByCount(stored.objects, list) : seatsBySize(stored.objects, stored.averageBytes, list);
  return Math.min(cap, Math.max(MIN_SEATS, seats));
}

/** A watch that asks for initial events, or a legacy one that gets them (resource version unset or "0"). */
function sendsInitialEvents(q: URLSearchParams): boolean {
  if (q.get("sendInitialEvents") === "true") return true;
  const rv = q.get("resourceVersion") ?? "";
  return rv === "" || rv === "0";
}

interface ListShape {
  /** It names one object. */
  single: boolean;
  fromCache: boolean;
  selector: boolean;
  /** The asked `limit` (0: none). */
  limit: number;
}

function limited(objects: number, limit: number): number {
  return limit > 0 && limit < objects ? limit : objects;
}

function seatsByCount(objects: number, list: ListShape): number {
  let processed: number;
  if (list.single) processed = 1;
  else if (list.fromCache) processed = objects;
  else if (list.selector) processed = objects + limited(objects, list.limit);
  else processed = 2 * limited(objects, list.limit);
  return Math.ceil(processed / OBJECTS_PER_SEAT);
}

function seatsBySize(objects: number, averageBytes: number, list: ListShape): number {
  const size = averageBytes <= 0 && objects !== 0 ? MAX_OBJECT_BYTES : averageBytes;
  let loaded: number;
  if (list.single) loaded = 1;
  else if (list.fromCache || !list.selector) loaded = limited(objects, list.limit);
  else loaded = Math.max(limited(objects, list.limit), Math.floor(objects / 2));
  const bytes = list.fromCache ? Math.min(loaded * size, CACHE_LIST_MAX_BYTES) : loaded * size;
  return Math.ceil(bytes / BYTES_PER_SEAT);
}
