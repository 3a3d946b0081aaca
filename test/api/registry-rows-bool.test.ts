/**
 * Boolean query parameters over HTTPS, read as the platform reads them: option fields
 * (`watch`, `allowWatchBookmarks`, `sendInitialEvents`, `force`, `orphanDependents`) are
 * false only for `0` and a case-insensitive `false`, anything else is true and no value
 * is refused; `pretty` follows Go's strconv.ParseBool and ignores what it cannot parse,
 * and without a value indents for curl, Wget and browsers.
 * python3-kubernetes, which spells booleans `True`, watches with `allow_watch_bookmarks=True`.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensurePki } from "../../services/apiserver/server/certs.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { pythonWithKubernetes, runClient } from "../support/clients.ts";

let api: TestApiserver;
const base = "/api/v1/namespaces/default/configmaps";
const cm = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...extra }, data: { k: "v" } });
const TRUE_VALUES = ["1", "t", "T", "TRUE", "true", "True", "yes", ""];
const FALSE_VALUES = ["0", "false", "False", "FALSE", "fAlSe"];

beforeAll(async () => {
  // frequent periodic bookmarks, so that watches allowing them surely receive some
  api = await startTestApiserver({ profileId: "kubernetes", bookmarkIntervalMs: 300 });
  expect((await api.admin.post(base, cm("existing"))).status).toBe(201);
});
afterAll(async () => {
  await api?.close();
});

describe("boolean query parameters", () => {
  it("watch: true for every value but 0/false, and never a 400", async () => {
    const answers = await Promise.all(
      [...TRUE_VALUES, ...FALSE_VALUES].map(async (v) => {
        const r = await api.admin.get(`${base}?watch=${encodeURIComponent(v)}&timeoutSeconds=1`);
        const first = r.text.trim().split("\n")[0] ?? "";
        const parsed = JSON.parse(first) as { type?: string; kind?: string };
        return [v, r.status, parsed.type !== undefined ? "watch" : parsed.kind] as const;
      }),
    );
    expect(answers).toEqual([...TRUE_VALUES.map((v) => [v, 200, "watch"]), ...FALSE_VALUES.map((v) => [v, 200, "ConfigMapList"])]);
  });

  it("sendInitialEvents and allowWatchBookmarks spelled True/FALSE", async () => {
    const end = api.profile.annotations.initialEventsEnd;
    const on = api.admin.watch(`${base}?watch=True&sendInitialEvents=True&allowWatchBookmarks=True&resourceVersionMatch=NotOlderThan`);
    const listed = (await api.admin.get(base)).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const off = api.admin.watch(`${base}?watch=TRUE&sendInitialEvents=FALSE&allowWatchBookmarks=t&resourceVersionMatch=NotOlderThan&resourceVersion=${listed}`);
    try {
      const events = await on.waitFor(2, 10_000);
      expect(on.status).toBe(200);
      expect(events.map((e) => e.type)).toEqual(["ADDED", "BOOKMARK"]);
      expect((events[1].object.metadata as { annotations?: Record<string, string> }).annotations?.[end]).toBe("true");
      await new Promise((r) => setTimeout(r, 300));
      expect((await api.admin.post(base, cm("after-watch"))).status).toBe(201);
      const deadline = Date.now() + 10_000;
      while (!off.events.some((e) => e.type === "ADDED") && Date.now() < deadline) await off.waitFor(off.events.length + 1, 500);
      expect(off.status).toBe(200);
      const changes = off.events.filter((e) => e.type !== "BOOKMARK");
      expect(changes.map((e) => [e.type, (e.object.metadata as { name: string }).name])).toEqual([["ADDED", "after-watch"]]);
    } finally {
      on.stop();
      off.stop();
    }
  });

  it("pretty: strconv.ParseBool, an unparsable value is not pretty", async () => {
    const shape = async (v: string) => {
      const r = await api.admin.get(`${base}/existing?pretty=${encodeURIComponent(v)}`);
      expect(r.status).toBe(200);
      return r.text.includes('\n  "kind"') ? "pretty" : "compact";
    };
    for (const v of ["1", "t", "T", "TRUE", "true", "True"]) expect([v, await shape(v)]).toEqual([v, "pretty"]);
    for (const v of ["0", "f", "F", "FALSE", "false", "False", "yes", "tRUE"]) expect([v, await shape(v)]).toEqual([v, "compact"]);
  });

  it("pretty without a value: indented for curl, Wget and browsers, compact for other clients", async () => {
    const shape = async (ua: string, query = "") => {
      const r = await api.admin.get(`${base}/existing${query}`, { "user-agent": ua });
      expect(r.status).toBe(200);
      return r.text.includes('\n  "kind"') ? "pretty" : "compact";
    };
    expect(await shape("curl/8.5.0")).toBe("pretty");
    expect(await shape("Wget/1.21")).toBe("pretty");
    expect(await shape("Mozilla/5.0 (X11)")).toBe("pretty");
    expect(await shape("kubectl/v1.34.0 (linux/amd64)")).toBe("compact");
    expect(await shape("curl/8.5.0", "?pretty=false")).toBe("compact");
    expect(await shape("curl/8.5.0", "?pretty=")).toBe("pretty");
  });

  it("force on apply: False keeps the conflict, True and f overrule it", async () => {
    const path = `${base}/applied`;
    const body = (value: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "applied" }, data: { k: value } });
    const apply = (manager: string, value: string, force: string) =>
      api.admin.request("PATCH", `${path}?fieldManager=${manager}&force=${force}`, { raw: body(value), headers: { "content-type": "application/apply-patch+yaml" } });
    expect((await apply("first", "one", "false")).status).toBe(201);
    const conflict = await apply("second", "two", "False");
    expect(conflict.status).toBe(409);
    expect(conflict.json<{ reason: string }>().reason).toBe("Conflict");
    expect((await apply("second", "two", "0")).status).toBe(409);
    expect((await apply("second", "two", "True")).status).toBe(200);
    expect((await apply("first", "three", "f")).status).toBe(200);
  });

  it("orphanDependents on delete: TRUE adds the orphan finalizer; False does not and answers 202 while finalizers hold the object", async () => {
    for (const name of ["orphan-yes", "orphan-no"]) expect((await api.admin.post(base, cm(name, { finalizers: ["example.com/hold"] }))).status).toBe(201);
    const yes = await api.admin.delete(`${base}/orphan-yes?orphanDependents=TRUE`);
    expect(yes.status).toBe(200);
    expect(yes.json<{ metadata: { finalizers: string[] } }>().metadata.finalizers).toContain("orphan");
    const no = await api.admin.delete(`${base}/orphan-no?orphanDependents=False`);
    expect(no.status).toBe(202);
    expect(no.json<{ metadata: { finalizers: string[] } }>().metadata.finalizers).toEqual(["example.com/hold"]);
  });

  it("python3-kubernetes watches with allow_watch_bookmarks=True", async () => {
    const python = pythonWithKubernetes();
    if (!python) throw new Error("no python3 can `import kubernetes`: apt-get install python3-kubernetes");
    const b64 = (s: string) => Buffer.from(s).toString("base64");
    const kubeconfig = join(api.dir, "python-kubeconfig.yaml");
    const pki = await ensurePki(api.dir, { profile: api.profile });
    await writeFile(
      kubeconfig,
      [
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        `- name: c\n  cluster:\n    server: ${api.replica.url}\n    certificate-authority-data: ${b64(api.ca)}`,
        "users:",
        `- name: u\n  user:\n    client-certificate-data: ${b64(pki.admin.certPem)}\n    client-key-data: ${b64(pki.admin.keyPem)}`,
        "contexts:",
        "- name: x\n  context:\n    cluster: c\n    user: u",
        "current-context: x",
        "",
      ].join("\n"),
    );
    const script = [
      "import json, sys",
      "from kubernetes import client, config, watch",
      "config.load_kube_config(config_file=sys.argv[1])",
      "v1 = client.CoreV1Api()",
      "rv = v1.list_namespaced_config_map('default').metadata.resource_version",
      "v1.create_namespaced_config_map('default', {'metadata': {'name': 'from-python'}})",
      "seen = []",
      "for e in watch.Watch().stream(v1.list_namespaced_config_map, 'default', resource_version=rv, allow_watch_bookmarks=True, timeout_seconds=2):",
      "    seen.append(e['type'] if e['type'] == 'BOOKMARK' else e['type'] + ' ' + e['object'].metadata.name)",
      "print(json.dumps(seen))",
    ].join("\n");
    const r = await runClient(python, ["-c", script, kubeconfig], { timeoutMs: 30_000 });
    expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
    const seen = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "[]") as string[];
    expect(seen.filter((e) => e !== "BOOKMARK")).toEqual(["ADDED from-python"]);
    // the server sent the bookmarks the client asked for (every 300 ms over a 2 s watch)
    expect(seen.filter((e) => e === "BOOKMARK").length).toBeGreaterThan(0);
  });
});
