/**
 * shared/client against a real replica over HTTPS, in both naming profiles: client configuration files in their
 * variants (inline data, relative file paths, contexts, token, token file, skipped
 * verification) and their bad forms, typed Status errors, keep-alive connections,
 * watches with bookmarks, the reflector's resume and relist on 410, and an informer's
 * indexes and handlers following the server's changes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isStatusError } from "../../shared/api/status.ts";
import { discoverResources, KindIndex } from "../../shared/client/discovery.ts";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { NAMESPACE_INDEX } from "../../shared/client/indexer.ts";
import { Informer, objectKey } from "../../shared/client/informer.ts";
import { KubeconfigError, loadKubeconfig } from "../../shared/client/kubeconfig.ts";
import type { ApiObject, WatchEvent } from "../../shared/client/object-client.ts";
import { Reflector } from "../../shared/client/reflector.ts";
import { ensurePki } from "../../services/apiserver/server/certs.ts";
import { connectionCertificateUser } from "../../services/apiserver/server/peer-identity.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

const TOKEN = "client-test-token";
const CM = { group: "", version: "v1", resource: "configmaps" };
const b64 = (s: string) => Buffer.from(s).toString("base64");

// The same client tests against each naming profile.
describe.each(["plat", "kubernetes"] as const)("shared/client against a replica (%s profile)", (profileId) => {
  let api: TestApiserver;
  let pki: Awaited<ReturnType<typeof ensurePki>>;
  let dir: string;
  const clients: HttpsObjectClient[] = [];

  beforeAll(async () => {
    api = await startTestApiserver({
      profileId,
      watchHistoryMaxEvents: 5,
      bookmarkIntervalMs: 200,
      // Tokens: one static token for "token-user"; certificates as usual.
      authenticate: async (req, incoming) => {
        const auth = req.headers.get("authorization");
        if (auth === `Bearer ${TOKEN}`) return { username: "token-user", groups: ["system:authenticated"] };
        if (auth?.startsWith("Bearer ")) return { username: `other:${auth.slice(7)}`, groups: ["system:authenticated"] };
        return connectionCertificateUser(incoming);
      },
      extraRoutes: [["/whoami", (_req, _url, _info, user) => new Response(JSON.stringify(user ?? null), { headers: { "content-type": "application/json" } })]],
    });
    pki = await ensurePki(api.dir, { profile: api.profile });
    dir = mkdtempSync(join(tmpdir(), "client-test-"));
  });

  afterAll(async () => {
    for (const c of clients) c.close();
    await api?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function kubeconfig(name: string, cluster: Record<string, unknown>, user: Record<string, unknown>, extra = ""): string {
    const path = join(dir, name);
    const yaml = [
      "apiVersion: v1",
      "kind: Config",
      "current-context: main",
      "clusters:",
      `- name: c1`,
      `  cluster: ${JSON.stringify({ server: api.replica.url, ...cluster })}`,
      "users:",
      `- name: u1`,
      `  user: ${JSON.stringify(user)}`,
      "contexts:",
      "- name: main",
      "  context: {cluster: c1, user: u1}",
      extra,
    ].join("\n");
    writeFileSync(path, yaml);
    return path;
  }

  function open(path: string, context?: string): HttpsObjectClient {
    const c = HttpsObjectClient.fromKubeconfig(path, context);
    clients.push(c);
    return c;
  }

  async function whoami(c: HttpsObjectClient): Promise<string> {
    return ((await c.getPath("/whoami")) as { username: string }).username;
  }

  describe("client configuration files", () => {
    it("inline certificate authority and client certificate data", async () => {
      const c = open(kubeconfig("inline.yaml", { "certificate-authority-data": b64(pki.ca.certPem) }, { "client-certificate-data": b64(pki.admin.certPem), "client-key-data": b64(pki.admin.keyPem) }));
      expect(await whoami(c)).toBe("admin");
      expect((await c.list({ group: "", version: "v1", resource: "namespaces" })).items.length).toBeGreaterThan(0);
    });

    it("file paths relative to the configuration file's directory", async () => {
      writeFileSync(join(dir, "ca.crt"), pki.ca.certPem);
      writeFileSync(join(dir, "admin.crt"), pki.admin.certPem);
      writeFileSync(join(dir, "admin.key"), pki.admin.keyPem);
      const c = open(kubeconfig("paths.yaml", { "certificate-authority": "ca.crt" }, { "client-certificate": "admin.crt", "client-key": "./admin.key" }));
      expect(await whoami(c)).toBe("admin");
    });

    it("a bearer token, and a token file re-read when it changes", async () => {
      const c = open(kubeconfig("token.yaml", { "certificate-authority-data": b64(pki.ca.certPem) }, { token: TOKEN }));
      expect(await whoami(c)).toBe("token-user");
      writeFileSync(join(dir, "token"), `${TOKEN}\n`);
      const f = open(kubeconfig("tokenfile.yaml", { "certificate-authority-data": b64(pki.ca.certPem) }, { tokenFile: "token" }));
      expect(await whoami(f)).toBe("token-user");
      await new Promise((r) => setTimeout(r, 20));
      writeFileSync(join(dir, "token"), "rotated\n");
      expect(await whoami(f)).toBe("other:rotated");
    });

    it("insecure-skip-tls-verify connects without a CA; without it the unknown CA is refused", async () => {
      const insecure = open(kubeconfig("insecure.yaml", { "insecure-skip-tls-verify": true }, { token: TOKEN }));
      expect(await whoami(insecure)).toBe("token-user");
      const strict = open(kubeconfig("strict.yaml", {}, { token: TOKEN }));
      const err = await whoami(strict).catch((e: unknown) => e);
      expect(isStatusError(err)).toBe(true);
      expect((err as { code: number }).code).toBe(0);
    });

    it("picks a named context over current-context", async () => {
      const extra = ["- name: other", "  context: {cluster: c1, user: u2}"].join("\n");
      const path = kubeconfig("contexts.yaml", { "certificate-authority-data": b64(pki.ca.certPem) }, { token: TOKEN });
      writeFileSync(path, `${readFileSync(path, "utf8")}\n${extra}`);
      // u2 is not defined: choosing that context fails clearly, the current one works.
      expect(() => loadKubeconfig(path, "other")).toThrow(/no user named "u2"/);
      expect(() => loadKubeconfig(path, "absent")).toThrow(/no context named "absent"/);
      expect(await whoami(open(path))).toBe("token-user");
      expect(await whoami(open(path, "main"))).toBe("token-user");
    });

    it("bad files fail with one clear line", () => {
      const bad = (name: string, text: string) => {
        const p = join(dir, name);
        writeFileSync(p, text);
        return p;
      };
      const cases: Array<[string, RegExp]> = [
        [join(dir, "missing.yaml"), /cannot read client configuration .*ENOENT/],
        [bad("garbage.yaml", "clusters: [\n"), /not a valid configuration file/],
        [bad("list.yaml", "- a\n- b\n"), /expected a map/],
        [bad("noctx.yaml", "clusters: []\n"), /no current-context set/],
        [bad("unknownctx.yaml", "current-context: x\ncontexts: []\n"), /no context named "x"/],
        [bad("http.yaml", "current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\nclusters: [{name: c, cluster: {server: 'http://127.0.0.1:1'}}]\n"), /not an https:\/\/ URL/],
        [bad("nofile.yaml", "current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1', certificate-authority: nope.crt}}]\n"), /cannot read certificate-authority .*nope\.crt: ENOENT/],
      ];
      for (const [path, msg] of cases) {
        let err: unknown;
        try {
          loadKubeconfig(path);
        } catch (e) {
          err = e;
        }
        expect(err, path).toBeInstanceOf(KubeconfigError);
        expect((err as Error).message).toMatch(msg);
        expect((err as Error).message).not.toContain("\n");
      }
    });
  });

  describe("object client", () => {
    let c: HttpsObjectClient;
    beforeAll(() => {
      c = open(kubeconfig("admin.yaml", { "certificate-authority-data": b64(pki.ca.certPem) }, { "client-certificate-data": b64(pki.admin.certPem), "client-key-data": b64(pki.admin.keyPem) }));
    });

    it("creates, reads, updates, patches and deletes, with Status errors", async () => {
      const created = await c.create(CM, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "crud", namespace: "default" }, data: { a: "1" } });
      expect(created.metadata.uid).toBeTruthy();
      const dup = await c.create(CM, created).catch((e: unknown) => e);
      expect(isStatusError(dup, "AlreadyExists")).toBe(true);
      const got = await c.get(CM, "crud", { namespace: "default" });
      const updated = await c.update(CM, { ...got, data: { a: "2" } });
      expect(updated.data).toEqual({ a: "2" });
      const stale = await c.update(CM, { ...got, data: { a: "3" } }).catch((e: unknown) => e);
      expect(isStatusError(stale, "Conflict")).toBe(true);
      const patched = await c.patch(CM, "crud", "merge", { data: { b: "x" } }, { namespace: "default" });
      expect(patched.data).toEqual({ a: "2", b: "x" });
      const wrongUid = await c.delete(CM, "crud", { namespace: "default", preconditions: { uid: "not-it" } }).catch((e: unknown) => e);
      expect(isStatusError(wrongUid, "Conflict")).toBe(true);
      await c.delete(CM, "crud", { namespace: "default", preconditions: { uid: created.metadata.uid } });
      const gone = await c.get(CM, "crud", { namespace: "default" }).catch((e: unknown) => e);
      expect(isStatusError(gone, "NotFound")).toBe(true);
      expect((gone as { status: { code: number } }).status.code).toBe(404);
    });

    it("keeps one connection alive across sequential requests", async () => {
      for (let i = 0; i < 5; i++) await c.list(CM, { namespace: "default" });
      const agent = (c.transport as unknown as { agent: { freeSockets: Record<string, unknown[]> } }).agent;
      expect(Object.values(agent.freeSockets).flat()).toHaveLength(1);
    });

    it("discovers resources with kind, scope and verbs", async () => {
      const all = await discoverResources(c);
      const cms = all.find((r) => r.group === "" && r.resource === "configmaps");
      expect(cms).toMatchObject({ kind: "ConfigMap", namespaced: true, preferred: true });
      expect(cms?.verbs).toEqual(expect.arrayContaining(["list", "watch", "delete", "deletecollection"]));
      expect(all.find((r) => r.resource === "namespaces")?.namespaced).toBe(false);
      expect(all.some((r) => r.resource.includes("/"))).toBe(false);
      expect(new KindIndex(all).lookup("apps/v1", "Deployment")?.resource).toBe("deployments");
    });

    it("watches events and bookmarks from a resourceVersion", async () => {
      const list = await c.list(CM, { namespace: "default" });
      const w = c.watch(CM, { namespace: "default", resourceVersion: list.metadata.resourceVersion, allowWatchBookmarks: true });
      const seen: WatchEvent[] = [];
      const done = (async () => {
        for await (const ev of w) {
          seen.push(ev);
          if (seen.some((e) => e.type === "DELETED") && seen.some((e) => e.type === "BOOKMARK")) break;
        }
      })();
      await c.create(CM, { metadata: { name: "watched", namespace: "default" } });
      await c.patch(CM, "watched", "merge", { data: { x: "y" } }, { namespace: "default" });
      await c.delete(CM, "watched", { namespace: "default" });
      await done;
      w.stop();
      const named = seen.filter((e) => e.type !== "BOOKMARK" && e.type !== "ERROR").map((e) => `${e.type}:${(e.object as ApiObject).metadata.name}`);
      expect(named).toEqual(["ADDED:watched", "MODIFIED:watched", "DELETED:watched"]);
    });

    it("a watch refused with 410 reports one ERROR event", async () => {
      const first = await c.create(CM, { metadata: { name: "old-0", namespace: "default" } });
      for (let i = 1; i < 10; i++) await c.create(CM, { metadata: { name: `old-${i}`, namespace: "default" } });
      const events: WatchEvent[] = [];
      for await (const ev of c.watch(CM, { namespace: "default", resourceVersion: first.metadata.resourceVersion })) events.push(ev);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ type: "ERROR", object: { kind: "Status", code: 410, reason: "Expired" } });
    });
  });

  describe("reflector", () => {
    it("resumes from a resourceVersion, relists on 410 and then follows events", async () => {
      const c = open(kubeconfig("reflector.yaml", { "certificate-authority-data": b64(pki.ca.certPem) }, { "client-certificate-data": b64(pki.admin.certPem), "client-key-data": b64(pki.admin.keyPem) }));
      await c.create({ group: "", version: "v1", resource: "namespaces" }, { metadata: { name: "reflect" } });
      const first = await c.create(CM, { metadata: { name: "r-0", namespace: "reflect" } });
      for (let i = 1; i < 10; i++) await c.create(CM, { metadata: { name: `r-${i}`, namespace: "reflect" } });
      const names = new Set<string>();
      const replaced: number[] = [];
      let notify: () => void = () => {};
      const changed = () => new Promise<void>((r) => (notify = r));
      const reflector = new Reflector(
        c,
        CM,
        {
          replace: (items) => {
            names.clear();
            for (const o of items) names.add(o.metadata.name as string);
            replaced.push(items.length);
            notify();
          },
          event: (type, obj) => {
            if (type === "DELETED") names.delete(obj.metadata.name as string);
            else names.add(obj.metadata.name as string);
            notify();
          },
        },
        { namespace: "reflect", resourceVersion: first.metadata.resourceVersion, backoffMs: 50 },
      );
      let next = changed();
      await reflector.start();
      await next;
      // The resume point was too old: one complete list replaced the (empty) state.
      expect(replaced).toEqual([10]);
      expect(reflector.lists).toBe(1);
      next = changed();
      await c.create(CM, { metadata: { name: "after", namespace: "reflect" } });
      await next;
      expect(names.has("after")).toBe(true);
      next = changed();
      await c.delete(CM, "r-0", { namespace: "reflect" });
      await next;
      expect(names.has("r-0")).toBe(false);
      expect(names.size).toBe(10);
      expect(reflector.lists).toBe(1);
      reflector.stop();
    });
  });

  describe("informer", () => {
    it("keeps indexes over its cache through adds, updates and deletes, and calls its handlers", async () => {
      const c = open(kubeconfig("informer.yaml", { "certificate-authority-data": b64(pki.ca.certPem) }, { "client-certificate-data": b64(pki.admin.certPem), "client-key-data": b64(pki.admin.keyPem) }));
      for (const ns of ["idx-a", "idx-b"]) await c.create({ group: "", version: "v1", resource: "namespaces" }, { metadata: { name: ns } });
      await c.create(CM, { metadata: { name: "one", namespace: "idx-a", labels: { app: "web" } } });
      await c.create(CM, { metadata: { name: "two", namespace: "idx-b", labels: { app: "web" } } });
      await c.create(CM, { metadata: { name: "three", namespace: "idx-b", labels: { app: "db" } } });
      const informer = new Informer(c, CM, { labelSelector: "app", backoffMs: 50 });
      informer.addIndexers({ byApp: (o) => [o.metadata.labels?.app ?? ""] });
      const calls: string[] = [];
      let notify: () => void = () => {};
      const changed = () => new Promise<void>((r) => (notify = r));
      informer.addHandler({
        add: (o) => (calls.push(`add ${objectKey(o)}`), notify()),
        update: (_old, o) => (calls.push(`update ${objectKey(o)}`), notify()),
        delete: (o) => (calls.push(`delete ${objectKey(o)}`), notify()),
      });
      await informer.start();
      try {
        expect(informer.indexKeys("byApp", "web")).toEqual(["idx-a/one", "idx-b/two"]);
        expect(informer.byIndex("byApp", "db").map((o) => o.metadata.name)).toEqual(["three"]);
        expect(informer.list("idx-b").map((o) => o.metadata.name)).toEqual(["three", "two"]);
        expect(informer.byIndex(NAMESPACE_INDEX, "idx-a").map((o) => o.metadata.name)).toEqual(["one"]);
        // An index added after the start covers what is cached already.
        informer.addIndexers({ byName: (o) => [o.metadata.name ?? ""] });
        expect(informer.indexKeys("byName", "two")).toEqual(["idx-b/two"]);
        expect(() => informer.addIndexers({ byApp: () => [] })).toThrow("indexer conflict: byApp");
        expect(() => informer.byIndex("absent", "x")).toThrow("Index with name absent does not exist");
        let next = changed();
        await c.patch(CM, "two", "merge", { metadata: { labels: { app: "db" } } }, { namespace: "idx-b" });
        await next;
        expect(informer.indexKeys("byApp", "web")).toEqual(["idx-a/one"]);
        expect(informer.indexKeys("byApp", "db")).toEqual(["idx-b/three", "idx-b/two"]);
        next = changed();
        await c.delete(CM, "three", { namespace: "idx-b" });
        await next;
        expect(informer.indexKeys("byApp", "db")).toEqual(["idx-b/two"]);
        expect(informer.indexKeys("byName", "three")).toEqual([]);
        expect(informer.list("idx-b").map((o) => o.metadata.name)).toEqual(["two"]);
        expect(calls).toEqual(["add idx-a/one", "add idx-b/three", "add idx-b/two", "update idx-b/two", "delete idx-b/three"]);
      } finally {
        informer.stop();
      }
    });
  });
});
