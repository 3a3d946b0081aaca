/**
 * `npm run chaos -- [--duration 10m] [--seed N] [--replicas N] [--clients N] [--watchers N] [--keys N] [--history-file F]`
 *
 * Runs the cluster chaos suite (cluster-chaos.ts) on loopback: a 3-member store
 * behind peer proxies, Redis, apiserver replicas behind haproxy, the recording
 * workload and watchers, and the fault schedule until --duration has passed (one
 * full round of every fault at least; the long timings). Prints the fault log as
 * it goes and the report at the end. Exit code: 0 when every promise held, 1 when
 * one broke, 2 on a usage or start-up error.
 */
import { FlagError, parseFlags, usage, type FlagSpec } from "../../shared/cli/flags.ts";
import { brokenFigures, formatChaosReport } from "./chaos-report.ts";
import { LONG_CHAOS, runClusterChaos } from "./cluster-chaos.ts";

const FLAGS: Record<string, FlagSpec> = {
  duration: { kind: "duration", default: LONG_CHAOS.durationMs, help: "how long faults keep coming (10m, 90s, ...)" },
  seed: { kind: "number", default: 0, help: "seed of the workload and the fault choices; 0 picks one" },
  replicas: { kind: "number", default: LONG_CHAOS.replicas, help: "apiserver replicas behind haproxy" },
  clients: { kind: "number", default: LONG_CHAOS.clients, help: "recording clients" },
  watchers: { kind: "number", default: LONG_CHAOS.watchers, help: "watchers checked for lost, duplicated and reordered events" },
  keys: { kind: "number", default: LONG_CHAOS.keys, help: "ConfigMaps the clients share (the key set checked for linearizability)" },
  "history-file": { kind: "string", help: "also write the recorded history (JSON) to this file" },
  help: { kind: "boolean", default: false, help: "print the flags" },
};

async function main(): Promise<number> {
  const f = parseFlags(process.argv.slice(2), FLAGS);
  if (f.help) {
    process.stdout.write(`usage: npm run chaos -- [flags]\n\nflags:\n${usage(FLAGS)}\n`);
    return 0;
  }
  const count = (name: string) => {
    const n = Number(f[name]);
    if (!Number.isInteger(n) || n < 1) throw new FlagError(`--${name} must be a positive integer`);
    return n;
  };
  const seed = Number(f.seed) === 0 ? Math.floor(Math.random() * 2 ** 31) : Number(f.seed);
  const figures = await runClusterChaos(
    { ...LONG_CHAOS, durationMs: Number(f.duration), seed, replicas: count("replicas"), clients: count("clients"), watchers: count("watchers"), keys: count("keys"), historyFile: f["history-file"] === undefined ? undefined : String(f["history-file"]) },
    (line) => process.stdout.write(`${line}\n`),
  );
  process.stdout.write(`\n${formatChaosReport(figures)}`);
  return brokenFigures(figures).length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`chaos: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
