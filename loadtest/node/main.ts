/**
 * `npm run loadtest -- --url https://host:port (--token T | --cert F --key F | --kubeconfig F) [flags]`
 *
 * Runs the scenario mix against a deployed server over real HTTPS and prints req/s,
 * latency percentiles and errors by status. Exit code: 0 when every threshold holds,
 * 1 when one is broken, 2 on a usage or setup error.
 */
import { writeFileSync } from "node:fs";
import { FlagError, parseFlags, usage, type FlagSpec } from "../../shared/cli/flags.ts";
import { resolveConnection } from "./connection.ts";
import { formatReport } from "./report.ts";
import { runLoad } from "./run.ts";
import { parseMix } from "./scenarios.ts";
import { brokenThresholds } from "./thresholds.ts";

const FLAGS: Record<string, FlagSpec> = {
  url: { kind: "string", help: "server URL (https://host:port); default: the client configuration's server" },
  kubeconfig: { kind: "string", help: "client configuration file (its current context gives URL, CA and identity)" },
  ca: { kind: "string", help: "PEM file of the CA that signed the serving certificate" },
  cert: { kind: "string", help: "PEM client certificate" },
  key: { kind: "string", help: "PEM key of the client certificate" },
  token: { kind: "string", help: "bearer token" },
  "token-file": { kind: "string", help: "file holding the bearer token" },
  insecure: { kind: "boolean", default: false, help: "do not verify the serving certificate" },
  namespace: { kind: "string", default: "loadtest", help: "namespace of the objects (created when missing)" },
  concurrency: { kind: "number", default: 8, help: "virtual users running at once" },
  duration: { kind: "duration", default: 30_000, help: "how long to run (30s, 5m, ...)" },
  mix: { kind: "string", default: "crud=3,list=1,watch=1", help: "scenario weights: crud, list, watch" },
  "page-size": { kind: "number", default: 50, help: "limit of each list page" },
  "watch-timeout": { kind: "number", default: 2, help: "timeoutSeconds of each watch request" },
  watchers: { kind: "number", default: 0, help: "long-running watches of the run's objects; reports watch delivery latency percentiles (write sent -> event received)" },
  "max-error-rate": { kind: "number", default: 0.01, help: "threshold: largest fraction of failed requests" },
  "p95-ms": { kind: "number", help: "threshold: p95 latency bound (ms, all but watch)" },
  "p99-ms": { kind: "number", help: "threshold: p99 latency bound (ms, all but watch)" },
  "min-rps": { kind: "number", help: "threshold: smallest throughput (requests/s)" },
  json: { kind: "string", help: "also write the summary as JSON to this file" },
  cleanup: { kind: "boolean", default: true, help: "delete the run's objects at the end" },
  help: { kind: "boolean", default: false, help: "print the flags" },
};

const optional = (v: unknown): string | undefined => (v === undefined ? undefined : String(v));
const optionalNumber = (v: unknown): number | undefined => (v === undefined ? undefined : Number(v));

function positiveInteger(v: unknown, flag: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new FlagError(`--${flag} must be a positive integer`);
  return n;
}

function nonNegativeInteger(v: unknown, flag: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new FlagError(`--${flag} must be a non-negative integer`);
  return n;
}

async function main(): Promise<number> {
  const f = parseFlags(process.argv.slice(2), FLAGS);
  if (f.help) {
    process.stdout.write(`usage: npm run loadtest -- --url https://host:port (--token T | --cert F --key F | --kubeconfig F) [flags]\n\nflags:\n${usage(FLAGS)}\n`);
    return 0;
  }
  const connection = resolveConnection({
    url: optional(f.url),
    kubeconfig: optional(f.kubeconfig),
    ca: optional(f.ca),
    cert: optional(f.cert),
    key: optional(f.key),
    token: optional(f.token),
    tokenFile: optional(f["token-file"]),
    insecure: f.insecure === true,
  });
  const { runId, summary } = await runLoad({
    connection,
    namespace: String(f.namespace),
    concurrency: positiveInteger(f.concurrency, "concurrency"),
    durationMs: Number(f.duration),
    schedule: parseMix(String(f.mix)),
    pageSize: positiveInteger(f["page-size"], "page-size"),
    watchTimeoutSeconds: positiveInteger(f["watch-timeout"], "watch-timeout"),
    cleanup: f.cleanup === true,
    watchers: nonNegativeInteger(f.watchers, "watchers"),
  });
  const broken = brokenThresholds(summary, {
    maxErrorRate: Number(f["max-error-rate"]),
    p95Ms: optionalNumber(f["p95-ms"]),
    p99Ms: optionalNumber(f["p99-ms"]),
    minRequestsPerSecond: optionalNumber(f["min-rps"]),
  });
  process.stdout.write(formatReport(runId, summary, broken));
  if (f.json !== undefined) writeFileSync(String(f.json), `${JSON.stringify({ runId, ...summary, thresholdsBroken: broken }, null, 2)}\n`);
  return broken.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`loadtest: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
