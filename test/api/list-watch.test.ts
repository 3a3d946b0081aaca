import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
beforeAll(async () => {
  api = await startTestApiserver();
  await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "lw" } });
});
afterAll(async () => {
  await api?.close();
});

type List = { metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number }; items: Array<{ metadata: { name: string; resourceVersion: string; labels?: Record<string, string> } }> };
const cm = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels }, data: { n: name } });
const base = "/api/v1/namespaces/lw/configmaps";

describe("chunked lists", () => {
  it("returns each of 1,000 objects exactly once at one resourceVersion while writes go on", async () => {
    for (let i = 0; i < 1000; i++) {
      const r = await api.admin.post(base, cm(`item-${String(i).padStart(4, "0")}`, { parity: i % 2 === 0 ? "even" : "odd" }));
      expect(r.status).toBe(201);
    }
    const seen: string[] = [];
    let res = await api.admin.get(`${base}?limit=100`);
    let page = res.json<List>();
    const rv = page.metadata.resourceVersion;
    expect(page.metadata.remainingItemCount).toBe(900);
    let i = 0;
    while (true) {
      seen.push(...page.items.map((o) => o.metadata.name));
      expect(page.metadata.resourceVersion).toBe(rv);
      // Concurrent writes between chunks are not visible in this list.
      await api.admin.post(base, cm(`late-${i++}`));
      if (!page.metadata.continue) break;
      res = await api.admin.get(`${base}?limit=100&continue=${encodeURIComponent(page.metadata.continue)}`);
      expect(res.status, res.text).toBe(200);
      page = res.json<List>();
    }
    expect(seen).toHaveLength(1000);
    expect(new Set(seen).size).toBe(1000);
    expect(seen.some((n) => n.startsWith("late-"))).toBe(false);
  });

  it("filters by label and field selectors and omits remainingItemCount with a selector", async () => {
    const res = await api.admin.get(`${base}?labelSelector=parity%3Deven&limit=10`);
    const page = res.json<List>();
    expect(page.items).toHaveLength(10);
    expect(page.items.every((o) => o.metadata.labels?.parity === "even")).toBe(true);
    expect(page.metadata.remainingItemCount).toBeUndefined();
    const byName = await api.admin.get(`${base}?fieldSelector=metadata.name%3Ditem-0003`);
    expect(byName.json<List>().items.map((o) => o.metadata.name)).toEqual(["item-0003"]);
    const badField = await api.admin.get(`${base}?fieldSelector=spec.nope%3D1`);
    expect(badField.status).toBe(400);
    const badLabel = await api.admin.get(`${base}?labelSelector=a%20in%20(`);
    expect(badLabel.status).toBe(400);
  });
});

describe("resourceVersion semantics", () => {
  it("answers each cell of the list table", async () => {
    const first = await api.admin.post(base, cm("rv-a"));
    const rvA = first.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    await api.admin.post(base, cm("rv-b"));
    // unset / "0" / non-zero, no limit
    expect((await api.admin.get(base)).status).toBe(200);
    expect((await api.admin.get(`${base}?resourceVersion=0`)).status).toBe(200);
    const notOlder = await api.admin.get(`${base}?resourceVersion=${rvA}`);
    expect(Number(notOlder.json<List>().metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(rvA));
    // limit with a non-zero version is Exact: the list is at exactly that version
    const exactLimited = await api.admin.get(`${base}?resourceVersion=${rvA}&limit=500`);
    expect(exactLimited.json<List>().metadata.resourceVersion).toBe(rvA);
    expect(exactLimited.json<List>().items.map((o) => o.metadata.name)).not.toContain("rv-b");
    // Exact match
    const exact = await api.admin.get(`${base}?resourceVersion=${rvA}&resourceVersionMatch=Exact`);
    expect(exact.json<List>().metadata.resourceVersion).toBe(rvA);
    // invalid combinations
    expect((await api.admin.get(`${base}?resourceVersionMatch=Exact`)).status).toBe(422);
    expect((await api.admin.get(`${base}?resourceVersion=0&resourceVersionMatch=Exact`)).status).toBe(422);
    expect((await api.admin.get(`${base}?resourceVersionMatch=Sideways&resourceVersion=1`)).status).toBe(422);
    const page = (await api.admin.get(`${base}?limit=1`)).json<List>();
    const bad = await api.admin.get(`${base}?limit=1&continue=${encodeURIComponent(page.metadata.continue ?? "")}&resourceVersion=${rvA}`);
    expect(bad.status).toBe(400);
    // "0" with continue is treated as continue from the token
    const withZero = await api.admin.get(`${base}?limit=1&continue=${encodeURIComponent(page.metadata.continue ?? "")}&resourceVersion=0`);
    expect(withZero.status).toBe(200);
    // too large
    const tooLarge = await api.admin.get(`${base}?resourceVersion=999999999`);
    expect(tooLarge.status).toBe(504);
    expect(tooLarge.json<{ message: string }>().message).toContain("Too large resource version");
    // get with a version
    expect((await api.admin.get(`${base}/rv-a?resourceVersion=0`)).status).toBe(200);
    expect((await api.admin.get(`${base}/rv-a?resourceVersion=${rvA}`)).status).toBe(200);
    expect((await api.admin.get(`${base}/rv-a?resourceVersion=abc`)).status).toBe(400);
  });

  it("answers 410 for an exact list below the compacted revision and for a malformed continue token", async () => {
    const a = await api.admin.post(base, cm("cmp-a"));
    const rv = a.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    await api.admin.post(base, cm("cmp-b"));
    await api.kv.compact(await api.kv.currentRevision());
    const gone = await api.admin.get(`${base}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    expect(gone.status).toBe(410);
    expect(gone.json<{ reason: string }>().reason).toBe("Expired");
    const garbage = await api.admin.get(`${base}?limit=1&continue=not-a-token`);
    expect(garbage.status).toBe(400);
  });
});

describe("watch over HTTPS", () => {
  it("streams ADDED, MODIFIED and DELETED from a resourceVersion, each once and in order", async () => {
    const start = (await api.admin.get(base)).json<List>().metadata.resourceVersion;
    const w = api.admin.watch(`${base}?watch=1&resourceVersion=${start}`);
    const created = await api.admin.post(base, cm("w1"));
    const obj = created.json<{ metadata: { resourceVersion: string } }>();
    await api.admin.put(`${base}/w1`, { ...cm("w1"), data: { n: "2" }, metadata: { name: "w1", resourceVersion: obj.metadata.resourceVersion } });
    await api.admin.delete(`${base}/w1`);
    const evs = await w.waitFor(3);
    w.stop();
    expect(evs.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
    expect(evs.every((e) => (e.object.metadata as { name: string }).name === "w1")).toBe(true);
    expect((evs[0].object as { kind: string }).kind).toBe("ConfigMap");
  });

  it("sends initial events then a bookmark with sendInitialEvents", async () => {
    const w = api.admin.watch(`${base}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&labelSelector=parity%3Dodd`);
    const evs = await w.waitFor(501);
    w.stop();
    expect(evs.slice(0, 500).every((e) => e.type === "ADDED")).toBe(true);
    expect(evs[500].type).toBe("BOOKMARK");
    const annotations = (evs[500].object.metadata as { annotations?: Record<string, string> }).annotations;
    expect(annotations?.[api.profile.annotations.initialEventsEnd]).toBe("true");
  });

  it("ends a watch after timeoutSeconds", async () => {
    const started = Date.now();
    const w = api.admin.watch(`${base}?watch=1&resourceVersion=0&timeoutSeconds=1`);
    await w.waitFor(1_000_000, 5000);
    expect(w.ended).toBe(true);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it("answers a watch below the kept history with 200 and an ERROR event carrying 410 Expired", async () => {
    const small = await startTestApiserver({ watchHistoryMaxEvents: 3 });
    try {
      const first = await small.admin.post("/api/v1/namespaces/default/configmaps", cm("h0"));
      const rv = first.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
      for (let i = 1; i < 8; i++) await small.admin.post("/api/v1/namespaces/default/configmaps", cm(`h${i}`));
      const old = await small.admin.get(`/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`);
      expect(old.status).toBe(200);
      const ev = JSON.parse(old.text.trim()) as { type: string; object: { message: string } };
      expect(ev).toMatchObject({ type: "ERROR", object: { kind: "Status", reason: "Expired", code: 410 } });
      expect(ev.object.message).toMatch(/too old resource version/);
    } finally {
      await small.close();
    }
  });

  it("watches one named object through the field selector the clients use", async () => {
    await api.admin.post(base, cm("single"));
    const w = api.admin.watch(`${base}?watch=1&fieldSelector=metadata.name%3Dsingle`);
    const first = await w.waitFor(1);
    await api.admin.post(base, cm("other-one"));
    await api.admin.patch(`${base}/single`, { data: { n: "x" } }, "application/merge-patch+json");
    const evs = await w.waitFor(2);
    w.stop();
    expect(first[0].type).toBe("ADDED");
    expect(evs.map((e) => `${e.type}:${(e.object.metadata as { name: string }).name}`)).toEqual(["ADDED:single", "MODIFIED:single"]);
  });
});

describe("health and OpenAPI", () => {
  it("serves livez, readyz, healthz with verbose, exclude and single checks", async () => {
    for (const p of ["/livez", "/readyz", "/healthz"]) {
      const r = await api.admin.get(p);
      expect(r.status).toBe(200);
      expect(r.text).toBe("ok");
    }
    const verbose = await api.admin.get("/readyz?verbose&exclude=etcd");
    expect(verbose.text).toContain("[+]ping ok");
    expect(verbose.text).toContain("[+]etcd excluded: ok");
    expect(verbose.text).toContain("readyz check passed");
    expect((await api.admin.get("/readyz/ping")).status).toBe(200);
  });

  it("serves OpenAPI v2 and v3 with the profile's extensions", async () => {
    const v2 = await api.admin.get("/openapi/v2");
    expect(v2.status).toBe(200);
    const doc = v2.json<{ swagger: string; definitions: Record<string, Record<string, unknown>> }>();
    expect(doc.swagger).toBe("2.0");
    const dep = doc.definitions[api.profile.definitionName("apps", "v1", "Deployment")];
    expect(dep[api.profile.ext.groupVersionKind]).toEqual([{ group: "apps", version: "v1", kind: "Deployment" }]);
    const index = (await api.admin.get("/openapi/v3")).json<{ paths: Record<string, { serverRelativeURL: string }> }>();
    expect(Object.keys(index.paths)).toContain("apis/apps/v1");
    const apps = await api.admin.get(index.paths["apis/apps/v1"].serverRelativeURL);
    expect(apps.json<{ openapi: string }>().openapi).toMatch(/^3\./);
  });
});
