/**
 * Preloaded (`--import`) into a replica of `bench -- apf` when `APF_LOOP_PROBE_DIR` is set:
 * measures how long the event loop is held, with perf_hooks' loop-delay histogram (a 1 ms
 * timer's lateness, so its high percentiles and max are the longest turns), and how long
 * the server held single-object GETs (the tenant's; from the parsed request to the
 * finished response, through node:http's diagnostics channels), and the pauses of its
 * garbage collections (perf_hooks 'gc' entries). On SIGUSR2 it writes both
 * since the previous signal to `<dir>/<pid>.json` (`LoopDelay`, ms) and starts anew. Not
 * part of the server: nothing of it runs unless the bench asks.
 */
import { subscribe } from "node:diagnostics_channel";
import { renameSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { constants, monitorEventLoopDelay, PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";

export interface LoopDelay {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Share of wall time the loop was busy (event loop utilization) since the previous signal. */
  utilization: number;
  /** Server time of single-object GETs (ms): how many, p50, p99, max. */
  gets: { count: number; p50: number; p99: number; max: number };
  /** Garbage collections (ms of pause): scavenges (minor) and the rest (major, incremental marking, weak callbacks). */
  gc: { minor: GcPauses; major: GcPauses };
}

export interface GcPauses {
  count: number;
  totalMs: number;
  p99: number;
  max: number;
}

/** A single object's GET (`…/configmaps/<name>`), not a list. */
const SINGLE_GET = /\/configmaps\/[^/?]+(\?|$)/;

const dir = process.env.APF_LOOP_PROBE_DIR;
if (dir) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  let elu = performance.eventLoopUtilization();
  const started = new WeakMap<ServerResponse, number>();
  let getMs: number[] = [];
  const ms = (ns: number) => ns / 1e6;
  const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
  let gcMs = { minor: [] as number[], major: [] as number[] };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      (kind === constants.NODE_PERFORMANCE_GC_MINOR ? gcMs.minor : gcMs.major).push(entry.duration);
    }
  }).observe({ entryTypes: ["gc"] });
  const pauses = (all: number[]): GcPauses => {
    const sorted = all.sort((a, b) => a - b);
    return { count: sorted.length, totalMs: sorted.reduce((a, b) => a + b, 0), p99: at(sorted, 0.99), max: sorted.at(-1) ?? 0 };
  };
  subscribe("http.server.request.start", (message) => {
    const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
    if (request.method === "GET" && SINGLE_GET.test(request.url ?? "")) started.set(response, performance.now());
  });
  subscribe("http.server.response.finish", (message) => {
    const { response } = message as { response: ServerResponse };
    const t = started.get(response);
    if (t !== undefined) getMs.push(performance.now() - t);
  });
  process.on("SIGUSR2", () => {
    const since = performance.eventLoopUtilization(elu);
    elu = performance.eventLoopUtilization();
    const gets = getMs.sort((a, b) => a - b);
    getMs = [];
    const gc = { minor: pauses(gcMs.minor), major: pauses(gcMs.major) };
    gcMs = { minor: [], major: [] };
    const out: LoopDelay = {
      count: histogram.count,
      mean: ms(histogram.mean),
      p50: ms(histogram.percentile(50)),
      p90: ms(histogram.percentile(90)),
      p99: ms(histogram.percentile(99)),
      max: ms(histogram.max),
      utilization: since.utilization,
      gets: { count: gets.length, p50: at(gets, 0.5), p99: at(gets, 0.99), max: gets.at(-1) ?? 0 },
      gc,
    };
    histogram.reset();
    const file = join(dir, `${process.pid}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify(out));
    renameSync(`${file}.tmp`, file); // a reader never sees half a file
  });
}
