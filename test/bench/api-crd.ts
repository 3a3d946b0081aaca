/**
 * Custom resources in `npm run bench -- api` (figures from one run; compare ratios):
 * - create, get and list of custom resources vs ConfigMaps carrying the same payload,
 *   alternating 2-second rounds so both kinds see the same machine load (goal ≥ 0.8×);
 * - the time from a CRD create on one replica to the first successful custom resource
 *   create on a second replica over the same store (served through its watch cache).
 */
import { builtinKinds } from "../../shared/api/groups/index.ts";
import { ensurePki } from "../../services/apiserver/server/certs.ts";
import { startReplica } from "../../services/apiserver/server/replica.ts";
import { startTestApiserver } from "../support/apiserver.ts";
import { CRD_GROUP, crdPath, cronTabCrd, waitServed } from "../support/crd-fixtures.ts";
import { HttpsClient } from "../support/https-client.ts";

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

/** Alternating rounds of `a` and `b`; the mean rates. */
async function paired(a: (i: number) => Promise<void>, b: (i: number) => Promise<void>, concurrency: number): Promise<[number, number]> {
  let ra = 0;
  let rb = 0;
  for (let r = 0; r < ROUNDS; r++) {
    ra += await rate(ROUND_MS, concurrency, a);
    rb += await rate(ROUND_MS, concurrency, b);
  }
  return [ra / ROUNDS, rb / ROUNDS];
}

async function must(res: Promise<{ status: number; text: string }>, status: number): Promise<void> {
  const r = await res;
  if (r.status !== status) throw new Error(`unexpected ${r.status}: ${r.text.slice(0, 300)}`);
}

export async function benchCustomResources(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const api = await startTestApiserver({ bookmarkIntervalMs: 60_000 });
  const pki = await ensurePki(api.dir, { profile: api.profile });
  const second = await startReplica({
    profile: api.profile,
    kinds: builtinKinds(api.profile),
    kv: api.kv,
    feed: api.kv.feed,
    tls: { key: pki.serving.keyPem, cert: pki.serving.certPem, clientCa: pki.ca.certPem },
    compactIntervalMs: 0,
    bookmarkIntervalMs: 60_000,
  });
  const admin2 = new HttpsClient(second.url, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
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
    const [crCreate, cmCreate] = await paired(
      (i) => must(api.admin.post(crs, cr(`c-${i}`)), 201),
      (i) => must(api.admin.post(cms, cm(`c-${i}`)), 201),
      16,
    );
    Object.assign(out, { cr_create_rps: crCreate, cm_create_rps: cmCreate, cr_create_ratio: crCreate / cmCreate });
    await must(api.admin.post(crs, cr("get-me")), 201);
    await must(api.admin.post(cms, cm("get-me")), 201);
    const [crGet, cmGet] = await paired(
      () => must(api.admin.get(`${crs}/get-me`), 200),
      () => must(api.admin.get(`${cms}/get-me`), 200),
      32,
    );
    Object.assign(out, { cr_get_rps: crGet, cm_get_rps: cmGet, cr_get_ratio: crGet / cmGet });
    const [crList, cmList] = await paired(
      () => must(api.admin.get(`${crs}?limit=100`), 200),
      () => must(api.admin.get(`${cms}?limit=100`), 200),
      8,
    );
    Object.assign(out, { cr_list_rps: crList, cm_list_rps: cmList, cr_list_ratio: crList / cmList });
    for (const op of ["create", "get", "list"]) {
      process.stdout.write(`custom resources vs ConfigMaps, ${op}: ${out[`cr_${op}_rps`].toFixed(0)} vs ${out[`cm_${op}_rps`].toFixed(0)} req/s (${out[`cr_${op}_ratio`].toFixed(2)}×)\n`);
    }
  } finally {
    admin2.close();
    await second.close();
    await api.close();
  }
  return out;
}
