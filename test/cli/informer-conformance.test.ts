/**
 * Informer conformance over HTTPS, through a TCP load balancer (the test's own, on
 * 127.0.0.1) in front of two replicas over one store, the writers on the second:
 *  - every write is observed once and in order: per object add v0, update v1..v3 and,
 *    for some, delete; resourceVersions only grow; no relist;
 *  - the replica the informer watches is killed halfway: the informer resumes on the
 *    other from its last resourceVersion (still no relist, nothing lost or repeated);
 *  - the balancer drops it while more writes pass than the replica's watch history
 *    holds: the resume is answered 410, the informer relists once and ends equal to
 *    the server.
 * 500 writes (and 300 more for the 410) by default; `LONG=1` makes it 10,000 (the
 * issue's figure; 1,100 more). The same run passes against a replica of each naming
 * profile.
 */
import { createServer, connect, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensurePki } from "../../services/apiserver/server/certs.ts";
import type { Replica } from "../../services/apiserver/server/replica.ts";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { Informer } from "../../shared/client/informer.ts";
import type { ApiObject } from "../../shared/client/object-client.ts";
import { startSecondReplica, startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import type { HttpsClient } from "../support/https-client.ts";

const LONG = process.env.LONG === "1";
/** Objects of the main phase: 4 writes each (create, 3 updates), plus one delete for every sixth. */
const OBJECTS = LONG ? 2400 : 120;
const DELETES = OBJECTS / 6;
const WRITES = OBJECTS * 4 + DELETES;
/** Events the second replica's watch cache keeps. */
const HISTORY = LONG ? 1000 : 200;
const NS = "conformance";
/** Per-test limit: the long run takes minutes on a loaded machine. */
const TEST_TIMEOUT_MS = LONG ? 900_000 : 60_000;
const CM = { group: "", version: "v1", resource: "configmaps" };

/** A TCP balancer: each connection goes to the first backend that accepts it; `pause` drops and refuses all. */
class Balancer {
  private readonly server: Server;
  private readonly open = new Set<Socket>();
  paused = false;
  port = 0;

  constructor(private readonly backends: number[]) {
    this.server = createServer((client) => this.accept(client));
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  private accept(client: Socket, i = 0): void {
    if (this.paused || i >= this.backends.length) {
      client.destroy();
      return;
    }
    const upstream = connect(this.backends[i], "127.0.0.1");
    upstream.once("error", () => {
      if (!upstream.readyState.includes("open")) this.accept(client, i + 1);
      else client.destroy();
    });
    upstream.once("connect", () => {
      this.open.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        this.open.delete(client);
        this.open.delete(upstream);
      };
      client.on("close", drop).on("error", drop);
      upstream.on("close", drop).on("error", drop);
    });
  }

  pause(): void {
    this.paused = true;
    for (const s of this.open) s.destroy();
  }

  async close(): Promise<void> {
    this.pause();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function must(res: Promise<{ status: number; text: string; json<T>(): T }>, status: number): Promise<ApiObject> {
  const r = await res;
  if (r.status !== status) throw new Error(`unexpected ${r.status}: ${r.text.slice(0, 200)}`);
  return r.json<ApiObject>();
}

/** Runs `work(i)` for i in [0, n) on `concurrency` workers; `after(done)` after each. */
async function pool(n: number, concurrency: number, work: (i: number) => Promise<number>, after: (done: number) => Promise<void> = async () => {}): Promise<void> {
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const writes = await work(next++);
        done += writes;
        await after(done);
      }
    }),
  );
}

async function eventually(ok: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const start = Date.now();
  while (!ok()) {
    if (Date.now() - start > timeoutMs) throw new Error(`${what} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.each(["plat", "kubernetes"] as const)("informer through a balancer over two replicas (%s profile)", (profileId) => {
  let api: TestApiserver;
  let second: Replica;
  let admin2: HttpsClient;
  let balancer: Balancer;
  let client: HttpsObjectClient;
  let informer: Informer;
  let firstKilled = false;
  /** Handler calls per object name: `add:v`, `update:v`, `delete`. */
  const seen = new Map<string, string[]>();
  const versions: number[] = [];

  beforeAll(async () => {
    api = await startTestApiserver({ profileId, bookmarkIntervalMs: 60_000 });
    ({ replica: second, admin: admin2 } = await startSecondReplica(api, { watchHistoryMaxEvents: HISTORY, bookmarkIntervalMs: 60_000 }));
    balancer = new Balancer([api.replica.port, second.port]);
    await balancer.listen();
    const pki = await ensurePki(api.dir, { profile: api.profile });
    client = new HttpsObjectClient({ server: `https://127.0.0.1:${balancer.port}`, ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem, insecureSkipTlsVerify: false });
    expect((await admin2.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } })).status).toBe(201);
    informer = new Informer(client, CM, { namespace: NS, backoffMs: 20 });
    const note = (name: string, entry: string, rv: string | undefined) => {
      const list = seen.get(name) ?? [];
      list.push(entry);
      seen.set(name, list);
      versions.push(Number(rv));

    };
    const v = (o: ApiObject) => String((o.data as Record<string, string> | undefined)?.v);
    informer.addHandler({
      add: (o) => note(o.metadata.name ?? "", `add:${v(o)}`, o.metadata.resourceVersion),
      update: (_old, o) => note(o.metadata.name ?? "", `update:${v(o)}`, o.metadata.resourceVersion),
      delete: (o) => note(o.metadata.name ?? "", "delete", o.metadata.resourceVersion),
    });
    await informer.start();
  });
  afterAll(async () => {
    informer?.stop();
    client?.close();
    await balancer?.close();
    admin2?.close();
    await second?.close();
    if (firstKilled) {
      // the first replica is closed already: only its store and files are left
      await api.kv.close();
      await rm(api.dir, { recursive: true, force: true });
    } else await api?.close();
  });

  it(`observes ${WRITES} writes once each and in order, across a kill of the replica it watches`, async () => {
    const base = `/api/v1/namespaces/${NS}/configmaps`;
    const started = Date.now();
    await pool(
      OBJECTS,
      8,
      async (i) => {
        let obj = await must(admin2.post(base, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${i}` }, data: { v: "0" } }), 201);
        for (let v = 1; v <= 3; v++) obj = await must(admin2.put(`${base}/cm-${i}`, { ...obj, data: { v: String(v) } }), 200);
        if (i % 6 !== 0) return 4;
        await must(admin2.delete(`${base}/cm-${i}`), 200);
        return 5;
      },
      async (done) => {
        if (!firstKilled && done >= WRITES / 2) {
          firstKilled = true;
          await api.replica.close(); // the informer's stream ends mid-way; its next connection goes to the second
        }
      },
    );
    expect(firstKilled).toBe(true);
    await eventually(() => [...seen.values()].reduce((n, l) => n + l.length, 0) >= WRITES, 30_000, "events missing");
    for (let i = 0; i < OBJECTS; i++) {
      const expected = ["add:0", "update:1", "update:2", "update:3", ...(i % 6 === 0 ? ["delete"] : [])];
      expect(seen.get(`cm-${i}`), `cm-${i}`).toEqual(expected);
    }
    expect([...seen.values()].reduce((n, l) => n + l.length, 0)).toBe(WRITES);
    const backwards = versions.map((rv, i) => [i, rv, versions[i - 1]]).filter(([i, rv, prev]) => i > 0 && rv <= prev);
    expect(backwards.slice(0, 5)).toEqual([]);
    expect(informer.lists).toBe(1);
    process.stdout.write(`informer conformance: ${WRITES} writes observed in ${Date.now() - started} ms\n`);
  }, TEST_TIMEOUT_MS);

  it("relists once after a 410 when more writes passed than the watch history holds, and ends equal to the server", async () => {
    balancer.pause();
    const base = `/api/v1/namespaces/${NS}/configmaps`;
    const live = Array.from({ length: OBJECTS }, (_, i) => i).filter((i) => i % 6 !== 0);
    const updates = HISTORY + 100;
    await pool(updates, 8, async (k) => {
      const i = live[k % live.length];
      await must(admin2.patch(`${base}/cm-${i}`, { data: { v: `x${k}` } }, "application/merge-patch+json"), 200);
      return 1;
    });
    const server = new Map((await must(admin2.get(base), 200) as unknown as { items: ApiObject[] }).items.map((o) => [o.metadata.name ?? "", o.metadata.resourceVersion]));
    balancer.paused = false;
    await eventually(() => informer.list().length === server.size && informer.list().every((o) => server.get(o.metadata.name ?? "") === o.metadata.resourceVersion), 30_000, "informer not equal to the server");
    expect(informer.lists).toBe(2);
  }, TEST_TIMEOUT_MS);
});
