/**
 * The local cluster's state file (<dir>/state.json): every process the tool
 * started, with its pid, role, endpoint and log file, so that `down` and `status`
 * work from another invocation. A pid is only signalled while its command line
 * still contains the record's `match` (a reused pid is never killed).
 */
import { existsSync, readFileSync } from "node:fs";
import { rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

export interface ProcessRecord {
  /** "store", "redis", later "apiserver", "haproxy". */
  role: string;
  name: string;
  pid: number;
  /** host:port clients use (store: gRPC client URL; redis: redis URL). */
  endpoint: string;
  log: string;
  /** A substring of the process's command line that proves the pid is still ours. */
  match: string;
}

export interface ClusterState {
  dir: string;
  startedAt: string;
  processes: ProcessRecord[];
  /** Values components publish for later ones and for users (e.g. store endpoints, redis URL). */
  outputs: Record<string, string | string[]>;
}

export function statePath(dir: string): string {
  return join(dir, "state.json");
}

export function readState(dir: string): ClusterState | undefined {
  const path = statePath(dir);
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, "utf8")) as ClusterState;
}

/** Replaces the state file atomically: a tool that dies mid-write leaves the previous state, never a truncated one. */
export async function writeState(state: ClusterState): Promise<void> {
  const path = statePath(state.dir);
  await writeFile(`${path}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  await rename(`${path}.tmp`, path);
}

export async function removeState(dir: string): Promise<void> {
  await rm(statePath(dir), { force: true });
}

/** Whether the recorded process is alive and still ours (its command line contains `match`). */
export function ownedAndAlive({ pid, match }: Pick<ProcessRecord, "pid" | "match">): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
    return cmdline.includes(match);
  } catch {
    // No /proc (not Linux): trust the pid.
    return true;
  }
}
