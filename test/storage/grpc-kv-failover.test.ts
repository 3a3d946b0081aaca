/**
 * EtcdKv (over gRPC) against a 3-node store cluster of real processes: when the endpoint it
 * talks to dies (a follower, then the leader) it fails over to the others; reads
 * and history keep working and acknowledged writes are never lost.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/ports.ts";
import { spawnStoreNode, stopChild, storeStatus, waitForMembers, waitForStore, type StoreNodeSpec } from "../../services/store/server/node-process.ts";
import { EtcdKv } from "../../services/apiserver/storage/etcd-kv.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

describe("EtcdKv failover over a 3-node store cluster", () => {
  let dir = "";
  const specs: StoreNodeSpec[] = [];
  const children: ChildProcess[] = [];
  const endpoints: string[] = [];
  let kv: EtcdKv;

  const spawnNode = (i: number) => {
    children[i] = spawnStoreNode(specs[i], { stdio: ["ignore", "ignore", "inherit"] });
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "grpc-kv-failover-"));
    const ports = await Promise.all(Array.from({ length: 6 }, () => freePort()));
    const initialCluster = [0, 1, 2].map((i) => `n${i}=http://127.0.0.1:${ports[2 * i + 1]}`).join(",");
    for (let i = 0; i < 3; i++) {
      specs.push({ name: `n${i}`, clientPort: ports[2 * i], peerPort: ports[2 * i + 1], dataDir: join(dir, `n${i}`), initialCluster, electionTimeoutMs: 500, heartbeatIntervalMs: 50 });
      endpoints.push(`127.0.0.1:${ports[2 * i]}`);
      spawnNode(i);
    }
    await Promise.all(endpoints.map((e, i) => waitForStore(e, 60_000, children[i])));
    await waitForMembers(endpoints[0], 3);
    kv = new EtcdKv(endpoints, { callTimeoutMs: 8000, retryBudgetMs: 20_000 });
  }, 90_000);

  afterAll(async () => {
    await kv?.close();
    await Promise.all(children.map((c) => stopChild(c, 2000)));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const failures: string[] = [];

  /** Creates key -> value if absent; true when acknowledged, false when failed or unknown. */
  async function create(key: string): Promise<boolean> {
    try {
      const res = await kv.txn([{ key, target: "mod", result: "=", value: 0 }], [{ type: "put", key, value: enc.encode(key) }], []);
      return res.succeeded;
    } catch (err) {
      failures.push(`${key}: ${String(err)}`);
      return false;
    }
  }

  const running = (i: number) => children[i].exitCode === null && children[i].signalCode === null;

  async function leaderIndex(): Promise<number> {
    for (;;) {
      for (let i = 0; i < endpoints.length; i++) {
        if (!running(i)) continue;
        const s = await storeStatus(endpoints[i]).catch(() => undefined);
        if (s !== undefined && s.leader !== "0" && s.leader === s.header.member_id) return i;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it("keeps serving through the loss of a follower and then of the leader; acknowledged writes survive", async () => {
    const acked: string[] = [];
    for (let i = 0; i < 20; i++) if (await create(`k/a${i}`)) acked.push(`k/a${i}`);
    expect(acked).toHaveLength(20);
    const start = await kv.currentRevision();

    // A follower dies: quorum holds. A write in flight on its connection has an unknown
    // outcome (not retried: it may have been proposed); every later one succeeds.
    const leader = await leaderIndex();
    const follower = [0, 1, 2].find((i) => i !== leader) as number;
    children[follower].kill("SIGKILL");
    const afterFollower: boolean[] = [];
    for (let i = 0; i < 20; i++) {
      const ok = await create(`k/b${i}`);
      afterFollower.push(ok);
      if (ok) acked.push(`k/b${i}`);
    }
    expect(afterFollower.filter((ok) => !ok).length, failures.join("\n")).toBeLessThanOrEqual(1);
    expect(afterFollower.slice(1).every(Boolean), failures.join("\n")).toBe(true);

    // It comes back from its data dir; then the leader dies: after an election writes succeed again.
    spawnNode(follower);
    await waitForStore(endpoints[follower], 30_000, children[follower]);
    children[leader].kill("SIGKILL");
    const results: boolean[] = [];
    for (let i = 0; i < 20; i++) {
      const ok = await create(`k/c${i}`);
      results.push(ok);
      if (ok) acked.push(`k/c${i}`);
    }
    expect(results.slice(-10).every(Boolean), failures.join("\n")).toBe(true);

    // Linearizable reads and history through the survivors see every acknowledged write.
    const all = await kv.range("k/", { end: "k0" });
    const keys = new Set(all.kvs.map((kv) => kv.key));
    for (const key of acked) expect(keys.has(key), key).toBe(true);
    for (const kv of all.kvs) expect(dec.decode(kv.value)).toBe(kv.key);
    const history = await kv.history(start, all.revision);
    const written = new Set(history.flatMap((c) => c.changes.map((ch) => ch.key)));
    for (const key of acked.filter((k) => !k.startsWith("k/a"))) expect(written.has(key), key).toBe(true);
    expect(history.map((c) => c.revision)).toEqual([...history.map((c) => c.revision)].sort((a, b) => a - b));
  }, 120_000);
});
