/**
 * `store restore`: builds a new member's data directory from a snapshot file, as
 * `etcdctl snapshot restore` does for etcd, with etcdctl's flag names. Every member of
 * the new cluster is restored from the same file with the same --initial-cluster and
 * --initial-cluster-token (and its own --name), then started with those flags.
 *
 * The directory holds what a member that bootstrapped this membership and then took a
 * snapshot would hold: a Raft snapshot at index n (the number of members), term 1,
 * whose configuration has every member as a voter and whose data is the member list
 * and the restored MVCC state (revisions, history since the compact revision, leases;
 * alarms cleared), and a log with that snapshot's marker and a hard state committing
 * it. Member ids hash the peer URLs and the cluster id comes from the token, so the
 * restored cluster is a new cluster that shares no id with the old one unless the
 * same token and peer URLs are reused.
 *
 * The file is checked before anything is written: its sha256 trailer must match
 * (--skip-hash-check accepts a file without one, e.g. a copied database); the data
 * directory must not exist or be empty.
 */
import { readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { FlagError, parseFlags, usage, type FlagSpec } from "../../../shared/cli/flags.ts";
import { encodeSnapshot } from "../mvcc/snapshot.ts";
import { encodeSnapshotData } from "../node/snapshot-data.ts";
import type { Member } from "../node/members.ts";
import { parseInitialCluster } from "../server/node-flags.ts";
import { memberIdForPeerUrls } from "../server/raft-backend.ts";
import { Snapshotter, Wal } from "../wal/index.ts";
import { BackupFormatError, decodeBackupImage, verifiedImage } from "./backup-image.ts";

export const RESTORE_FLAGS: Record<string, FlagSpec> = {
  snapshot: { kind: "string", default: "", help: "the snapshot file (from etcdctl snapshot save)" },
  "data-dir": { kind: "string", default: "", help: "the new member's data directory (must not exist or be empty)" },
  name: { kind: "string", default: "default", help: "the new member's name (a key of --initial-cluster)" },
  "initial-cluster": { kind: "string", default: "", help: "name=peerURL,... of every member of the restored cluster" },
  "initial-cluster-token": { kind: "string", default: "store-cluster", help: "token of the restored cluster (start its members with the same one)" },
  "skip-hash-check": { kind: "boolean", default: false, help: "accept a file without its sha256 trailer" },
  help: { kind: "boolean", default: false, help: "print the flags" },
};

export interface RestoreOptions {
  snapshotFile: string;
  dataDir: string;
  name: string;
  initialCluster: string;
  skipHashCheck: boolean;
}

export interface RestoreResult {
  revision: number;
  keys: number;
  members: Member[];
  memberId: number;
}

export function restoreOptions(argv: readonly string[]): RestoreOptions | "help" {
  const flags = parseFlags(argv, RESTORE_FLAGS);
  if (flags.help === true) return "help";
  const need = (flag: string): string => {
    const v = String(flags[flag] ?? "");
    if (v === "") throw new FlagError(`--${flag} is required`);
    return v;
  };
  return {
    snapshotFile: need("snapshot"),
    dataDir: need("data-dir"),
    name: need("name"),
    initialCluster: need("initial-cluster"),
    skipHashCheck: flags["skip-hash-check"] === true,
  };
}

async function ensureEmpty(dir: string): Promise<void> {
  const entries = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return [];
    throw err;
  });
  if (entries.length > 0) throw new Error(`data-dir "${dir}" exists and is not empty`);
}

export async function restoreDataDir(o: RestoreOptions): Promise<RestoreResult> {
  const cluster = parseInitialCluster(o.initialCluster);
  const self = cluster.find((m) => m.name === o.name);
  if (self === undefined) throw new FlagError(`--initial-cluster has no member named "${o.name}"`);
  const dataDir = resolve(o.dataDir);
  await ensureEmpty(dataDir);

  const file = await readFile(o.snapshotFile);
  const hasChecksum = file.length % 512 === 32;
  if (!hasChecksum && !o.skipHashCheck) throw new BackupFormatError("snapshot missing hash but --skip-hash-check=false");
  const { state } = decodeBackupImage(verifiedImage(file));

  const members: Member[] = cluster
    .map((m) => ({ id: memberIdForPeerUrls(m.peerUrls), name: m.name, peerUrls: m.peerUrls, clientUrls: [], isLearner: false }))
    .sort((a, b) => a.id - b.id);
  if (new Set(members.map((m) => m.id)).size !== members.length) throw new FlagError("--initial-cluster names one peer URL set twice");
  const index = members.length;
  const confState = { voters: members.map((m) => m.id), learners: [], votersOutgoing: [], learnersNext: [], autoLeave: false };
  const snapshot = {
    metadata: { index, term: 1, confState },
    data: encodeSnapshotData(members, encodeSnapshot({ ...state, alarms: [] })),
  };
  await new Snapshotter(join(dataDir, "snap")).save(snapshot);
  const { wal } = await Wal.open(join(dataDir, "wal"));
  try {
    await wal.saveSnapshotMarker(snapshot.metadata);
    await wal.save({ term: 1, vote: 0, commit: index }, []);
  } finally {
    await wal.close();
  }
  return { revision: state.revision, keys: state.keys.length, members, memberId: memberIdForPeerUrls(self.peerUrls) };
}

/**
 * The command: prints what it restored and resolves with the exit status (0 done,
 * 2 bad flags, 1 any other failure, with one line on stderr).
 */
export async function restoreCommand(argv: readonly string[]): Promise<number> {
  let options: RestoreOptions | "help";
  try {
    options = restoreOptions(argv);
  } catch (err) {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n\nUsage: store restore [flags]\n\nflags:\n${usage(RESTORE_FLAGS)}\n`);
    return 2;
  }
  if (options === "help") {
    process.stdout.write(`Usage: store restore [flags]\n\nflags:\n${usage(RESTORE_FLAGS)}\n`);
    return 0;
  }
  try {
    const r = await restoreDataDir(options);
    process.stdout.write(
      `restored snapshot ${options.snapshotFile} into ${resolve(options.dataDir)}: revision ${r.revision}, ${r.keys} keys, member ${r.memberId.toString(16)} of ${r.members.length}\n`,
    );
    return 0;
  } catch (err) {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return err instanceof FlagError ? 2 : 1;
  }
}
