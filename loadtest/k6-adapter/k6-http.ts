/**
 * Stand-in for `k6/http` inside a VU of the adapter: the calls the scenarios make
 * (get, post, put, patch, del, request, expectedStatuses), sent over node:https by
 * the runner thread (runtime.ts), each answer a k6-shaped Response (status, body,
 * headers, timings.duration, error, json(selector)). Every request records
 * http_reqs, http_req_duration and http_req_failed with the tags k6 gives
 * (method, status, url, name) plus `params.tags`; it failed when its status is not
 * expected: 200-399 unless `params.responseCallback` (expectedStatuses) says otherwise.
 */
import { record, sendSync, tls, type BridgeResponse } from "./runtime.ts";

export interface ExpectedStatuses {
  statuses: ReadonlySet<number>;
}

export interface Params {
  headers?: Record<string, string>;
  tags?: Record<string, string>;
  /** k6 duration ("40s", "2m", "500ms") or milliseconds; default 60 s. */
  timeout?: string | number;
  responseCallback?: ExpectedStatuses;
}

export type Body = string | null | undefined | Record<string, string>;

/** k6 durations as the scenarios write them. */
export function durationMs(value: string | number | undefined, fallbackMs: number): number {
  if (value === undefined) return fallbackMs;
  if (typeof value === "number") return value;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(value.trim());
  if (m === null) throw new Error(`k6 adapter: "${value}" is not a duration`);
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as "ms" | "s" | "m" | "h"];
}

/** gjson-style dotted path ("metadata.resourceVersion", "items.0.metadata.name"). */
export function selectJson(value: unknown, selector: string | undefined): unknown {
  if (selector === undefined || selector === "") return value;
  let cur: unknown = value;
  for (const part of selector.split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

export class Response {
  readonly status: number;
  readonly body: string;
  readonly headers: Record<string, string>;
  readonly timings: { duration: number };
  readonly error: string;
  readonly error_code: number;

  constructor(
    readonly url: string,
    answer: BridgeResponse,
  ) {
    this.status = answer.status;
    this.body = answer.body;
    this.headers = answer.headers;
    this.timings = { duration: answer.durationMs };
    this.error = answer.error ?? "";
    // k6 reports network failures with codes of 1000 and up; a generic one suffices here.
    this.error_code = answer.status === 0 ? 1000 : 0;
  }

  json(selector?: string): unknown {
    return selectJson(JSON.parse(this.body) as unknown, selector);
  }
}

function encodeBody(body: Body): string | undefined {
  if (body === null || body === undefined) return undefined;
  if (typeof body === "string") return body;
  return new URLSearchParams(body).toString();
}

export function request(method: string, url: string, body?: Body, params: Params = {}): Response {
  const headers = { ...(params.headers ?? {}) };
  const data = encodeBody(body);
  if (data !== undefined && typeof body !== "string" && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["Content-Type"] = "application/x-www-form-urlencoded";
  const answer = sendSync({ method, url, body: data, headers, timeoutMs: durationMs(params.timeout, 60_000), tls: { ...tls } });
  const res = new Response(url, answer);
  const expected = params.responseCallback?.statuses;
  const failed = expected === undefined ? res.status < 200 || res.status >= 400 : !expected.has(res.status);
  const tags = { method, status: String(res.status), url, name: url, ...(params.tags ?? {}) };
  record("http_reqs", 1, tags);
  record("http_req_duration", answer.durationMs, tags);
  record("http_req_failed", failed ? 1 : 0, tags);
  return res;
}

export const get = (url: string, params?: Params) => request("GET", url, undefined, params);
export const head = (url: string, params?: Params) => request("HEAD", url, undefined, params);
export const options = (url: string, body?: Body, params?: Params) => request("OPTIONS", url, body, params);
export const post = (url: string, body?: Body, params?: Params) => request("POST", url, body, params);
export const put = (url: string, body?: Body, params?: Params) => request("PUT", url, body, params);
export const patch = (url: string, body?: Body, params?: Params) => request("PATCH", url, body, params);
export const del = (url: string, body?: Body, params?: Params) => request("DELETE", url, body, params);

/** Statuses (numbers or {min, max} ranges) that count as success for http_req_failed. */
export function expectedStatuses(...list: Array<number | { min: number; max: number }>): ExpectedStatuses {
  const statuses = new Set<number>();
  for (const s of list) {
    if (typeof s === "number") statuses.add(s);
    else for (let n = s.min; n <= s.max; n++) statuses.add(n);
  }
  return { statuses };
}

export default { request, get, head, options, post, put, patch, del, expectedStatuses };
