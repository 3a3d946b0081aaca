/** The human-readable report of a run (the JSON form is the Summary itself). */
import type { Summary } from "./stats.ts";

export function formatReport(runId: string, s: Summary, broken: readonly string[]): string {
  const lines = [
    `run ${runId}: ${s.requests} requests in ${s.durationSeconds} s = ${s.requestsPerSecond} req/s, ${s.errors} errors`,
    `latency (ms, all but watch): p50 ${s.latency.p50}  p95 ${s.latency.p95}  p99 ${s.latency.p99}  max ${s.latency.max}`,
    `objects: ${s.created} created, ${s.deleted} deleted`,
    ...(s.watchDelivery === undefined
      ? []
      : [
          `watch delivery (ms, write sent -> event received, ${s.watchDelivery.watchers} watchers, ${s.watchDelivery.events} events, ${s.watchDelivery.failures} failed watches): p50 ${s.watchDelivery.p50}  p95 ${s.watchDelivery.p95}  p99 ${s.watchDelivery.p99}  max ${s.watchDelivery.max}`,
        ]),
    "",
    `${"operation".padEnd(10)} ${"requests".padStart(9)} ${"errors".padStart(7)} ${"p50".padStart(9)} ${"p95".padStart(9)} ${"p99".padStart(9)} ${"max".padStart(9)}`,
    ...Object.entries(s.operations).map(
      ([op, o]) =>
        `${op.padEnd(10)} ${String(o.requests).padStart(9)} ${String(o.errors).padStart(7)} ${o.p50.toFixed(2).padStart(9)} ${o.p95.toFixed(2).padStart(9)} ${o.p99.toFixed(2).padStart(9)} ${o.max.toFixed(2).padStart(9)}`,
    ),
    "",
    `status: ${Object.entries(s.byStatus).map(([k, v]) => `${k === "0" ? "network" : k}=${v}`).join(" ")}`,
  ];
  if (s.errors > 0) lines.push(`errors by status: ${Object.entries(s.errorsByStatus).map(([k, v]) => `${k === "0" ? "network" : k}=${v}`).join(" ")}`, ...s.sampleErrors.map((e) => `  ${e}`));
  lines.push(broken.length === 0 ? "thresholds: passed" : `thresholds: BROKEN\n${broken.map((b) => `  ${b}`).join("\n")}`);
  return `${lines.join("\n")}\n`;
}
