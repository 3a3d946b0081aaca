/**
 * The store's Maintenance API driven by the real etcdctl 3.4 against a 3-member store
 * cluster of real processes: snapshot save/status/restore (etcd's own restore accepts
 * our file), HashKV equal on every member, MoveLeader, Defragment shrinking dbSize to
 * dbSizeInUse after a compaction and each member's data dir on disk to one snapshot
 * file of the compacted state and a fresh log segment, the space quota (NOSPACE
 * raised, writes refused with etcd's message, deletes and compaction allowed, disarm
 * after compaction and defragmentation), a member restarted from its defragmented data
 * dir serving the data, and the periodic corruption check raising CORRUPT for a member
 * whose data on disk was altered behind its checksums. One cluster for the file; the
 * quota is small so it is reached fast.
 */
import { createHash } from "node:crypto";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EtcdClient } from "../../shared/etcd/client.ts";
import { decodeSnapshot, encodeSnapshot } from "../../services/store/mvcc/snapshot.ts";
import { decodeSnapshotData, encodeSnapshotData } from "../../services/store/node/snapshot-data.ts";
import { Snapshotter } from "../../services/store/wal/index.ts";
import { restoreDataDir, restoreOptions } from "../../services/store/maintenance/restore.ts";
import { endpointStatus, etcdctl, etcdctlOk, startStoreCluster, storeRestore, type StoreCluster } from "./store-maintenance-support.ts";

const QUOTA = 512 * 1024;

/** Bytes of every file under `dir`, and the names of its WAL segments and snapshot files. */
/**
 * Bytes a data dir holds: every file's size, except that a log segment counts up to its
 * last non-zero byte. A member writes zeros ahead of its log's end (preallocation, as etcd
 * does), so a segment's file size is a whole preallocation step whatever it holds.
 */
async function diskUse(dir: string): Promise<{ bytes: number; wal: string[]; snap: string[] }> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile());
  const sizes = await Promise.all(
    files.map(async (e) => {
      const path = join(e.parentPath, e.name);
      return e.name.endsWith(".wal") ? usedBytes(await readFile(path)) : (await stat(path)).size;
    }),
  );
  const names = (ext: string) => files.filter((e) => e.name.endsWith(ext)).map((e) => e.name);
  return { bytes: sizes.reduce((a, b) => a + b, 0), wal: names(".wal"), snap: names(".snap") };
}

/** Length of `buf` without its trailing zero bytes. */
function usedBytes(buf: Uint8Array): number {
  let end = buf.length;
  while (end > 0 && buf[end - 1] === 0) end--;
  return end;
}

describe("store maintenance with etcdctl against 3 member processes", () => {
  let c: StoreCluster;
  let ep: string[];
  let client: EtcdClient;
  /** Puts through the gRPC client (bulk data); resolves with the revision of the write. */
  const put = async (key: string, value: string): Promise<number> => {
    const res = await client.unary("Put", { key: Buffer.from(key), value: Buffer.from(value) });
    return Number(res.header?.revision);
  };
  beforeAll(async () => {
    c = await startStoreCluster(3, [`--quota-backend-bytes=${QUOTA}`, "--experimental-corrupt-check-time=500ms"]);
    ep = c.endpoints();
    client = new EtcdClient(ep[0]);
  }, 60_000);
  afterAll(async () => {
    client?.close();
    if (c !== undefined) await c.close();
  });

  it("snapshot save streams a file that etcdctl snapshot status and etcd's restore accept", async () => {
    for (let i = 0; i < 50; i++) await put(`snap/k${i % 20}`, `value-${i}`);
    const deleted = await client.unary("DeleteRange", { key: Buffer.from("snap/k3") });
    const revision = Number(deleted.header?.revision);
    const file = join(c.dir, "backup.db");
    const saved = await etcdctl([ep[1]], ["snapshot", "save", file]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toContain(`Snapshot saved at ${file}`);

    const bytes = await readFile(file);
    expect(bytes.length % 512).toBe(32);
    const trailer = bytes.subarray(bytes.length - 32).toString("hex");
    expect(trailer).toBe(createHash("sha256").update(bytes.subarray(0, bytes.length - 32)).digest("hex"));

    const status = JSON.parse(await etcdctlOk([], ["snapshot", "status", file, "-w", "json"])) as { revision: number; totalKey: number; totalSize: number };
    expect(status.revision).toBeGreaterThanOrEqual(revision);
    // 51 key entries (50 puts, 1 tombstone) plus the meta bucket's consistent index.
    expect(status.totalKey).toBeGreaterThanOrEqual(52);
    expect(status.totalSize).toBe(bytes.length - 32);

    const restored = await etcdctl([], ["snapshot", "restore", file, `--data-dir=${join(c.dir, "etcd-restored")}`, "--name=e1", "--initial-cluster=e1=http://127.0.0.1:2380", "--initial-advertise-peer-urls=http://127.0.0.1:2380"]);
    expect(restored.code, restored.stderr).toBe(0);
  }, 30_000);

  it("store restore builds a new 3-member cluster from the snapshot file", async () => {
    const file = join(c.dir, "backup.db");
    const originalClusterId = (await endpointStatus([ep[0]]))[0].Status.header.cluster_id;
    const restored = await Promise.all(["r1", "r2", "r3"].map((name) => c.addMember(name)));
    const initialCluster = restored.map((m) => `${m.name}=${m.peerUrl}`).join(",");
    const token = "--initial-cluster-token=restored-cluster";
    // The command as a real process for the first member; the same function in process for the others.
    const args = (m: (typeof restored)[number]) => [`--snapshot=${file}`, `--data-dir=${m.dataDir}`, `--name=${m.name}`, `--initial-cluster=${initialCluster}`, token];
    const run = await storeRestore(args(restored[0]));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/restored snapshot .*: revision \d+, \d+ keys, member [0-9a-f]+ of 3/);
    for (const m of restored.slice(1)) {
      const o = restoreOptions(args(m));
      if (o === "help") throw new Error("unexpected help");
      await restoreDataDir(o);
    }
    const first = c.members.indexOf(restored[0]);
    try {
      await Promise.all(restored.map((_, i) => c.start(first + i, { initialCluster, extraArgs: [token] })));
      const rep = restored.map((m) => m.endpoint);
      const status = await endpointStatus(rep);
      expect(new Set(status.map((s) => s.Status.header.cluster_id)).size).toBe(1);
      expect(status[0].Status.header.cluster_id).not.toBe(originalClusterId);
      expect(await etcdctlOk(rep, ["get", "snap/k19"])).toBe("snap/k19\nvalue-39\n");
      expect(await etcdctlOk(rep, ["get", "snap/k3"])).toBe("");
      expect(await etcdctlOk(rep, ["put", "restored/new", "1"])).toBe("OK\n");
      const members = await etcdctlOk(rep, ["member", "list"]);
      for (const m of restored) expect(members).toContain(`${m.name}, ${m.peerUrl}`);
    } finally {
      await Promise.all(restored.map((_, i) => c.stop(first + i)));
    }
    // A file whose checksum does not match is refused before anything is written.
    const bad = join(c.dir, "bad.db");
    const bytes = await readFile(file);
    bytes[100] ^= 1;
    await writeFile(bad, bytes);
    await expect(restoreDataDir({ snapshotFile: bad, dataDir: join(c.dir, "bad-restore"), name: "x", initialCluster: "x=http://127.0.0.1:1", skipHashCheck: false })).rejects.toThrow(/expected sha256/);
    await expect(readFile(join(c.dir, "bad-restore"))).rejects.toThrow(/ENOENT/);
  }, 120_000);

  it("HashKV is the same on every member at one revision and changes with the data", async () => {
    const rev = await put("hash/a", "1");
    const hashes = async (r: number) =>
      (JSON.parse(await etcdctlOk(ep, ["endpoint", "hashkv", `--rev=${r}`, "-w", "json"])) as { HashKV: { hash: number } }[]).map((h) => h.HashKV.hash);
    const first = await hashes(rev);
    expect(first).toHaveLength(3);
    expect(new Set(first).size).toBe(1);
    await put("hash/a", "2");
    const later = await hashes(rev + 1);
    expect(new Set(later).size).toBe(1);
    expect(later[0]).not.toBe(first[0]);
    // A revision beyond the current one is etcd's future revision error.
    const future = await etcdctl([ep[0]], ["endpoint", "hashkv", `--rev=${rev + 1000}`]);
    expect(future.stderr).toContain("required revision is a future revision");
  }, 30_000);

  it("move-leader hands leadership to the named member", async () => {
    const before = await endpointStatus(ep);
    const leader = before[0].Status.leader;
    const target = before.find((s) => s.Status.header.member_id !== leader);
    expect(target).toBeDefined();
    const hex = BigInt(target?.Status.header.member_id ?? 0).toString(16);
    const out = await etcdctlOk(ep, ["move-leader", hex]);
    expect(out).toContain(`Leadership transferred from ${BigInt(leader).toString(16)} to ${hex}`);
    const after = await endpointStatus(ep);
    for (const s of after) expect(BigInt(s.Status.leader).toString(16)).toBe(hex);
    const bad = await etcdctl(ep, ["move-leader", "abcdef"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("bad leader transferee");
  }, 30_000);

  it("defrag after a compaction brings dbSize down to dbSizeInUse and the data dir to the compacted state", async () => {
    const value = "x".repeat(8 * 1024);
    let rev = 0;
    for (let i = 0; i < 20; i++) rev = await put("defrag/big", `${i}${value}`);
    await etcdctlOk(ep, ["compact", String(rev), "--physical"]);
    // The compaction keeps the value at rev and the one before it (the prevKv of rev's event): 18 of 20 go.
    const before = await endpointStatus(ep);
    for (const s of before) expect(s.Status.dbSize - s.Status.dbSizeInUse).toBeGreaterThan(17 * 8 * 1024);
    const diskBefore = await Promise.all(c.members.slice(0, 3).map((m) => diskUse(m.dataDir)));
    // The 20 puts are in each member's log on disk.
    for (const d of diskBefore) expect(d.bytes).toBeGreaterThan(20 * 8 * 1024);
    const out = await etcdctlOk(ep, ["defrag"]);
    expect(out.match(/Finished defragmenting etcd member/g)).toHaveLength(3);
    const after = await endpointStatus(ep);
    after.forEach((s, i) => {
      expect(s.Status.dbSize).toBe(s.Status.dbSizeInUse);
      expect(s.Status.dbSize).toBeLessThan(before[i].Status.dbSize - 17 * 8 * 1024);
    });
    // On disk: one snapshot file of the compacted state and a fresh log segment; the log holding the puts is gone.
    const diskAfter = await Promise.all(c.members.slice(0, 3).map((m) => diskUse(m.dataDir)));
    diskAfter.forEach((d, i) => {
      expect(d.snap, `member ${i + 1}`).toHaveLength(1);
      expect(d.wal, `member ${i + 1}`).toHaveLength(1);
      expect(d.bytes, `member ${i + 1}`).toBeLessThan(diskBefore[i].bytes - 17 * 8 * 1024);
      expect(d.bytes, `member ${i + 1}`).toBeLessThan(after[i].Status.dbSizeInUse + 16 * 1024);
    });
  }, 40_000);

  it("the quota raises NOSPACE, refuses puts with etcd's error, allows deletes, and is cleared by compaction, defrag and disarm", async () => {
    const value = "q".repeat(32 * 1024);
    let refused = "";
    for (let i = 0; i < 40 && refused === ""; i++) {
      await put(`quota/k${i % 4}`, value).catch((err: unknown) => (refused = String(err)));
    }
    expect(refused).toContain("etcdserver: mvcc: database space exceeded");
    const alarms = await etcdctlOk(ep, ["alarm", "list"]);
    expect(alarms).toMatch(/memberID:\d+ alarm:NOSPACE/);
    // Every member refuses writes now, even small ones.
    for (const e of ep) expect((await etcdctl([e], ["put", "quota/small", "1"])).stderr).toContain("database space exceeded");
    // Deletes and compaction still work.
    expect(await etcdctlOk(ep, ["del", "quota/k0"])).toBe("1\n");
    const rev = Number((await client.unary("Range", { key: Buffer.from("quota/") })).header?.revision);
    await etcdctlOk(ep, ["compact", String(rev), "--physical"]);
    await etcdctlOk(ep, ["defrag"]);
    const disarmed = await etcdctlOk(ep, ["alarm", "disarm"]);
    expect(disarmed).toMatch(/alarm:NOSPACE/);
    expect(await etcdctlOk(ep, ["alarm", "list"])).toBe("");
    expect(await etcdctlOk(ep, ["put", "quota/after", "ok"])).toBe("OK\n");
    const status = await endpointStatus(ep);
    for (const s of status) expect(s.Status.dbSize).toBeLessThan(QUOTA);
  }, 60_000);

  // After the quota test: a restart could start an election, which the quota's one alarm proposal must not meet.
  it("a member restarted from its defragmented data dir serves the data", async () => {
    const status = await endpointStatus(ep);
    const follower = status.findIndex((s, i) => i < 2 && s.Status.header.member_id !== s.Status.leader);
    const restarted = c.members[follower].endpoint;
    const current = await client.unary("Range", { key: Buffer.from("defrag/big") });
    await c.stop(follower);
    expect((await diskUse(c.members[follower].dataDir)).snap).toHaveLength(1);
    await c.start(follower);
    expect(await etcdctlOk([restarted], ["get", "defrag/big", "--print-value-only", "--consistency=s"])).toBe(`${Buffer.from(current.kvs[0].value).toString()}\n`);
    expect((await endpointStatus([restarted]))[0].Status.header.revision).toBeGreaterThanOrEqual(Number(current.header?.revision));
  }, 40_000);

  it("the corruption check raises CORRUPT for a member whose stored data differs, and writes are refused", async () => {
    await put("corrupt/key", "original");
    // Written into every member's snapshot file, then altered on member 3 behind the file's checksum.
    await etcdctlOk(ep, ["defrag"]);
    await c.stop(2);
    const snapshotter = new Snapshotter(join(c.members[2].dataDir, "snap"));
    const snap = await snapshotter.load();
    if (snap === undefined) throw new Error("member 3 has no snapshot file");
    const data = decodeSnapshotData(snap.data);
    const state = decodeSnapshot(data.mvcc);
    const entry = state.keys.find((k) => Buffer.from(k.key).toString() === "corrupt/key")?.lastEntry();
    if (entry?.kv === null || entry === undefined) throw new Error("corrupt/key is not in the snapshot");
    entry.kv.value[0] ^= 0x20;
    await snapshotter.save({ metadata: snap.metadata, data: encodeSnapshotData(data.members, encodeSnapshot(state), data.removed) });
    await c.start(2);
    const corruptId = (await endpointStatus([c.members[2].endpoint]))[0].Status.header.member_id;

    const deadline = Date.now() + 15_000;
    let alarms = "";
    while (!alarms.includes("CORRUPT") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      alarms = await etcdctlOk(ep, ["alarm", "list"]);
    }
    expect(alarms).toContain(`memberID:${corruptId} alarm:CORRUPT`);
    const refused = await etcdctl(ep, ["put", "corrupt/after", "x"]);
    expect(refused.stderr).toContain("etcdserver: corrupt cluster");
  }, 40_000);
});
