/**
 * `npm run bench -- controllers`: the controllers as API clients of an in-process
 * replica. Figures: the process's idle CPU with N objects stored (owners and
 * dependents), without and with the controllers running (the controllers used to list
 * every object of every kind once a second); the controllers' start-up (discovery and
 * first lists); garbage collection of dependents after their owners are deleted; and
 * deletion of a namespace's content. Sizes: BENCH_CONTROLLERS_OBJECTS (default 25,000),
 * BENCH_CONTROLLERS_WORK (default 5,000). The two workloads run in interleaved rounds
 * (GC, namespace, GC, namespace, …; BENCH_CONTROLLERS_ROUNDS, default 3) so that drift of
 * the machine's load hits both alike; each figure is the median round with min and max.
 */
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import type { ApiObject, ResourceRef } from "../../shared/client/object-client.ts";
import { startTestApiserver } from "../support/apiserver.ts";
import { startTestControllers } from "../support/controllers.ts";
import { ensurePki } from "../../services/apiserver/server/certs.ts";

const CM: ResourceRef = { group: "", version: "v1", resource: "configmaps" };
const NS: ResourceRef = { group: "", version: "v1", resource: "namespaces" };

async function pool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

/** CPU milliseconds the process used per second of wall time over `ms`. */
async function cpuPerSecond(ms: number): Promise<number> {
  const start = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, ms));
  const used = process.cpuUsage(start);
  return Math.round(((used.user + used.system) / 1000 / ((performance.now() - t0) / 1000)) * 10) / 10;
}

async function until(fn: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Creates `count` owners in `ns`, each with `perOwner` dependents; returns the owners. */
async function ownersWithDependents(c: HttpsObjectClient, ns: string, prefix: string, count: number, perOwner: number): Promise<ApiObject[]> {
  const owners: ApiObject[] = [];
  await pool([...Array(count).keys()], 32, async (i) => {
    owners.push(await c.create(CM, { metadata: { name: `${prefix}-${i}`, namespace: ns } }));
  });
  const deps = owners.flatMap((o) => Array.from({ length: perOwner }, (_, j) => ({ o, j })));
  await pool(deps, 32, async ({ o, j }) => {
    await c.create(CM, { metadata: { name: `${o.metadata.name}-d${j}`, namespace: ns, ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: o.metadata.name as string, uid: o.metadata.uid as string }] } });
  });
  return owners;
}

function summary(name: string, values: number[]): Record<string, number> {
  const sorted = [...values].sort((a, b) => a - b);
  return { [name]: sorted[Math.floor((sorted.length - 1) / 2)], [`${name}Min`]: sorted[0], [`${name}Max`]: sorted[sorted.length - 1] };
}

/** Garbage collection: work/5 owners with 4 dependents each, owners deleted in the background; objects/s. */
async function gcRound(c: HttpsObjectClient, ns: string, work: number): Promise<number> {
  await c.create(NS, { metadata: { name: ns } });
  const owners = await ownersWithDependents(c, ns, "g", Math.round(work / 5), 4);
  const t0 = performance.now();
  await pool(owners, 16, async (o) => {
    await c.delete(CM, o.metadata.name as string, { namespace: ns });
  });
  // Polled with limit=1 so the check itself costs little next to the work measured.
  await until(async () => (await c.list(CM, { namespace: ns, limit: 1 })).items.length === 0, 300_000);
  return Math.round(((owners.length * 5) / (performance.now() - t0)) * 1000);
}

/** Namespace deletion: `work` objects in one namespace, deleted with it; objects/s. */
async function namespaceRound(c: HttpsObjectClient, ns: string, work: number): Promise<number> {
  await c.create(NS, { metadata: { name: ns } });
  await pool([...Array(work).keys()], 32, async (i) => {
    await c.create(CM, { metadata: { name: `x-${i}`, namespace: ns } });
  });
  const t0 = performance.now();
  await c.delete(NS, ns);
  await until(async () => c.get(NS, ns).then(() => false, () => true), 300_000);
  return Math.round((work / (performance.now() - t0)) * 1000);
}

export async function benchControllers(): Promise<Record<string, number>> {
  const objects = Number(process.env.BENCH_CONTROLLERS_OBJECTS ?? 25_000);
  const work = Number(process.env.BENCH_CONTROLLERS_WORK ?? 5_000);
  const api = await startTestApiserver({ bookmarkIntervalMs: 60_000 });
  const pki = await ensurePki(api.dir, { profile: api.profile });
  const c = new HttpsObjectClient({ server: api.replica.url, ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem, insecureSkipTlsVerify: false });
  const figures: Record<string, number> = { objects };
  try {
    await c.create(NS, { metadata: { name: "idle" } });
    await ownersWithDependents(c, "idle", "o", Math.round(objects / 5), 4);
    figures.idleCpuMsPerSecondWithoutControllers = await cpuPerSecond(5000);
    const t0 = performance.now();
    const controllers = await startTestControllers(api);
    figures.controllersStartMs = Math.round(performance.now() - t0);
    await controllers.running.garbageCollector?.idle();
    figures.graphNodes = controllers.running.garbageCollector?.graph.size ?? 0;
    figures.idleCpuMsPerSecondWithControllers = await cpuPerSecond(5000);

    const rounds = Number(process.env.BENCH_CONTROLLERS_ROUNDS ?? 3);
    const gcRates: number[] = [];
    const nsRates: number[] = [];
    const gcObjects = Math.round(work / 5) * 5;
    for (let round = 0; round < rounds; round++) {
      gcRates.push(await gcRound(c, `gc-${round}`, work));
      nsRates.push(await namespaceRound(c, `doomed-${round}`, work));
      process.stderr.write(`controllers round ${round + 1}/${rounds}: gc ${gcRates[round]} objects/s, namespace ${nsRates[round]} objects/s\n`);
    }
    figures.gcObjects = gcObjects;
    Object.assign(figures, summary("gcObjectsPerSecond", gcRates));
    figures.namespaceObjects = work;
    Object.assign(figures, summary("namespaceObjectsPerSecond", nsRates));
    controllers.stop();
  } finally {
    c.close();
    await api.close();
  }
  return figures;
}
