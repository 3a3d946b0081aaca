/**
 * Parses and validates the query parameters of list and watch against the rules of
 * Part 1 (resource version semantics tables) with the platform's error shapes:
 * invalid combinations are 422 `ListOptions ... is invalid`, a continue token with a
 * non-zero resourceVersion is 400.
 */
import { badRequest, invalid } from "../../../shared/api/status.ts";
import type { FieldError } from "../../../shared/schema/types.ts";
import type { ResourceVersionMatch } from "../storage/interface.ts";
import { queryBool } from "./query-bool.ts";

export interface ListQuery {
  watch: boolean;
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  limit?: number;
  continueToken?: string;
  labelSelector: string | null;
  fieldSelector: string | null;
  allowWatchBookmarks: boolean;
  sendInitialEvents?: boolean;
  timeoutSeconds?: number;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/** A boolean option field (see query-bool.ts): absent is undefined, `0`/`false` false, anything else true. */
export function parseBool(v: string | null): boolean | undefined {
  return queryBool(v);
}

function parseNonNegativeInt(name: string, v: string | null): number | undefined {
  if (v === null || v === "") return undefined;
  if (!/^-?\d+$/.test(v)) throw badRequest(`invalid value for ${name}: "${v}": must be an integer`);
  return Number(v);
}

/**
 * How long a watch runs: unset or 0 is the server's default (a random time between
 * `minRequestTimeoutS` and twice that); a positive value is that many seconds; a
 * negative value (the platform arms a timer with it) ends the watch at once. Capped at
 * the longest delay a timer can hold (about 24.8 days; beyond it Node fires at once).
 */
export function watchTimeoutMs(timeoutSeconds: number | undefined, minRequestTimeoutS: number): number {
  if (timeoutSeconds === undefined || timeoutSeconds === 0) return minRequestTimeoutS * (1 + Math.random()) * 1000;
  return Math.min(MAX_TIMER_MS, Math.max(0, timeoutSeconds) * 1000);
}

export function parseListQuery(q: URLSearchParams, isWatch: boolean, metaGroup: string): ListQuery {
  const rvm = q.get("resourceVersionMatch") ?? "";
  const out: ListQuery = {
    watch: isWatch,
    resourceVersion: q.get("resourceVersion") ?? undefined,
    resourceVersionMatch: rvm === "" ? undefined : (rvm as ResourceVersionMatch),
    limit: parseNonNegativeInt("limit", q.get("limit")),
    continueToken: q.get("continue") || undefined,
    labelSelector: q.get("labelSelector"),
    fieldSelector: q.get("fieldSelector"),
    allowWatchBookmarks: parseBool(q.get("allowWatchBookmarks")) ?? false,
    sendInitialEvents: parseBool(q.get("sendInitialEvents")),
    timeoutSeconds: parseNonNegativeInt("timeoutSeconds", q.get("timeoutSeconds")),
  };
  if (out.limit !== undefined && out.limit < 0) out.limit = undefined;
  const errors: FieldError[] = [];
  const rv = out.resourceVersion ?? "";
  if (out.resourceVersionMatch !== undefined) {
    if (out.resourceVersionMatch !== "Exact" && out.resourceVersionMatch !== "NotOlderThan") {
      errors.push({ type: "FieldValueNotSupported", field: "resourceVersionMatch", value: rvm, message: 'supported values: "Exact", "NotOlderThan", ""' });
    } else if (isWatch) {
      if (out.sendInitialEvents === undefined) errors.push({ type: "FieldValueForbidden", field: "resourceVersionMatch", message: "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided" });
      else if (out.resourceVersionMatch !== "NotOlderThan") errors.push({ type: "FieldValueForbidden", field: "resourceVersionMatch", message: "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan" });
    } else if (rv === "") {
      errors.push({ type: "FieldValueForbidden", field: "resourceVersionMatch", message: "resourceVersionMatch is forbidden unless resourceVersion is provided" });
    } else if (out.continueToken) {
      errors.push({ type: "FieldValueForbidden", field: "resourceVersionMatch", message: "resourceVersionMatch is forbidden when continue is provided" });
    } else if (out.resourceVersionMatch === "Exact" && rv === "0") {
      errors.push({ type: "FieldValueForbidden", field: "resourceVersionMatch", message: 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"' });
    }
  }
  if (out.sendInitialEvents !== undefined) {
    if (!isWatch) errors.push({ type: "FieldValueForbidden", field: "sendInitialEvents", message: "sendInitialEvents is forbidden for list" });
    else if (out.resourceVersionMatch === undefined) {
      errors.push({ type: "FieldValueForbidden", field: "resourceVersionMatch", message: "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan" });
    }
  }
  if (errors.length > 0) throw invalid("ListOptions", "", errors, metaGroup);
  if (!isWatch && out.continueToken && rv !== "" && rv !== "0") {
    throw badRequest("specifying resource version is not allowed when using continue");
  }
  if (rv !== "" && !/^\d+$/.test(rv)) throw badRequest(`invalid resource version: "${rv}"`);
  return out;
}
