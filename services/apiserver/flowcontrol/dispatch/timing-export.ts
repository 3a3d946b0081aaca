/**
 * Puts timing ratio histograms on a prom-client histogram declared on the replica's
 * registry (so its name, help with stability class, and hiding or disabling by flag stay
 * the registry's): the histogram's exposition is replaced by the series the source lists,
 * each brought up to the time of the scrape. prom-client histograms only count
 * observations one by one, and a timing histogram weighs each value by nanoseconds.
 */
import type { Histogram } from "prom-client";
import type { TimingSnapshot } from "./timing-histogram.ts";

export interface TimingSeries {
  labels: Readonly<Record<string, string>>;
  snapshot: TimingSnapshot;
}

interface ExportedValue {
  labels: Record<string, string | number>;
  sharedLabels: Readonly<Record<string, string>>;
  value: number;
  metricName: string;
}

interface Exposable {
  getForPromString(): Promise<{ values: ExportedValue[] } & Record<string, unknown>>;
}

function seriesValues(name: string, s: TimingSeries): ExportedValue[] {
  const bucket = `${name}_bucket`;
  const values: ExportedValue[] = s.snapshot.bounds.map((le, i) => ({ labels: { le }, sharedLabels: s.labels, value: s.snapshot.cumulative[i], metricName: bucket }));
  values.push({ labels: { le: "+Inf" }, sharedLabels: s.labels, value: s.snapshot.count, metricName: bucket });
  return [...values, { labels: {}, sharedLabels: s.labels, value: s.snapshot.sum, metricName: `${name}_sum` }, { labels: {}, sharedLabels: s.labels, value: s.snapshot.count, metricName: `${name}_count` }];
}

/** From now on `histogram` exposes what `source` lists at each scrape. */
export function exposeTimingHistogram(histogram: Histogram<string>, name: string, source: () => TimingSeries[]): void {
  const target = histogram as unknown as Exposable;
  const original = target.getForPromString.bind(histogram);
  target.getForPromString = async () => {
    const base = await original();
    return { ...base, values: source().flatMap((s) => seriesValues(name, s)) };
  };
}
