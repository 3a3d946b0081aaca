/**
 * The official JavaScript client (`@kubernetes/client-node`), unmodified, against the
 * apiserver process: CRUD with typed errors, list pagination (limit/continue), and an
 * informer (list, then watch with bookmarks) that stays in sync through 500 writes
 * and a restart of the server process on the same port and data dir.
 */
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getProfile } from "../../shared/platform/index.ts";
import { startServerProcess, type ServerProcess } from "../support/server-process.ts";

const NS = "node-client";
const LONG = process.env.LONG === "1";

let server: ServerProcess;
let kc: k8s.KubeConfig;
let core: k8s.CoreV1Api;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, cond: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

function apiCode(err: unknown): number | undefined {
  return err instanceof k8s.ApiException ? err.code : undefined;
}

beforeAll(async () => {
  server = await startServerProcess();
  kc = new k8s.KubeConfig();
  kc.loadFromFile(server.kubeconfig);
  core = kc.makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: NS } } });
});

afterAll(async () => {
  await server?.close();
});

describe("@kubernetes/client-node", () => {
  it("create, read, replace, patch and delete a ConfigMap; errors are ApiExceptions with a Status", async () => {
    const created = await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: "crud", labels: { app: "crud" } }, data: { a: "1" } } });
    expect(created.metadata?.uid).toBeTruthy();
    const dup = await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: "crud" } } }).catch((e: unknown) => e);
    expect(apiCode(dup)).toBe(409);
    expect(JSON.parse((dup as k8s.ApiException<string>).body) as { reason: string }).toMatchObject({ kind: "Status", status: "Failure", reason: "AlreadyExists" });

    const read = await core.readNamespacedConfigMap({ namespace: NS, name: "crud" });
    expect(read.data).toEqual({ a: "1" });
    read.data = { a: "2" };
    const replaced = await core.replaceNamespacedConfigMap({ namespace: NS, name: "crud", body: read });
    expect(replaced.data).toEqual({ a: "2" });
    const stale = await core.replaceNamespacedConfigMap({ namespace: NS, name: "crud", body: read }).catch((e: unknown) => e);
    expect(apiCode(stale)).toBe(409);

    const merged = await core.patchNamespacedConfigMap({ namespace: NS, name: "crud", body: { data: { b: "3" } } }, k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch));
    expect(merged.data).toEqual({ a: "2", b: "3" });
    const json = await core.patchNamespacedConfigMap({ namespace: NS, name: "crud", body: [{ op: "remove", path: "/data/a" }] }, k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.JsonPatch));
    expect(json.data).toEqual({ b: "3" });
    const applied = await core.patchNamespacedConfigMap(
      { namespace: NS, name: "crud", fieldManager: "node-e2e", force: true, body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "crud" }, data: { c: "4" } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.ServerSideApply),
    );
    expect(applied.data).toEqual({ b: "3", c: "4" });
    expect(applied.metadata?.managedFields?.map((m) => m.manager)).toContain("node-e2e");

    const listed = await core.listNamespacedConfigMap({ namespace: NS, labelSelector: "app=crud" });
    expect(listed.items.map((i) => i.metadata?.name)).toEqual(["crud"]);
    await core.deleteNamespacedConfigMap({ namespace: NS, name: "crud" });
    const gone = await core.readNamespacedConfigMap({ namespace: NS, name: "crud" }).catch((e: unknown) => e);
    expect(apiCode(gone)).toBe(404);
  });

  it("lists in pages with limit and continue, with remainingItemCount", async () => {
    for (let i = 0; i < 7; i++) await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: `page-${i}`, labels: { set: "pages" } } } });
    const names: string[] = [];
    const remaining: Array<number | undefined> = [];
    let cont: string | undefined;
    let pages = 0;
    let rv: string | undefined;
    do {
      // Without a selector the server can count what is left (remainingItemCount).
      const page = await core.listNamespacedConfigMap({ namespace: NS, limit: 3, _continue: cont });
      pages++;
      names.push(...page.items.map((i) => i.metadata?.name ?? ""));
      remaining.push(page.metadata?.remainingItemCount);
      rv ??= page.metadata?.resourceVersion;
      // Every page is served from the snapshot of the first one.
      expect(page.metadata?.resourceVersion).toBe(rv);
      cont = page.metadata?._continue || undefined;
      if (pages === 1) await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: "page-late", labels: { set: "pages" } } } });
    } while (cont);
    expect(pages).toBe(3);
    expect(names).toEqual(["page-0", "page-1", "page-2", "page-3", "page-4", "page-5", "page-6"]);
    expect(remaining).toEqual([4, 1, undefined]);
    const bad = await core.listNamespacedConfigMap({ namespace: NS, limit: 3, _continue: "not-a-token" }).catch((e: unknown) => e);
    expect(apiCode(bad)).toBe(400);
  });

  it("an informer stays in sync through 500 writes and a server restart", async () => {
    const path = `/api/v1/namespaces/${NS}/configmaps`;
    const informer = k8s.makeInformer(kc, path, () => core.listNamespacedConfigMap({ namespace: NS, labelSelector: "set=informer" }), "set=informer");
    let adds = 0;
    let updates = 0;
    let deletes = 0;
    let errors = 0;
    informer.on(k8s.ADD, () => adds++);
    informer.on(k8s.UPDATE, () => updates++);
    informer.on(k8s.DELETE, () => deletes++);
    // client-node stops on an error: restart it after a pause, as its documentation shows.
    informer.on(k8s.ERROR, () => {
      errors++;
      setTimeout(() => void informer.start().catch(() => {}), 500);
    });
    await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: "inf-pre", labels: { set: "informer" } } } });
    await informer.start();
    expect(informer.list().map((o) => o.metadata?.name)).toEqual(["inf-pre"]);

    const expected = new Map<string, string>();
    expected.set("inf-pre", "");
    const cache = () => new Map(informer.list().map((o) => [o.metadata?.name ?? "", o.data?.v ?? ""]));
    const inSync = () => {
      const c = cache();
      if (c.size !== expected.size) return false;
      for (const [name, v] of expected) if (c.get(name) !== v) return false;
      return true;
    };

    // 500 writes in batches of 20 concurrent requests: 200 creates, 200 updates, 100 deletes.
    const ops: Array<() => Promise<unknown>> = [];
    for (let i = 0; i < 200; i++) {
      const name = `inf-${i}`;
      ops.push(async () => {
        await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name, labels: { set: "informer" } }, data: { v: "0" } } });
        expected.set(name, "0");
      });
    }
    for (let i = 0; i < 200; i++) {
      const name = `inf-${i}`;
      ops.push(async () => {
        await core.patchNamespacedConfigMap({ namespace: NS, name, body: { data: { v: "1" } } }, k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch));
        expected.set(name, "1");
      });
    }
    for (let i = 0; i < 100; i++) {
      const name = `inf-${i * 2}`;
      ops.push(async () => {
        await core.deleteNamespacedConfigMap({ namespace: NS, name });
        expected.delete(name);
      });
    }
    const batch = 20;
    for (let i = 0; i < ops.length; i += batch) await Promise.all(ops.slice(i, i + batch).map((op) => op()));
    await until("the informer to catch up with 500 writes", inSync);
    expect(expected.size).toBe(101);
    expect(adds).toBe(201);
    expect(updates).toBe(200);
    expect(deletes).toBe(100);

    // Restart the server; writes made while it is down are impossible, writes after it must arrive.
    await server.restart();
    for (let i = 0; i < 10; i++) {
      const name = `after-${i}`;
      for (let attempt = 0; ; attempt++) {
        try {
          await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name, labels: { set: "informer" } }, data: { v: "r" } } });
          break;
        } catch (err) {
          if (attempt > 50 || apiCode(err) === 409) throw err;
          await sleep(200);
        }
      }
      expected.set(name, "r");
    }
    await core.deleteNamespacedConfigMap({ namespace: NS, name: "inf-1" });
    expected.delete("inf-1");
    await until("the informer to resync after the restart", inSync);
    await informer.stop();
    // The restart cut the watch: the informer saw it and came back.
    expect(errors).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it("a watch with allowWatchBookmarks receives BOOKMARK events carrying a resourceVersion", async () => {
    const list = await core.listNamespacedConfigMap({ namespace: NS });
    const rv = list.metadata?.resourceVersion ?? "";
    const events: Array<{ type: string; rv: string }> = [];
    const addedAt = () => events.findIndex((e) => e.type === "ADDED");
    const req = await new k8s.Watch(kc).watch(
      `/api/v1/namespaces/${NS}/configmaps`,
      { allowWatchBookmarks: true, resourceVersion: rv },
      (type: string, obj: { metadata?: { resourceVersion?: string } }) => events.push({ type, rv: obj.metadata?.resourceVersion ?? "" }),
      () => {},
    );
    try {
      await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: "bookmarked" } } });
      // Bookmarks are periodic, so one may come before the ADDED on a slow machine: wait for one after it.
      await until("a bookmark after the ADDED event", () => addedAt() >= 0 && events.slice(addedAt() + 1).some((e) => e.type === "BOOKMARK"), 20_000);
    } finally {
      req.abort();
    }
    expect(events.filter((e) => e.type !== "BOOKMARK").map((e) => e.type)).toEqual(["ADDED"]);
    const added = events[addedAt()];
    for (const bookmark of events.filter((e) => e.type === "BOOKMARK")) expect(Number(bookmark.rv)).toBeGreaterThanOrEqual(Number(rv));
    const after = events.slice(addedAt() + 1).find((e) => e.type === "BOOKMARK");
    expect(Number(after?.rv)).toBeGreaterThanOrEqual(Number(added.rv));
  }, 40_000);

  it("the embedded default runs the ServiceCIDR controller: finalizer, Ready=True, and a deleted unused ServiceCIDR held for the grace period (LONG=1: then gone)", async () => {
    const net = kc.makeApiClient(k8s.NetworkingV1Api);
    const finalizer = `${getProfile("kubernetes").group("networking")}/service-cidr-finalizer`;
    await net.createServiceCIDR({ body: { metadata: { name: "embedded-extra" }, spec: { cidrs: ["10.200.0.0/24"] } } });
    let cidr = await net.readServiceCIDR({ name: "embedded-extra" });
    const deadline = Date.now() + 20_000;
    while (!(cidr.metadata?.finalizers?.includes(finalizer) && cidr.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")) && Date.now() < deadline) {
      await sleep(100);
      cidr = await net.readServiceCIDR({ name: "embedded-extra" });
    }
    expect(cidr.metadata?.finalizers).toEqual([finalizer]);
    expect(cidr.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({ status: "True", message: "Kubernetes Service CIDR is ready" });
    await net.deleteServiceCIDR({ name: "embedded-extra" });
    // The platform's 10 s grace period: Terminating, still protected, right after the delete.
    const held = await net.readServiceCIDR({ name: "embedded-extra" });
    expect(held.metadata?.deletionTimestamp).toBeTruthy();
    expect(held.metadata?.finalizers).toEqual([finalizer]);
    if (!LONG) return;
    let gone = false;
    const end = Date.now() + 30_000;
    while (!gone && Date.now() < end) {
      await sleep(250);
      gone = await net.readServiceCIDR({ name: "embedded-extra" }).then(() => false, (err: unknown) => apiCode(err) === 404);
    }
    expect(gone).toBe(true);
  }, 60_000);
});
