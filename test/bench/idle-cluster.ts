/**
 * A cluster for the scale benches (`bench -- idle`, the scale part of `bench -- api`):
 * exactly what `npm run cluster -- up` starts (redis-server, store nodes, apiserver
 * replicas, haproxy, controller managers; profile `kubernetes`), in a temporary
 * directory, stopped with `cluster down` and removed by `stop()`.
 *
 * `seedConfigMaps` stores many ConfigMaps quickly: one is created through the API (so
 * its stored form is exactly the apiserver's), then copies with their own name, namespace
 * and uid are put straight into the store, 128 to a Txn (etcd's --max-txn-ops). The
 * replicas and controllers see them as usual, through the revision stream and watches;
 * only the API's per-request cost of loading is skipped (through the API, 100,000
 * creates take 20+ minutes on a loaded 2-core machine).
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pkiPaths } from "../../services/apiserver/server/certs.ts";
import { EtcdKv } from "../../services/apiserver/storage/etcd-kv.ts";
import { grpcMembers } from "../../services/apiserver/storage/etcd-kv-pool.ts";
import { StoreUnavailableError, type TxnOp } from "../../services/apiserver/storage/kv.ts";
import { REPO_ROOT } from "../../services/store/server/node-process.ts";
import { grpcChannelCredentials } from "../../shared/tls/grpc-credentials.ts";
import { readState, type ProcessRecord } from "../../deploy/local/state.ts";
import { HttpsClient } from "../support/https-client.ts";
import type { LoadTarget } from "./load-clients.ts";

const CLUSTER_MAIN = join(REPO_ROOT, "deploy", "local", "cluster.ts");
const TXN_OPS = 128;

export interface BenchCluster {
  dir: string;
  records: ProcessRecord[];
  /** The load balancer, with the admin identity. */
  target: LoadTarget;
  /** Replica i directly, with the admin identity. */
  replica(i: number): LoadTarget;
  stop(): Promise<void>;
}

/** Runs `cluster.ts <args>` to its end; rejects with its output when it fails. */
async function clusterTool(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const child = spawn(process.execPath, ["--import", "tsx", CLUSTER_MAIN, ...args], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`cluster ${args[0]} exited ${code}:\n${out}`);
}

/** `cluster up` in a new temporary directory; `nodeOptions` goes to every Node process of the cluster (e.g. `--inspect=127.0.0.1:0`). */
export async function startBenchCluster(opts: { nodes?: number; replicas?: number; nodeOptions?: string } = {}): Promise<BenchCluster> {
  const dir = await mkdtemp(join(tmpdir(), "bench-cluster-"));
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn", NODE_OPTIONS: opts.nodeOptions ?? "" };
  const args = ["up", "--dir", dir, "--fresh", "--profile", "kubernetes", "--nodes", String(opts.nodes ?? 3), "--replicas", String(opts.replicas ?? 2)];
  try {
    await clusterTool(args, env);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const state = readState(dir);
  const stop = async () => {
    await clusterTool(["down", "--dir", dir], { ...process.env, NODE_OPTIONS: "" });
    await rm(dir, { recursive: true, force: true });
  };
  if (!state) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`no cluster state in ${dir}`);
  }
  const pki = pkiPaths(join(dir, "apiserver"));
  const identity = { ca: readFileSync(pki.caCert, "utf8"), cert: readFileSync(pki.adminCert, "utf8"), key: readFileSync(pki.adminKey, "utf8") };
  const replicas = state.outputs.apiserverEndpoints as string[];
  return {
    dir,
    records: state.processes,
    target: { url: String(state.outputs.loadBalancer), ...identity },
    replica: (i) => ({ url: replicas[i], ...identity }),
    async stop() {
      await stop();
    },
  };
}

/** A raw client of the cluster's store (TLS with the client certificate `cluster up` made). */
function storeClient(cluster: BenchCluster): EtcdKv {
  const state = readState(cluster.dir);
  const o = state?.outputs ?? {};
  const tls = grpcChannelCredentials(typeof o.storeCaFile === "string" ? { caFile: o.storeCaFile, certFile: String(o.storeCertFile), keyFile: String(o.storeKeyFile) } : {});
  return new EtcdKv(grpcMembers(o.storeEndpoints as string[], tls.credentials), { callTimeoutMs: 60_000 });
}

/** A Txn of puts, sent again while the store is unavailable (a repeated put stores the same value). */
async function putRetrying(kv: EtcdKv, ops: TxnOp[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await kv.txn([], ops, []);
      return;
    } catch (err) {
      if (!(err instanceof StoreUnavailableError) || attempt >= 10) throw err;
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
}

/**
 * Creates namespaces `<prefix>-0 … <prefix>-<namespaces-1>` through the API and stores
 * `count` ConfigMaps `cm-<i>` in namespace `<prefix>-<i % namespaces>`.
 */
export async function seedConfigMaps(cluster: BenchCluster, prefix: string, namespaces: number, count: number): Promise<void> {
  const api = new HttpsClient(cluster.target.url, { ca: cluster.target.ca, cert: cluster.target.cert, key: cluster.target.key });
  const kv = storeClient(cluster);
  try {
    for (let i = 0; i < namespaces; i++) {
      const res = await api.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: `${prefix}-${i}` } } });
      if (res.status !== 201 && res.status !== 409) throw new Error(`namespace ${prefix}-${i}: ${res.status} ${res.text.slice(0, 300)}`);
    }
    const templateName = `${prefix}-template`;
    const created = await api.request("POST", `/api/v1/namespaces/${prefix}-0/configmaps`, { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: templateName, labels: { app: prefix } }, data: { n: "0" } } });
    if (created.status !== 201) throw new Error(`template ConfigMap: ${created.status} ${created.text.slice(0, 300)}`);
    const suffix = `/configmaps/${prefix}-0/${templateName}`;
    const keys = await kv.range("/", { end: "0", keysOnly: true });
    const templateKey = keys.kvs.map((k) => k.key).find((k) => k.endsWith(suffix));
    if (!templateKey) throw new Error(`no stored key ends with ${suffix}`);
    const base = templateKey.slice(0, -suffix.length);
    const template = JSON.parse(new TextDecoder().decode((await kv.range(templateKey)).kvs[0].value)) as { metadata: Record<string, unknown>; data: Record<string, string> };
    const enc = new TextEncoder();
    const batch = (from: number) =>
      Array.from({ length: Math.min(TXN_OPS, count - from) }, (_, j) => {
        const i = from + j;
        const ns = `${prefix}-${i % namespaces}`;
        const name = `cm-${i}`;
        const obj = { ...template, metadata: { ...template.metadata, name, namespace: ns, uid: randomUUID() }, data: { n: String(i) } };
        return { type: "put" as const, key: `${base}/configmaps/${ns}/${name}`, value: enc.encode(JSON.stringify(obj)) };
      });
    let next = 0;
    await Promise.all(
      Array.from({ length: 2 }, async () => {
        while (next < count) {
          const from = next;
          next += TXN_OPS;
          await putRetrying(kv, batch(from));
        }
      }),
    );
  } finally {
    api.close();
    await kv.close();
  }
}
