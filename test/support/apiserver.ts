/**
 * An in-process apiserver replica for tests: a store without replication called in
 * process (services/store/embedded.ts), the in-process revision feed, generated certificates, and an admin client.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtinKinds } from "../../shared/api/groups/index.ts";
import { getProfile, type PlatformProfile } from "../../shared/platform/index.ts";
import { ensurePki } from "../../services/apiserver/server/certs.ts";
import { startReplica, type Replica, type ReplicaOptions } from "../../services/apiserver/server/replica.ts";
import { EmbeddedKv } from "../../services/apiserver/storage/embedded-kv.ts";
import { memoryStore } from "../../services/store/embedded.ts";
import type { LocalBackend } from "../../services/store/server/local-backend.ts";
import { HttpsClient } from "./https-client.ts";

export interface TestApiserver {
  replica: Replica;
  profile: PlatformProfile;
  admin: HttpsClient;
  ca: string;
  kv: EmbeddedKv;
  backend: LocalBackend;
  dir: string;
  close(): Promise<void>;
}

export async function startTestApiserver(opts: Partial<ReplicaOptions> & { profileId?: "plat" | "kubernetes" } = {}): Promise<TestApiserver> {
  const profile = getProfile(opts.profileId ?? "plat");
  const dir = await mkdtemp(join(tmpdir(), "apiserver-test-"));
  const pki = await ensurePki(dir, { profile });
  const store = memoryStore();
  const backend = store.backend;
  const kv = new EmbeddedKv(store, { closeStore: true });
  const replica = await startReplica({
    profile,
    kinds: builtinKinds(profile),
    kv,
    feed: kv.feed,
    tls: { key: pki.serving.keyPem, cert: pki.serving.certPem, clientCa: pki.ca.certPem },
    compactIntervalMs: 0,
    ...opts,
  }).catch(async (err: unknown) => {
    // a replica that did not start (bad options) leaves nothing behind
    await kv.close();
    await rm(dir, { recursive: true, force: true });
    throw err;
  });
  const admin = new HttpsClient(replica.url, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
  return {
    replica,
    profile,
    admin,
    ca: pki.ca.certPem,
    kv,
    backend,
    dir,
    async close() {
      admin.close();
      await replica.close();
      await kv.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Another replica over the same store and certificates as `api`, with its own admin client. */
export async function startSecondReplica(api: TestApiserver, opts: Partial<ReplicaOptions> = {}): Promise<{ replica: Replica; admin: HttpsClient }> {
  const pki = await ensurePki(api.dir, { profile: api.profile });
  const replica = await startReplica({
    profile: api.profile,
    kinds: builtinKinds(api.profile),
    kv: api.kv,
    feed: api.kv.feed,
    tls: { key: pki.serving.keyPem, cert: pki.serving.certPem, clientCa: pki.ca.certPem },
    compactIntervalMs: 0,
    ...opts,
  });
  return { replica, admin: new HttpsClient(replica.url, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem }) };
}
