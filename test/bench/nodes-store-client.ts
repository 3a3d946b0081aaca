/**
 * `npm run bench -- nodes-store-client`: the store client's own cost per unary call,
 * the part of a Lease PUT on the cluster path that the replica spends in its etcd
 * client. One store node (a real process, data on /dev/shm when it exists) is called
 * from this process by two clients, in alternating rounds (harness.ts `alternate`):
 * A, the EtcdClient (unary calls over its HTTP/2 channel, shared/etcd/http2-channel.ts);
 * B, a grpc-js Client making the same calls with the same codecs (what EtcdClient did
 * before). Each round sends STORE_CLIENT_CALLS (default 4,000) Txns shaped like a
 * replica's guarded update (a mod-revision compare, a put of a ~700-byte value, a
 * range on failure), STORE_CLIENT_INFLIGHT (default 32) at a time. Figures: this
 * process's CPU µs per call (from process.cpuUsage) and calls/s per side, the
 * per-round ratios A/B (min/median/max), the machine load before and after.
 * STORE_CLIENT_BASE=<dir>: B is instead the EtcdClient of the tree at <dir> (a checkout
 * of an older commit, its shared/etcd/client.ts loaded into this process): old against
 * new client code, on the same store.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client, credentials, Metadata } from "@grpc/grpc-js";
import { EtcdClient } from "../../shared/etcd/client.ts";
import { methodDefinition } from "../../shared/etcd/proto.ts";
import type { PbTxnRequest, PbTxnResponse } from "../../shared/etcd/wire.ts";
import { spawnStoreNode, stopChild, waitForStore } from "../../services/store/server/node-process.ts";
import { freePort } from "../support/ports.ts";
import { alternate, machineLoad, ratioStats } from "./harness.ts";

type TxnCall = (req: PbTxnRequest) => Promise<PbTxnResponse>;

/** The call EtcdClient made before: grpc-js's makeUnaryRequest with proto-loader's codecs. */
function grpcJsTxn(client: Client): TxnCall {
  const def = methodDefinition("KV", "Txn");
  return (req) =>
    new Promise((resolve, reject) => {
      client.makeUnaryRequest<PbTxnRequest, PbTxnResponse>(
        def.path,
        (r) => def.requestSerialize(r),
        (buf) => def.responseDeserialize(buf) as PbTxnResponse,
        req,
        new Metadata(),
        { deadline: Date.now() + 10_000 },
        (err, res) => (err !== null || res === undefined ? reject(err ?? new Error("no response")) : resolve(res)),
      );
    });
}

function txnRequest(key: Buffer, value: Buffer, modRevision: number): PbTxnRequest {
  return {
    compare: [{ key, result: "EQUAL", target: "MOD", target_union: "mod_revision", mod_revision: modRevision }],
    success: [{ request: "request_put", request_put: { key, value, lease: 0, prev_kv: false, ignore_value: false, ignore_lease: false } }],
    failure: [{ request: "request_range", request_range: { key } }],
  };
}

/** `calls` guarded updates over 256 keys, `inflight` at a time; CPU µs per call and calls/s. */
async function round(txn: TxnCall, calls: number, inflight: number): Promise<{ cpuUsPerCall: number; callsPerSecond: number }> {
  const value = Buffer.alloc(700, 120);
  const revisions = new Map<number, number>();
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: inflight }, async () => {
      while (next < calls) {
        const k = next++ % 256;
        const key = Buffer.from(`/registry/leases/node-lease/sim-node-${k}`);
        const res = await txn(txnRequest(key, value, revisions.get(k) ?? 0));
        const rev = res.succeeded ? Number(res.header?.revision ?? 0) : Number(res.responses[0]?.response_range?.kvs[0]?.mod_revision ?? 0);
        revisions.set(k, rev);
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  const seconds = (performance.now() - t0) / 1000;
  return { cpuUsPerCall: Math.round((cpu.user + cpu.system) / calls), callsPerSecond: Math.round(calls / seconds) };
}

export async function benchNodesStoreClient(): Promise<Record<string, number>> {
  const calls = Number(process.env.STORE_CLIENT_CALLS ?? 4000);
  const inflight = Number(process.env.STORE_CLIENT_INFLIGHT ?? 32);
  const rounds = Number(process.env.STORE_CLIENT_ROUNDS ?? 4);
  const dir = await mkdtemp(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "store-client-bench-"));
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const child = spawnStoreNode({ name: "n0", clientPort, peerPort, dataDir: join(dir, "n0"), initialCluster: `n0=http://127.0.0.1:${peerPort}` }, { stdio: ["ignore", "ignore", "inherit"] });
  const endpoint = `127.0.0.1:${clientPort}`;
  const lean = new EtcdClient(endpoint);
  const grpcJs = new Client(endpoint, credentials.createInsecure(), { "grpc.max_receive_message_length": -1, "grpc.max_send_message_length": -1 });
  const leanTxn: TxnCall = (req) => lean.unary("Txn", req, { deadline: Date.now() + 10_000 });
  const baseDir = process.env.STORE_CLIENT_BASE;
  const base = baseDir ? new ((await import(join(resolve(baseDir), "shared", "etcd", "client.ts"))) as { EtcdClient: typeof EtcdClient }).EtcdClient(endpoint) : undefined;
  const sideB: TxnCall = base ? (req) => base.unary("Txn", req, { deadline: Date.now() + 10_000 }) : grpcJsTxn(grpcJs);
  const nameB = base ? `base ${baseDir}` : "grpc-js";
  try {
    await waitForStore(endpoint, 60_000, child);
    // Warm-up: connections, JIT, the store's keys.
    await round(leanTxn, 1000, inflight);
    await round(sideB, 1000, inflight);
    const before = machineLoad();
    const out = await alternate(
      rounds,
      () => round(leanTxn, calls, inflight),
      () => round(sideB, calls, inflight),
    );
    for (let r = 0; r < rounds; r++) {
      process.stderr.write(`round ${r + 1}: http2 channel ${out.a[r].cpuUsPerCall} µs CPU/call, ${out.a[r].callsPerSecond} calls/s; ${nameB} ${out.b[r].cpuUsPerCall} µs CPU/call, ${out.b[r].callsPerSecond} calls/s\n`);
    }
    const cpu = ratioStats(out.a.map((x) => x.cpuUsPerCall), out.b.map((x) => x.cpuUsPerCall));
    const rate = ratioStats(out.a.map((x) => x.callsPerSecond), out.b.map((x) => x.callsPerSecond));
    process.stderr.write(`machine before the rounds: ${before}; after: ${machineLoad()}\n`);
    const r2 = (x: number) => Math.round(x * 100) / 100;
    return {
      calls,
      inflight,
      rounds,
      http2CpuUsPerCallMedian: [...out.a.map((x) => x.cpuUsPerCall)].sort((a, b) => a - b)[Math.floor(rounds / 2)],
      grpcJsCpuUsPerCallMedian: [...out.b.map((x) => x.cpuUsPerCall)].sort((a, b) => a - b)[Math.floor(rounds / 2)],
      cpuPerCallRatioMin: r2(cpu.min),
      cpuPerCallRatioMedian: r2(cpu.median),
      cpuPerCallRatioMax: r2(cpu.max),
      callsPerSecondRatioMin: r2(rate.min),
      callsPerSecondRatioMedian: r2(rate.median),
      callsPerSecondRatioMax: r2(rate.max),
    };
  } finally {
    lean.close();
    base?.close();
    grpcJs.close();
    await stopChild(child, 2000);
    await rm(dir, { recursive: true, force: true });
  }
}
