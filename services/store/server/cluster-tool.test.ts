/**
 * The local cluster tool (deploy/local/cluster.ts) end to end: up starts redis-server
 * and the store nodes as processes, status reports them, the leader publishes to the
 * revision stream (and its successor continues after it is killed), member-add grows
 * the store by a member that serves the data and member-remove shrinks it (state and
 * layout follow), down stops every process and removes the state file.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { grpcChannelCredentials } from "../../../shared/tls/grpc-credentials.ts";
import { readLayout } from "../../../deploy/local/layout.ts";
import { REPO_ROOT, stopPid, storeStatus as plainStoreStatus } from "./node-process.ts";

const run = promisify(execFile);
const CLUSTER = join(REPO_ROOT, "deploy", "local", "cluster.ts");

async function cluster(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", CLUSTER, ...args], { cwd: REPO_ROOT, timeout: 120_000 });
  return stdout;
}

interface State {
  processes: Array<{ role: string; name: string; pid: number; endpoint: string }>;
  outputs: { storeEndpoints: string[]; redisUrl: string; storeCaFile: string; storeCertFile: string; storeKeyFile: string };
}

/**
 * Gone, or a zombie: down returns once its detached processes have exited; reaping them
 * is up to whichever process adopted them, which may take a moment.
 */
function stopped(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return true;
  }
}

if (!existsSync("/usr/bin/redis-server")) throw new Error("redis-server is required: apt-get install redis-server (npm test's pretest step does this as root)");
describe("local cluster tool", () => {
  let dir = "";
  let state: State | undefined;
  afterAll(async () => {
    // Whatever happened, no process outlives the test.
    for (const p of state?.processes ?? []) await stopPid(p.pid, 2000);
    if (dir && !process.env.KEEP_CLUSTER_DIR) await rm(dir, { recursive: true, force: true });
  });

  it("brings a cluster up, reports status, publishes revisions and brings it down", async () => {
    dir = await mkdtemp(join(tmpdir(), "local-cluster-"));
    const out = await cluster("up", "--dir", dir);
    state = JSON.parse(readFileSync(join(dir, "state.json"), "utf8")) as State;
    expect(out).toContain(`store endpoints: ${state.outputs.storeEndpoints.join(",")}`);
    expect(state.processes.map((p) => p.role)).toEqual(["redis", ...state.outputs.storeEndpoints.map(() => "store"), "apiserver", "apiserver", "haproxy", "controller-manager", "controller-manager"]);

    const status = await cluster("status", "--dir", dir);
    expect(status.match(/^store-\d .* (leader|follower) version 3\.5\.0 /gm)).toHaveLength(state.outputs.storeEndpoints.length);
    expect(status.match(/ leader version/g)).toHaveLength(1);
    expect(status).toMatch(/redis .* running/);

    // The cluster runs mTLS to the store and to Redis (deploy/local/store-pki.ts).
    const o = state.outputs;
    const tls = grpcChannelCredentials({ caFile: o.storeCaFile, certFile: o.storeCertFile, keyFile: o.storeKeyFile });
    const storeStatus = (endpoint: string) => plainStoreStatus(endpoint, 2000, tls.credentials);
    let endpoints = o.storeEndpoints;
    const etcdctl = async (on: readonly string[], ...args: string[]) => {
      const flags = [`--endpoints=${on.map((e) => `https://${e}`).join(",")}`, `--cacert=${o.storeCaFile}`, `--cert=${o.storeCertFile}`, `--key=${o.storeKeyFile}`, "--command-timeout=15s"];
      return (await run("/usr/bin/etcdctl", [...flags, ...args], { env: { ...process.env, ETCDCTL_API: "3" } })).stdout;
    };
    const put = async (key: string) => expect(await etcdctl(endpoints, "put", key, "v")).toBe("OK\n");
    expect(o.redisUrl).toMatch(/^rediss:\/\/:[0-9a-f]+@/);
    const redis = new Redis(o.redisUrl, { lazyConnect: true, tls: { ca: readFileSync(o.storeCaFile), cert: readFileSync(o.storeCertFile), key: readFileSync(o.storeKeyFile) } });
    redis.on("error", () => {});
    await redis.connect();
    // The apiserver replicas write too (namespaces, default RBAC policy): compare against the store's revision.
    const streamIds = async (upTo: number): Promise<string[]> => {
      let ids: string[] = [];
      for (let i = 0; i < 150; i++) {
        ids = ((await redis.xrange("revisions", "-", "+")) as Array<[string, string[]]>).map(([id]) => id);
        if (ids.length > 0 && Number(ids[ids.length - 1].split("-")[0]) >= upTo) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      return ids;
    };
    // Ids are 2-0, 3-0, ... with no gap or repeat, and reach the given revision.
    const contiguous = (ids: string[], last: number) => ids.every((id, i) => id === `${i + 2}-0`) && ids.length >= last - 1;
    await put("k1");
    const afterK1 = Number((await storeStatus(endpoints[0])).header.revision);
    expect(contiguous(await streamIds(afterK1), afterK1)).toBe(true);

    // Grow by one member, then shrink by removing an original one, with the tool.
    const added = await cluster("member-add", "--dir", dir);
    expect(added).toMatch(/^Member [0-9a-f]+ added to cluster as store-4 \(https:\/\//m);
    const reload = () => JSON.parse(readFileSync(join(dir, "state.json"), "utf8")) as State;
    state = reload();
    const storeNames = () => (state?.processes ?? []).filter((p) => p.role === "store").map((p) => p.name);
    expect(storeNames()).toEqual(["store-1", "store-2", "store-3", "store-4"]);
    expect(readLayout(dir).storeMembers?.map((m) => m.name)).toEqual(storeNames());
    const joined = state.processes.find((p) => p.name === "store-4");
    // A linearizable read on the new member alone: it has the data written before it joined.
    expect(await etcdctl([joined?.endpoint ?? ""], "get", "k1", "--print-value-only")).toBe("v\n");
    const first = state.processes.find((p) => p.name === "store-1");
    const removed = await cluster("member-remove", "store-1", "--dir", dir);
    expect(removed).toMatch(/^Member [0-9a-f]+ removed from cluster \(store-1\)$/m);
    state = reload();
    expect(storeNames()).toEqual(["store-2", "store-3", "store-4"]);
    expect(readLayout(dir).storeMembers?.map((m) => m.name)).toEqual(storeNames());
    expect(state.outputs.storeEndpoints).toEqual(state.processes.filter((p) => p.role === "store").map((p) => p.endpoint));
    expect(stopped(first?.pid ?? 0)).toBe(true);
    expect(existsSync(join(dir, "store-1"))).toBe(false);
    expect(await etcdctl(state.outputs.storeEndpoints, "member", "list")).not.toContain("store-1");
    endpoints = state.outputs.storeEndpoints;

    // The leader dies: the new leader resumes publishing after the stream's last id.
    // When store-1 led, the others elect a leader after its removal first.
    let statuses = await Promise.all(endpoints.map((e) => storeStatus(e)));
    for (let i = 0; i < 100 && !statuses.some((s) => s.leader === s.header.member_id); i++) {
      await new Promise((r) => setTimeout(r, 100));
      statuses = await Promise.all(endpoints.map((e) => storeStatus(e)));
    }
    const leaderAt = statuses.findIndex((s) => s.leader === s.header.member_id);
    const leaderPid = state.processes.filter((p) => p.role === "store")[leaderAt].pid;
    process.kill(leaderPid, "SIGKILL");
    // Wait for the survivors to elect a leader (a write forwarded to the dead leader would time out, as with etcd).
    const survivors = endpoints.filter((_, i) => i !== leaderAt);
    for (let i = 0; i < 100; i++) {
      const s = await Promise.all(survivors.map((e) => storeStatus(e).catch(() => undefined)));
      if (s.some((x) => x !== undefined && x.leader !== "0" && x.leader === x.header.member_id && x.leader !== statuses[leaderAt].leader)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await put("k2");
    await put("k3");
    const afterK3 = Number((await storeStatus(survivors[0])).header.revision);
    // Every committed revision exactly once, in order, across the leader change.
    expect(contiguous(await streamIds(afterK3), afterK3)).toBe(true);
    redis.disconnect();
    tls.close();

    expect(await cluster("down", "--dir", dir)).toMatch(/stopped redis/);
    expect(existsSync(join(dir, "state.json"))).toBe(false);
    for (const p of state.processes) expect(stopped(p.pid), `pid ${p.pid} (${p.role})`).toBe(true);
    // Eight processes up, a member added and one removed, a leader failover and down: over a minute on a loaded 2-core machine.
  }, 240_000);
});
