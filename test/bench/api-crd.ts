/**
 * `npm run bench -- crd` (figures from one run; compare ratios):
 * - create, get and list of custom resources vs ConfigMaps carrying the same payload,
 *   in interleaved 2-second rounds so both kinds see the same machine load, min/median/max
 *   of the per-round ratios (goal ≥ 0.8×); both sides are served by the same in-process
 *   replica with the clients in this process, so the ratio compares the two kinds' paths;
 * - the time from a CRD create on one replica to the first successful custom resource
 *   create on a second replica over the same store (served through its watch cache).
 */
import { startSecondReplica, startTestApiserver } from "../support/apiserver.ts";
import { CRD_GROUP, crdPath, cronTabCrd, waitServed } from "../support/crd-fixtures.ts";
import { RatioTable, interleave } from "./harness.ts";

const ROUND_MS = 2000;
const ROUNDS = 3;
const PAYLOAD = "x".repeat(700);

/** Unique across rounds: object names of creates never repeat. */
let next = 0;

async function rate(durationMs: number, concurrency: number, op: (i: number) => Promise<void>): Promise<number> {
  let done = 0;
  const end = Date.now() + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        await op(next++);
        done++;
      }
    }),
  );
  return done / (durationMs / 1000);
}

/** Interleaved rounds of `a` and `b` (req/s each round), added to the table. */
async function paired(table: RatioTable, key: string, label: string, a: (i: number) => Promise<void>, b: (i: number) => Promise<void>, concurrency: number): Promise<void> {
  const res = await interleave(
    ROUNDS,
    () => rate(ROUND_MS, concurrency, a),
    () => rate(ROUND_MS, concurrency, b),
  );
  table.add({ key, label: `${label} req/s, ${concurrency} clients`, aName: "custom resource", bName: "ConfigMap", a: res.a, b: res.b, unit: "req/s", better: "higher" });
}

async function must(res: Promise<{ status: number; text: string }>, status: number): Promise<void> {
  const r = await res;
  if (r.status !== status) throw new Error(`unexpected ${r.status}: ${r.text.slice(0, 300)}`);
}

export async function benchCustomResources(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const api = await startTestApiserver({ bookmarkIntervalMs: 60_000 });
  const { replica: second, admin: admin2 } = await startSecondReplica(api, { bookmarkIntervalMs: 60_000 });
  try {
    // CRD create on replica 1 → first successful custom resource create on replica 2.
    const t0 = Date.now();
    await must(api.admin.post(crdPath(api.profile), cronTabCrd(api.profile)), 201);
    const crs = `/apis/${CRD_GROUP}/v1/namespaces/default/crontabs`;
    for (;;) {
      const r = await admin2.post(crs, { apiVersion: `${CRD_GROUP}/v1`, kind: "CronTab", metadata: { name: "first" }, spec: { image: PAYLOAD } });
      if (r.status === 201) break;
      if (Date.now() - t0 > 30_000) throw new Error(`custom resource not served after 30 s: ${r.text}`);
      await new Promise((res) => setTimeout(res, 5));
    }
    out.crd_to_first_cr_ms = Date.now() - t0;
    process.stdout.write(`CRD create (replica 1) → first custom resource created (replica 2): ${out.crd_to_first_cr_ms} ms\n`);
    await waitServed(api.admin, crs);

    const cms = "/api/v1/namespaces/default/configmaps";
    const cr = (name: string) => ({ apiVersion: `${CRD_GROUP}/v1`, kind: "CronTab", metadata: { name }, spec: { image: PAYLOAD } });
    const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { image: PAYLOAD } });
    const table = new RatioTable("custom resources vs ConfigMaps (clients in the server's process)");
    await paired(table, "create", "create", (i) => must(api.admin.post(crs, cr(`c-${i}`)), 201), (i) => must(api.admin.post(cms, cm(`c-${i}`)), 201), 16);
    await must(api.admin.post(crs, cr("get-me")), 201);
    await must(api.admin.post(cms, cm("get-me")), 201);
    await paired(table, "get", "GET", () => must(api.admin.get(`${crs}/get-me`), 200), () => must(api.admin.get(`${cms}/get-me`), 200), 32);
    await paired(table, "list", "LIST limit=100", () => must(api.admin.get(`${crs}?limit=100`), 200), () => must(api.admin.get(`${cms}?limit=100`), 200), 8);
    process.stdout.write(table.render());
    Object.assign(out, table.figures());
  } finally {
    admin2.close();
    await second.close();
    await api.close();
  }
  return out;
}
