/**
 * The processes of the APF benchmark, each on its own: a redis-server, a one-member store
 * (services/store/main.ts) and two apiserver replicas (services/apiserver/main.ts) over
 * them that differ only in `--enable-priority-and-fairness`. Both replicas serve the same
 * certificates (one PKI in one data dir) and read the same token file; RBAC is on. The
 * process that times requests runs none of them. `close()` stops every child it started.
 * With `profileDir`, each replica runs with `--cpu-prof` and writes its profile into
 * `<profileDir>/on` or `/off` when it stops. With `baselineRoot` (a checkout of another
 * commit with its own node_modules or a link to these), the second replica runs that
 * tree's apiserver with APF on instead: old and new dispatch side by side over one store.
 * With `APF_LOOP_PROBE_DIR` set, each replica preloads apf-loop-probe.ts (event-loop delay).
 * `APF_NODE_FLAGS` and `APF_OFF_NODE_FLAGS` (space-separated) are extra node flags of the
 * first and the second replica (e.g. a V8 heap setting compared in one run, with
 * `APF_BASELINE` naming this same tree). With `APF_REPLICA_OUTPUT_DIR`, each replica's
 * stdout and stderr also go to `<dir>/<side>.log` (e.g. `--trace-gc-nvp` lines).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ensurePki } from "../../services/apiserver/server/certs.ts";
import { REPO_ROOT, spawnStoreNode, stopChild, waitForStore } from "../../services/store/server/node-process.ts";
import { getProfile, type PlatformProfile } from "../../shared/platform/index.ts";
import { HttpsClient } from "../support/https-client.ts";
import { freePort } from "../support/ports.ts";
import { startRedis, type RedisServer } from "../support/redis.ts";

/** [token, user, group] of the token file. */
export type TokenUser = [string, string, string];

export interface ApfServers {
  profile: PlatformProfile;
  ca: string;
  /**
   * Replica with APF (`on`) and with the plain in-flight limit (`off`), and the replica
   * that creates the bench's objects (`fill`, APF off, so that no measured replica's
   * borrowing remembers the setup's burst of system:masters writes as exempt demand).
   */
  urls: { on: string; off: string; fill: string };
  pids: { on?: number; off?: number; store?: number };
  close(): Promise<void>;
}

export interface ApfServersOptions {
  users: readonly TokenUser[];
  /** `--max-requests-inflight`; the mutating limit is half of it. */
  inflight: number;
  profileDir?: string;
  /** Root of another tree whose apiserver serves the second replica, with APF on. */
  baselineRoot?: string;
}

async function waitForReady(url: string, ca: string, token: string, child: ChildProcess, output: string[]): Promise<void> {
  const client = new HttpsClient(url, { ca, token });
  const deadline = Date.now() + 60_000;
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`apiserver exited with ${child.exitCode}: ${output.join("").slice(-2000)}`);
      const status = await client.get("/readyz").then((r) => r.status, () => 0);
      if (status === 200) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`apiserver at ${url} not ready within 60 s: ${output.join("").slice(-2000)}`);
  } finally {
    client.close();
  }
}

export async function startApfServers(opts: ApfServersOptions): Promise<ApfServers> {
  const dir = await mkdtemp(join(tmpdir(), "bench-apf-"));
  const profile = getProfile("plat");
  const pkiDir = join(dir, "apiserver");
  const pki = await ensurePki(pkiDir, { profile });
  const tokenFile = join(dir, "tokens.csv");
  await writeFile(tokenFile, opts.users.map(([token, user, group], i) => `${token},${user},${i},${group}\n`).join(""));
  const children: ChildProcess[] = [];
  let redis: RedisServer | undefined;
  const close = async () => {
    for (const c of children.reverse()) if (c.exitCode === null) await stopChild(c, 3000);
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    redis = await startRedis();
    const store = { clientPort: await freePort(), peerPort: await freePort() };
    const storeChild = spawnStoreNode(
      { name: "s0", ...store, dataDir: join(dir, "store"), initialCluster: `s0=http://127.0.0.1:${store.peerPort}`, redisUrl: redis.url },
      { stdio: "ignore" },
    );
    children.push(storeChild);
    await waitForStore(`127.0.0.1:${store.clientPort}`, 30_000, storeChild);
    const adminToken = opts.users[0][0];
    const replica = async (apf: boolean, root = REPO_ROOT, side = apf ? "on" : "off"): Promise<{ url: string; child: ChildProcess }> => {
      const port = await freePort();
      const profiling = opts.profileDir ? ["--cpu-prof", "--cpu-prof-dir", join(opts.profileDir, side)] : [];
      const nodeFlags = (side === "on" ? process.env.APF_NODE_FLAGS : side === "off" ? process.env.APF_OFF_NODE_FLAGS : undefined)?.split(" ").filter(Boolean) ?? [];
      const probe = process.env.APF_LOOP_PROBE_DIR ? ["--import", pathToFileURL(join(REPO_ROOT, "test", "bench", "apf-loop-probe.ts")).href] : [];
      const args = [
        ...profiling,
        ...nodeFlags,
        "--import", "tsx",
        ...probe,
        join(root, "services", "apiserver", "main.ts"),
        "--data-dir", pkiDir,
        "--secure-port", String(port),
        "--profile", profile.id,
        "--store-endpoints", `127.0.0.1:${store.clientPort}`,
        "--redis-url", redis?.url ?? "",
        "--token-auth-file", tokenFile,
        "--authorization-mode", "RBAC",
        "--max-requests-inflight", String(opts.inflight),
        "--max-mutating-requests-inflight", String(Math.ceil(opts.inflight / 2)),
        `--enable-priority-and-fairness=${apf}`,
      ];
      const output: string[] = [];
      const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LOG_LEVEL: "warn" } });
      children.push(child);
      child.stdout?.on("data", (d: Buffer) => output.push(d.toString()));
      child.stderr?.on("data", (d: Buffer) => output.push(d.toString()));
      const logDir = process.env.APF_REPLICA_OUTPUT_DIR;
      if (logDir) {
        mkdirSync(logDir, { recursive: true });
        const log = createWriteStream(join(logDir, `${side}.log`));
        child.stdout?.pipe(log, { end: false });
        child.stderr?.pipe(log, { end: false });
      }
      const url = `https://127.0.0.1:${port}`;
      await waitForReady(url, pki.ca.certPem, adminToken, child, output);
      return { url, child };
    };
    const on = await replica(true);
    const off = opts.baselineRoot ? await replica(true, opts.baselineRoot, "off") : await replica(false);
    const fill = opts.baselineRoot ? await replica(false, REPO_ROOT, "fill") : off;
    return { profile, ca: pki.ca.certPem, urls: { on: on.url, off: off.url, fill: fill.url }, pids: { on: on.child.pid, off: off.child.pid, store: storeChild.pid }, close };
  } catch (err) {
    await close();
    throw err;
  }
}
