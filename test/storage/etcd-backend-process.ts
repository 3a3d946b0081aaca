/**
 * Replicas on a store given by the test, each with an admin HttpsClient from its
 * generated certificates:
 * - startReplicaProcess: the apiserver replica process (services/apiserver/main.ts,
 *   no controllers) with store flags (`--etcd-servers`, `--store-endpoints`,
 *   `--redis-url`), a temporary data dir and a random loopback port; close() stops it
 *   (SIGTERM, SIGKILL after 3 s) and removes the dir;
 * - startInProcessReplica: a replica in the test's process over a KvStore and
 *   revision feed the test built (profile plat, no compaction);
 * - startStreamedReplica: a store in process whose leader publishes to the Redis of
 *   `redisUrl` (a stream of its own name, so no other publisher on the machine writes
 *   into it), a RedisFeed that follows the store's Watch while Redis is down, and an
 *   in-process replica on both.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtinKinds } from "../../shared/api/groups/index.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { ensurePki } from "../../services/apiserver/server/certs.ts";
import { startReplica } from "../../services/apiserver/server/replica.ts";
import { EmbeddedKv } from "../../services/apiserver/storage/embedded-kv.ts";
import { EndpointPool } from "../../services/apiserver/storage/etcd-kv-pool.ts";
import type { KvStore, RevisionFeed } from "../../services/apiserver/storage/kv.ts";
import { RedisFeed } from "../../services/apiserver/storage/redis-feed.ts";
import { memoryStore } from "../../services/store/embedded.ts";
import { RevisionPublisher } from "../../services/store/server/publisher.ts";
import { HttpsClient } from "../support/https-client.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const MAIN = join(ROOT, "services", "apiserver", "main.ts");
const LISTENING = /API server listening on (https:\/\/127\.0\.0\.1:\d+)/;

export interface ReplicaProcess {
  url: string;
  admin: HttpsClient;
  output(): string;
  close(): Promise<void>;
}

export async function startReplicaProcess(storeArgs: string[], timeoutMs = 60_000): Promise<ReplicaProcess> {
  const dir = await mkdtemp(join(tmpdir(), "replica-process-"));
  const args = ["--import", "tsx", MAIN, "--data-dir", dir, "--secure-port", "0", "--bind-address", "127.0.0.1", "--profile", "kubernetes", "--etcd-compaction-interval", "0", ...storeArgs];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_OPTIONS: "" } });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let log = "";
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`apiserver did not start within ${timeoutMs} ms:\n${log}`)), timeoutMs);
      const onData = (chunk: Buffer) => {
        log += chunk.toString();
        const m = LISTENING.exec(log);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`apiserver exited with code ${code}:\n${log}`));
      });
    });
    const pki = await ensurePki(dir, { profile: getProfile("kubernetes") });
    const admin = new HttpsClient(url, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
    return {
      url,
      admin,
      output: () => log,
      async close() {
        admin.close();
        await close();
      },
    };
  } catch (err) {
    await close();
    throw err;
  }
}

export interface InProcessReplica {
  url: string;
  admin: HttpsClient;
  /** Stops the replica (not its store client or feed: they are the test's). */
  close(): Promise<void>;
}

/** A replica in this process over `kv` and `feed`, with certificates under `pkiDir`. */
export async function startInProcessReplica(kv: KvStore, feed: RevisionFeed, pkiDir: string): Promise<InProcessReplica> {
  const profile = getProfile("plat");
  const pki = await ensurePki(pkiDir, { profile });
  const replica = await startReplica({
    profile,
    kinds: builtinKinds(profile),
    kv,
    feed,
    tls: { key: pki.serving.keyPem, cert: pki.serving.certPem, clientCa: pki.ca.certPem },
    compactIntervalMs: 0,
  });
  const admin = new HttpsClient(replica.url, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
  return {
    url: replica.url,
    admin,
    async close() {
      admin.close();
      await replica.close();
    },
  };
}

export interface StreamedReplica {
  stream: string;
  publisher: RevisionPublisher;
  reader: RedisFeed;
  admin: HttpsClient;
  close(): Promise<void>;
}

export async function startStreamedReplica(redisUrl: string, pkiDir: string): Promise<StreamedReplica> {
  const stream = `revisions-${randomUUID()}`;
  const store = memoryStore();
  const kv = new EmbeddedKv(store, { closeStore: true });
  const publisher = new RevisionPublisher(store.backend.mvcc, { url: redisUrl, stream });
  store.backend.onApplied(() => publisher.notify());
  publisher.setLeader(true);
  publisher.start();
  const watchPool = new EndpointPool([{ endpoint: "in-process", api: store.api }]);
  const reader = new RedisFeed(kv, { url: redisUrl, stream, blockMs: 200, stallCheckMs: 60_000, watchPool, watchProgressIntervalMs: 200 });
  await reader.start();
  const replica = await startInProcessReplica(kv, reader.feed, pkiDir);
  return {
    stream,
    publisher,
    reader,
    admin: replica.admin,
    async close() {
      await replica.close();
      await reader.stop();
      await publisher.stop();
      await kv.close();
    },
  };
}
