/**
 * Pass/fail criteria of a run, checked against its summary: each broken threshold is
 * one line of the result; an empty result means the run passed.
 */
import type { Summary } from "./stats.ts";

export interface Thresholds {
  /** Largest acceptable fraction of failed requests (0 = none may fail). */
  maxErrorRate: number;
  /** Latency bounds (ms) over every operation except watch; undefined = not checked. */
  p95Ms?: number;
  p99Ms?: number;
  /** Smallest acceptable throughput; undefined = not checked. */
  minRequestsPerSecond?: number;
}

export function brokenThresholds(s: Summary, t: Thresholds): string[] {
  const broken: string[] = [];
  if (s.requests === 0) broken.push("no request completed");
  const rate = s.requests === 0 ? 0 : s.errors / s.requests;
  if (rate > t.maxErrorRate) broken.push(`error rate ${(rate * 100).toFixed(2)}% > ${(t.maxErrorRate * 100).toFixed(2)}%`);
  if (t.p95Ms !== undefined && s.latency.p95 > t.p95Ms) broken.push(`p95 ${s.latency.p95} ms > ${t.p95Ms} ms`);
  if (t.p99Ms !== undefined && s.latency.p99 > t.p99Ms) broken.push(`p99 ${s.latency.p99} ms > ${t.p99Ms} ms`);
  if (t.minRequestsPerSecond !== undefined && s.requestsPerSecond < t.minRequestsPerSecond) broken.push(`${s.requestsPerSecond} req/s < ${t.minRequestsPerSecond} req/s`);
  return broken;
}
