/**
 * ListFromCacheSnapshot over HTTPS: a chunked LIST whose later pages are fetched while
 * other clients write returns exactly the state of its first page's resourceVersion, and
 * with the gate on (the default) every later page and every `resourceVersionMatch=Exact`
 * read of a kept revision is answered from the watch cache's snapshots: the store sees no
 * range read of the collection (counted on the test replica's store client). A revision
 * older than the cache's snapshots still goes to the store. With the gate off, a second
 * replica over the same store answers the same lists from the store.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeatureGates } from "../../services/apiserver/server/feature-gates.ts";
import type { RangeOptions, RangeResult } from "../../services/apiserver/storage/kv.ts";
import type { HttpsClient } from "../support/https-client.ts";
import { startSecondReplica, startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

interface Item {
  metadata: { name: string; resourceVersion: string };
}
interface Page {
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: Item[];
}

let api: TestApiserver;
let gateOff: { close(): Promise<void>; admin: HttpsClient };
/** Range reads the store served, by key. */
const rangeKeys: string[] = [];

beforeAll(async () => {
  // Snapshots hold at most as many changes as the watch history (30 here): the fill alone
  // pushes the store's first revisions out of them.
  api = await startTestApiserver({ profileId: "kubernetes", watchHistoryMaxEvents: 30 });
  const gates = new FeatureGates();
  gates.set(["ListFromCacheSnapshot=false"]);
  const second = await startSecondReplica(api, { gates });
  gateOff = { admin: second.admin, close: () => second.replica.close() };
  const kv = api.kv;
  const range = kv.range.bind(kv);
  kv.range = (key: string, options?: RangeOptions): Promise<RangeResult> => {
    rangeKeys.push(key);
    return range(key, options);
  };
});
afterAll(async () => {
  gateOff?.admin.close();
  await gateOff?.close();
  await api?.close();
});

const names = (items: Item[]) => items.map((i) => i.metadata.name);
const storeReadsOf = (ns: string) => rangeKeys.filter((k) => k.includes(`/configmaps/${ns}/`)).length;

async function fill(admin: HttpsClient, ns: string): Promise<Map<string, string>> {
  expect((await admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } })).status).toBe(201);
  const created = new Map<string, string>();
  for (let i = 0; i < 30; i++) {
    const name = `cm-${String(i).padStart(2, "0")}`;
    const res = await admin.post(`/api/v1/namespaces/${ns}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { n: String(i) } });
    expect(res.status).toBe(201);
    created.set(name, res.json<Item>().metadata.resourceVersion);
  }
  return created;
}

/** Writes that change every later page: an update, deletes before and after the cursor, a create in between. */
function writes(admin: HttpsClient, ns: string): Array<Promise<unknown>> {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  return [
    admin.patch(`${base}/cm-15`, { data: { n: "changed" } }, "application/merge-patch+json").then((r) => expect(r.status).toBe(200)),
    admin.delete(`${base}/cm-25`).then((r) => expect(r.status).toBe(200)),
    admin.delete(`${base}/cm-05`).then((r) => expect(r.status).toBe(200)),
    admin.post(base, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm-12a" } }).then((r) => expect(r.status).toBe(201)),
  ];
}

/** A LIST in pages of 10 with the writes running between and during the pages. */
async function pagedAcrossWrites(admin: HttpsClient, ns: string): Promise<{ first: Page; pages: Page[]; readsAfterFirst: number }> {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const first = (await admin.get(`${base}?limit=10`)).json<Page>();
  const readsBefore = storeReadsOf(ns);
  const [second] = await Promise.all([admin.get(`${base}?limit=10&continue=${encodeURIComponent(first.metadata.continue ?? "")}`), ...writes(admin, ns)]);
  expect(second.status, second.text).toBe(200);
  const pages = [first, second.json<Page>()];
  for (let token = pages[1].metadata.continue; token; token = pages[pages.length - 1].metadata.continue) {
    const res = await admin.get(`${base}?limit=10&continue=${encodeURIComponent(token)}`);
    expect(res.status, res.text).toBe(200);
    pages.push(res.json<Page>());
  }
  return { first, pages, readsAfterFirst: storeReadsOf(ns) - readsBefore };
}

function expectStateOfFirstPage(first: Page, pages: Page[], created: Map<string, string>): void {
  const items = pages.flatMap((p) => p.items);
  expect(names(items)).toEqual([...created.keys()]);
  expect(items.map((i) => i.metadata.resourceVersion)).toEqual([...created.values()]);
  for (const p of pages) expect(p.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
  expect(pages.map((p) => p.metadata.remainingItemCount)).toEqual([20, 10, undefined]);
}

describe("ListFromCacheSnapshot", () => {
  it("serves the later pages of a chunked list from the snapshot of its first page, with no store read", async () => {
    const ns = "snapshot-on";
    const created = await fill(api.admin, ns);
    const { first, pages, readsAfterFirst } = await pagedAcrossWrites(api.admin, ns);
    expectStateOfFirstPage(first, pages, created);
    expect(readsAfterFirst).toBe(0);

    // The writes happened: the current list shows them.
    const now = (await api.admin.get(`/api/v1/namespaces/${ns}/configmaps`)).json<Page>();
    expect(names(now.items)).toContain("cm-12a");
    expect(names(now.items)).not.toContain("cm-25");

    // Exact reads of the first page's revision, and the legacy form (limit + resourceVersion), from the cache too.
    const before = storeReadsOf(ns);
    const rv = first.metadata.resourceVersion;
    const exact = await api.admin.get(`/api/v1/namespaces/${ns}/configmaps?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    expect(exact.status, exact.text).toBe(200);
    expect(exact.json<Page>().metadata.resourceVersion).toBe(rv);
    expect(names(exact.json<Page>().items)).toEqual([...created.keys()]);
    const legacy = await api.admin.get(`/api/v1/namespaces/${ns}/configmaps?resourceVersion=${rv}&limit=100`);
    expect(names(legacy.json<Page>().items)).toEqual([...created.keys()]);
    expect(storeReadsOf(ns) - before).toBe(0);

    // A revision from before the cache was filled is not kept: the store answers it.
    const old = await api.admin.get(`/api/v1/namespaces/${ns}/configmaps?resourceVersion=2&resourceVersionMatch=Exact`);
    expect(old.status, old.text).toBe(200);
    expect(old.json<Page>().items).toEqual([]);
    expect(storeReadsOf(ns) - before).toBe(1);
  });

  it("with the gate off, the same pages come from the store", async () => {
    const ns = "snapshot-off";
    const created = await fill(gateOff.admin, ns);
    const { first, pages, readsAfterFirst } = await pagedAcrossWrites(gateOff.admin, ns);
    expectStateOfFirstPage(first, pages, created);
    expect(readsAfterFirst).toBeGreaterThanOrEqual(2);
    const before = storeReadsOf(ns);
    const exact = await gateOff.admin.get(`/api/v1/namespaces/${ns}/configmaps?resourceVersion=${first.metadata.resourceVersion}&resourceVersionMatch=Exact`);
    expect(names(exact.json<Page>().items)).toEqual([...created.keys()]);
    expect(storeReadsOf(ns) - before).toBeGreaterThanOrEqual(1);
  });
});
