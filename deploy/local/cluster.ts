/**
 * `npm run cluster -- up|down|status [--dir .plat/cluster] [--nodes N] [--replicas N] [--profile plat|kubernetes]
 *                                    [--node-agents N] [--base-port P] [--host H] [--stream S] [--fresh]`
 *
 * up:     starts the components of components.ts (redis-server, the store nodes (`--nodes`),
 *         the apiserver replicas (`--replicas`), haproxy, the controller manager) as detached processes on
 *         loopback, records them in <dir>/state.json and prints the endpoints; on failure stops what it started.
 *         The ports and the profile are kept in <dir>/layout.json (layout.ts), so an `up` after `down`
 *         restarts the same cluster with its data; `--fresh` wipes data, logs and layout first.
 * down:   stops every recorded process (reverse order) and removes the state file; data and layout stay.
 * status: prints Maintenance Status of each store node and liveness of the rest.
 * member-add:            adds a store member to the running cluster (MemberAdd, then the member
 *                        started with --initial-cluster-state existing) and records it (store-members.ts).
 * member-remove <id|name>: removes a store member (MemberRemove), stops it and drops its data and records.
 */
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { FlagError, parseFlags, usage, type FlagSpec } from "../../shared/cli/flags.ts";
import { storeStatus } from "../../services/store/server/node-process.ts";
import { grpcChannelCredentials } from "../../shared/tls/grpc-credentials.ts";
import { readLayout, wipeClusterData, layoutPort, writeLayout } from "./layout.ts";
import { DEFAULT_APISERVER_REPLICAS } from "./apiserver-components.ts";
import { PROFILE_IDS } from "../../shared/platform/profile.ts";
import { COMPONENTS, freePort, type ClusterOptions, type ComponentContext } from "./components.ts";
import { ownedAndAlive, readState, removeState, writeState, type ClusterState, type ProcessRecord } from "./state.ts";
import { memberAdd, memberRemove, type MemberCommandOptions } from "./store-members.ts";

const FLAGS: Record<string, FlagSpec> = {
  dir: { kind: "string", default: ".plat/cluster", help: "directory of data, logs and the state file" },
  nodes: { kind: "number", default: 3, help: "store nodes (a Raft group; 3 or 5 tolerate 1 or 2 failures)" },
  replicas: { kind: "number", default: DEFAULT_APISERVER_REPLICAS, help: "apiserver replicas behind haproxy" },
  profile: { kind: "string", default: "", help: `naming profile (${PROFILE_IDS.join(" or ")}); default: the one of the existing data, else plat` },
  fresh: { kind: "boolean", default: false, help: "up: remove the data, logs and ports of an earlier cluster in --dir first" },
  "node-agents": { kind: "number", default: 0, help: "node agents to start, each with its own root dir" },
  "base-port": { kind: "number", default: 0, help: "first of consecutive fixed ports; 0 picks free ports" },
  host: { kind: "string", default: "127.0.0.1", help: "loopback address to listen on" },
  stream: { kind: "string", default: "revisions", help: "name of the revision stream" },
  help: { kind: "boolean", default: false, help: "print the flags" },
};

const print = (line: string) => process.stdout.write(`${line}\n`);
// A reader that goes away (`| head`) must not kill `up` halfway, leaving processes nobody records.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code !== "EPIPE") throw err;
});

/**
 * SIGTERM, then SIGKILL after `graceMs`; done once the pid is no longer ours. The
 * processes outlived the `up` that started them, so their parent is some reaper:
 * a zombie waiting for it has an empty command line and counts as stopped.
 */
async function stopRecord(record: ProcessRecord, graceMs: number): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(record.pid, name);
    } catch {
      // Already gone.
    }
  };
  signal("SIGTERM");
  const deadline = Date.now() + graceMs;
  while (ownedAndAlive(record) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  if (!ownedAndAlive(record)) return;
  signal("SIGKILL");
  while (ownedAndAlive(record)) await new Promise((r) => setTimeout(r, 25));
}

/** Stops components in reverse start order; the processes of one role (replicas of one component) stop together. */
async function stopRecords(records: readonly ProcessRecord[]): Promise<void> {
  const groups: ProcessRecord[][] = [];
  for (const r of [...records].reverse()) {
    const last = groups.at(-1);
    if (last !== undefined && last[0].role === r.role) last.push(r);
    else groups.push([r]);
  }
  for (const group of groups) {
    await Promise.all(
      group.filter((r) => ownedAndAlive(r)).map(async (r) => {
        await stopRecord(r, 10_000);
        print(`stopped ${r.name} (pid ${r.pid})`);
      }),
    );
  }
}

async function up(requested: ClusterOptions & { fresh: boolean }): Promise<void> {
  const { fresh, ...base } = requested;
  const existing = readState(base.dir);
  if (existing !== undefined && existing.processes.some((p) => ownedAndAlive(p))) {
    throw new Error(`a cluster is already running from ${base.dir}: run "npm run cluster -- down" first`);
  }
  if (fresh) {
    const removed = wipeClusterData(base.dir);
    if (removed.length > 0) print(`removed ${removed.join(", ")} from ${base.dir}`);
  }
  mkdirSync(base.dir, { recursive: true });
  const layout = readLayout(base.dir);
  if (base.profile !== "" && layout.profile !== undefined && layout.profile !== base.profile) {
    throw new Error(`the data in ${base.dir} was made with --profile ${layout.profile}; use --fresh to start over with ${base.profile}`);
  }
  const opts: ClusterOptions = { ...base, profile: base.profile || layout.profile || PROFILE_IDS[0] };
  writeLayout(opts.dir, { ...layout, profile: opts.profile });
  layout.profile = opts.profile;
  const state: ClusterState = { dir: opts.dir, startedAt: new Date().toISOString(), processes: [], outputs: {} };
  const ctx: ComponentContext = {
    opts,
    layout,
    outputs: state.outputs,
    port: (offset) => (opts.basePort > 0 ? Promise.resolve(opts.basePort + offset) : layoutPort(opts.dir, layout, offset, () => freePort(opts.host))),
    log: print,
  };
  for (const component of COMPONENTS) {
    try {
      state.processes.push(...(await component.up(ctx)));
      await writeState(state);
    } catch (err) {
      const started = (err as { records?: ProcessRecord[] }).records ?? [];
      print(`${component.name} failed: ${err instanceof Error ? err.message : String(err)}; stopping what was started (logs in ${opts.dir}/logs)`);
      await stopRecords([...state.processes, ...started]);
      await removeState(opts.dir);
      process.exitCode = 1;
      return;
    }
  }
  print(`store endpoints: ${(state.outputs.storeEndpoints as string[]).join(",")}`);
  print(`state: ${opts.dir}/state.json   stop with: npm run cluster -- down${opts.dir === resolve(".plat/cluster") ? "" : ` --dir ${opts.dir}`}`);
}

async function down(opts: ClusterOptions): Promise<void> {
  const state = readState(opts.dir);
  if (state === undefined) {
    print(`no cluster state in ${opts.dir}`);
    return;
  }
  await stopRecords(state.processes);
  await removeState(opts.dir);
}

async function status(opts: ClusterOptions): Promise<void> {
  const state = readState(opts.dir);
  if (state === undefined) {
    print(`no cluster state in ${opts.dir}`);
    process.exitCode = 1;
    return;
  }
  const o = state.outputs;
  const storeClient = grpcChannelCredentials(typeof o.storeCaFile === "string" ? { caFile: o.storeCaFile, certFile: String(o.storeCertFile), keyFile: String(o.storeKeyFile) } : {});
  for (const p of state.processes) {
    const alive = ownedAndAlive(p);
    if (p.role !== "store" || !alive) {
      print(`${p.name.padEnd(11)} ${p.endpoint.padEnd(24)} pid ${p.pid} ${alive ? "running" : "NOT RUNNING"}`);
      continue;
    }
    try {
      const s = await storeStatus(p.endpoint, 3000, storeClient.credentials);
      const leader = s.leader === s.header.member_id ? "leader" : "follower";
      print(
        `${p.name.padEnd(11)} ${p.endpoint.padEnd(24)} pid ${p.pid} id ${BigInt(s.header.member_id).toString(16)} ${leader} ` +
          `version ${s.version} term ${s.raftTerm} index ${String(s.raftIndex)} applied ${String(s.raftAppliedIndex)} revision ${s.header.revision} dbSize ${String(s.dbSize)}`,
      );
    } catch (err) {
      print(`${p.name.padEnd(11)} ${p.endpoint.padEnd(24)} pid ${p.pid} running, status failed: ${(err as Error).message}`);
      process.exitCode = 1;
    }
  }
}

const COMMANDS = ["up", "down", "status", "member-add", "member-remove"];

async function main(): Promise<void> {
  const [command, ...args] = process.argv.slice(2);
  // member-remove takes the member (hex id or name) before the flags.
  const target = command === "member-remove" && args[0] !== undefined && !args[0].startsWith("--") ? args[0] : undefined;
  const flags = parseFlags(target === undefined ? args : args.slice(1), FLAGS);
  if (flags.help || command === undefined || !COMMANDS.includes(command) || (command === "member-remove" && target === undefined)) {
    print(`usage: npm run cluster -- up|down|status|member-add|member-remove <id|name> [flags]\n\nflags:\n${usage(FLAGS)}`);
    if (!flags.help) process.exitCode = 2;
    return;
  }
  const nodes = Number(flags.nodes);
  if (!Number.isInteger(nodes) || nodes < 1) throw new FlagError("--nodes must be a positive integer");
  const replicas = Number(flags.replicas);
  if (!Number.isInteger(replicas) || replicas < 1) throw new FlagError("--replicas must be a positive integer");
  const profile = String(flags.profile);
  if (profile !== "" && !(PROFILE_IDS as readonly string[]).includes(profile)) throw new FlagError(`--profile must be one of ${PROFILE_IDS.join(", ")}`);
  const opts: ClusterOptions & { fresh: boolean } = {
    dir: resolve(String(flags.dir)),
    replicas,
    profile,
    fresh: Boolean(flags.fresh),
    host: String(flags.host),
    nodes,
    basePort: Number(flags["base-port"]),
    stream: String(flags.stream),
    nodeAgents: Number(flags["node-agents"]),
  };
  if (!Number.isInteger(opts.nodeAgents) || (opts.nodeAgents ?? 0) < 0) throw new FlagError("--node-agents must be a non-negative integer");
  const members: MemberCommandOptions = { dir: opts.dir, host: opts.host, stream: opts.stream, print, stop: stopRecord };
  if (command === "up") await up(opts);
  else if (command === "down") await down(opts);
  else if (command === "member-add") await memberAdd(members);
  else if (command === "member-remove") await memberRemove(members, target ?? "");
  else await status(opts);
}

main().catch((err: unknown) => {
  process.stderr.write(`cluster: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
