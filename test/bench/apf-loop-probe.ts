/**
 * Preloaded (`--import`) into a replica of `bench -- apf` when `APF_LOOP_PROBE_DIR` is set:
 * measures how long the event loop is held, with perf_hooks' loop-delay histogram (a 1 ms
 * timer's lateness, so its high percentiles and max are the longest turns). On SIGUSR2 it
 * writes the histogram since the previous signal to `<dir>/<pid>.json` (`LoopDelay`, ms)
 * and starts a new one. Not part of the server: nothing of it runs unless the bench asks.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";

export interface LoopDelay {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Share of wall time the loop was busy (event loop utilization) since the previous signal. */
  utilization: number;
}

const dir = process.env.APF_LOOP_PROBE_DIR;
if (dir) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  let elu = performance.eventLoopUtilization();
  const ms = (ns: number) => ns / 1e6;
  process.on("SIGUSR2", () => {
    const since = performance.eventLoopUtilization(elu);
    elu = performance.eventLoopUtilization();
    const out: LoopDelay = {
      count: histogram.count,
      mean: ms(histogram.mean),
      p50: ms(histogram.percentile(50)),
      p90: ms(histogram.percentile(90)),
      p99: ms(histogram.percentile(99)),
      max: ms(histogram.max),
      utilization: since.utilization,
    };
    histogram.reset();
    writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify(out));
  });
}
