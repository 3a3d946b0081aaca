/**
 * The `plat` CLI as a child process against a real replica in the `plat` profile
 * (client certificates, static tokens, RBAC, service account tokens): get with every
 * output form and selector, watch, create, server-side apply with conflicts, patch,
 * delete with each cascade mode, auth whoami / can-i, create token, config view /
 * use-context, an exec credential plugin, and the one-line failures of bad
 * configurations and plugins. `--help` of every command is checked through runCli.
 */
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMANDS, runCli } from "../../services/cli/main.ts";
import { runClient } from "../support/clients.ts";
import { ADMIN_TOKEN, BIN, cliEnv, firstColumn, headerOf, ROOT, type CliEnv } from "./plat-cli-env.ts";

let e: CliEnv;
const NS = "cli";

beforeAll(async () => {
  e = await cliEnv("plat");
  await e.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
}, 60_000);

afterAll(async () => {
  await e?.close();
});

function file(name: string, text: string): string {
  const p = join(e.dir, name);
  writeFileSync(p, text);
  return p;
}

/** Writes an executable plugin script; `body` sees `info` (the ExecCredential) and `out(status)`. */
function plugin(name: string, body: string): void {
  const p = join(e.dir, name);
  const lines = [
    "#!/usr/bin/env node",
    `const info = JSON.parse(process.env.${e.api.profile.execInfoEnv});`,
    `const out = (status) => process.stdout.write(JSON.stringify({ apiVersion: info.apiVersion, kind: "ExecCredential", status }));`,
    body,
  ];
  writeFileSync(p, `${lines.join("\n")}\n`);
  chmodSync(p, 0o755);
}

/** A client configuration whose user runs `./<cmd>` (v1beta1 without interactiveMode unless given). */
function execConfig(cmd: string, apiVersion = `${e.api.profile.groups.clientAuthentication}/v1beta1`, interactiveMode?: string): string {
  const mode = interactiveMode ? `, interactiveMode: ${interactiveMode}` : "";
  return file(
    `exec-${cmd}-${interactiveMode ?? "default"}`,
    [
      "current-context: x",
      `clusters: [{name: c, cluster: {server: "${e.api.replica.url}", certificate-authority: ca.crt}}]`,
      `users: [{name: u, user: {exec: {apiVersion: ${apiVersion}, command: ./${cmd}${mode}}}}]`,
      "contexts: [{name: x, context: {cluster: c, user: u}}]",
    ].join("\n"),
  );
}

async function ok(args: string[], input?: string): Promise<string> {
  const r = await e.plat(args, { input });
  if (r.code !== 0) throw new Error(`plat ${args.join(" ")} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r.stdout;
}

describe("plat CLI (plat profile)", () => {
  it("creates every object of a file, and reports what already exists", async () => {
    const f = file(
      "objects.yaml",
      [
        "apiVersion: v1",
        "kind: ConfigMap",
        `metadata: {name: one, namespace: ${NS}, labels: {tier: web}}`,
        "data: {a: '1'}",
        "---",
        "apiVersion: v1",
        "kind: ConfigMap",
        "metadata: {name: two, labels: {tier: db}}",
        "data: {b: '2', c: '3'}",
        "---",
        "apiVersion: apps/v1",
        "kind: Deployment",
        "metadata: {name: web}",
        "spec:",
        "  selector: {matchLabels: {app: web}}",
        "  template:",
        "    metadata: {labels: {app: web}}",
        "    spec: {containers: [{name: c, image: nginx}]}",
      ].join("\n"),
    );
    expect(await ok(["-n", NS, "create", "-f", f])).toBe("configmap/one created\nconfigmap/two created\ndeployment.apps/web created\n");
    const again = await e.plat(["-n", NS, "create", "-f", f]);
    expect(again.code).toBe(1);
    expect(again.stderr.trim().split("\n")).toEqual([
      `Error from server (AlreadyExists): error when creating "${f}": configmaps "one" already exists`,
      `Error from server (AlreadyExists): error when creating "${f}": configmaps "two" already exists`,
      `Error from server (AlreadyExists): error when creating "${f}": deployments.apps "web" already exists`,
    ]);
  });

  it("gets tables, yaml, json, names, jsonpath, by label and field selectors, across namespaces", async () => {
    const [table, wide, yaml, json, names, jp, byLabel, byField, all, missing, none] = await Promise.all([
      ok(["get", "configmaps", "-n", NS]),
      ok(["get", "deploy", "-n", NS, "-o", "wide"]),
      ok(["get", "cm", "one", "-n", NS, "-o", "yaml"]),
      ok(["get", "configmap", "-n", NS, "-o", "json"]),
      ok(["get", "cm,deployments.apps", "-n", NS, "-o", "name"]),
      ok(["get", "cm", "-n", NS, "-o", "jsonpath={range .items[*]}{.metadata.name}={.data}{'\\n'}{end}"]),
      ok(["get", "cm", "-n", NS, "-l", "tier=db", "-o", "name"]),
      ok(["get", "cm", "-n", NS, "--field-selector", "metadata.name=one", "-o", "name"]),
      ok(["get", "cm", "-A", "-l", "tier"]),
      e.plat(["get", "cm", "nope", "-n", NS]),
      e.plat(["get", "secrets", "-n", NS]),
    ]);
    expect(headerOf(table)).toEqual(["NAME", "DATA", "AGE"]);
    expect(table.split("\n")[1]).toMatch(/^one {4}1 {6}\d+s$/);
    expect(firstColumn(table)).toEqual(expect.arrayContaining(["one", "two"]));
    expect(headerOf(wide)).toEqual(["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"]);
    expect(parse(yaml)).toMatchObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "one", namespace: NS }, data: { a: "1" } });
    expect(yaml.indexOf("apiVersion:")).toBeLessThan(yaml.indexOf("data:"));
    const list = JSON.parse(json) as { kind: string; items: Array<{ kind: string; metadata: { name: string } }> };
    expect(list.kind).toBe("List");
    expect(list.items.every((i) => i.kind === "ConfigMap")).toBe(true);
    expect(names.trim().split("\n")).toEqual(expect.arrayContaining(["configmap/one", "configmap/two", "deployment.apps/web"]));
    expect(jp).toContain('one={"a":"1"}\n');
    expect(jp).toContain('two={"b":"2","c":"3"}\n');
    expect(byLabel).toBe("configmap/two\n");
    expect(byField).toBe("configmap/one\n");
    expect(headerOf(all)).toEqual(["NAMESPACE", "NAME", "DATA", "AGE"]);
    expect(all.split("\n").slice(1).filter(Boolean).map((l) => l.split(/\s+/).slice(0, 2).join(" ")).sort()).toEqual([`${NS} one`, `${NS} two`]);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe('Error from server (NotFound): configmaps "nope" not found');
    expect(none.code).toBe(0);
    expect(none.stderr.trim()).toBe(`No resources found in ${NS} namespace.`);
  });

  it("watches: prints the table, then each change as a row", async () => {
    await e.admin.post(`/api/v1/namespaces/${NS}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "watched", labels: { watch: "yes" } }, data: { x: "1" } });
    const { lines, stderr } = await e.platLines(["get", "cm", "-n", NS, "-w", "-l", "watch=yes"], {
      count: 4,
      timeoutMs: 30_000,
      onFirstLine: async () => {
        await e.admin.patch(`/api/v1/namespaces/${NS}/configmaps/watched`, { data: { y: "2" } }, "application/merge-patch+json");
        await e.admin.delete(`/api/v1/namespaces/${NS}/configmaps/watched`);
      },
    });
    expect(lines[0]?.split(/\s{2,}/), stderr).toEqual(["NAME", "DATA", "AGE"]);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 2).join(" "))).toEqual(["watched 1", "watched 2", "watched 2"]);
  });

  it("applies on the server with a field manager; conflicts need --force-conflicts", async () => {
    const f = file("apply.yaml", `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: applied, namespace: ${NS}}\ndata: {owner: first}\n`);
    expect(await ok(["apply", "-f", f, "--field-manager", "first"])).toBe("configmap/applied serverside-applied\n");
    const g = file("apply2.yaml", `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: applied, namespace: ${NS}}\ndata: {owner: second}\n`);
    const conflict = await e.plat(["apply", "-f", g, "--field-manager", "second"]);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr.split("\n")[0]).toMatch(/^error: Apply failed with 1 conflict: conflict with "first"/);
    expect(conflict.stderr).toContain("--force-conflicts");
    expect(await ok(["apply", "-f", g, "--field-manager", "second", "--force-conflicts"])).toBe("configmap/applied serverside-applied\n");
    const cm = (await e.admin.get(`/api/v1/namespaces/${NS}/configmaps/applied`)).json() as { data: Record<string, string>; metadata: { managedFields: Array<{ manager: string }> } };
    expect(cm.data.owner).toBe("second");
    expect(cm.metadata.managedFields.map((m) => m.manager)).toEqual(["second"]);
  });

  it("patches with strategic, merge and JSON patches", async () => {
    expect(await ok(["-n", NS, "patch", "deployment", "web", "-p", '{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"nginx:2"}]}}}}'])).toBe("deployment.apps/web patched\n");
    expect(await ok(["-n", NS, "patch", "cm/one", "--type", "merge", "-p", '{"data":{"a":null,"m":"x"}}'])).toBe("configmap/one patched\n");
    expect(await ok(["-n", NS, "patch", "cm", "one", "--type=json", "-p", '[{"op":"add","path":"/data/j","value":"y"}]'])).toBe("configmap/one patched\n");
    expect(await ok(["-n", NS, "patch", "cm", "one", "--type", "merge", "-p", '{"data":{"m":"x"}}'])).toBe("configmap/one patched (no change)\n");
    const d = (await e.admin.get(`/apis/apps/v1/namespaces/${NS}/deployments/web`)).json() as { spec: { template: { spec: { containers: Array<{ image: string }> } } } };
    expect(d.spec.template.spec.containers.map((c) => c.image)).toEqual(["nginx:2"]);
    expect(((await e.admin.get(`/api/v1/namespaces/${NS}/configmaps/one`)).json() as { data: unknown }).data).toEqual({ m: "x", j: "y" });
    const bad = await e.plat(["-n", NS, "patch", "cm", "one", "--type=json", "-p", '[{"op":"test","path":"/data/m","value":"no"}]']);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(bad.stderr).toMatch(/^Error from server/);
  });

  it("deletes with each cascade mode", async () => {
    for (const n of ["bg", "fg", "or"]) {
      await e.admin.post(`/api/v1/namespaces/${NS}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `del-${n}`, finalizers: ["example.com/hold"] } });
    }
    const [bg, fg, or] = await Promise.all([
      ok(["-n", NS, "delete", "cm", "del-bg", "--wait=false"]),
      ok(["-n", NS, "delete", "configmap/del-fg", "--cascade=foreground", "--wait=false"]),
      ok(["-n", NS, "delete", "cm", "del-or", "--cascade=orphan", "--wait=false"]),
    ]);
    expect([bg, fg, or]).toEqual([`configmap "del-bg" deleted from ${NS} namespace\n`, `configmap "del-fg" deleted from ${NS} namespace\n`, `configmap "del-or" deleted from ${NS} namespace\n`]);
    const finalizers = async (n: string) => ((await e.admin.get(`/api/v1/namespaces/${NS}/configmaps/del-${n}`)).json() as { metadata: { finalizers: string[] } }).metadata.finalizers;
    expect(await finalizers("bg")).toEqual(["example.com/hold"]);
    expect(await finalizers("fg")).toEqual(expect.arrayContaining(["example.com/hold", "foregroundDeletion"]));
    expect(await finalizers("or")).toEqual(expect.arrayContaining(["example.com/hold", "orphan"]));
    // --wait (the default) returns once the finalizers are gone.
    await e.admin.post(`/api/v1/namespaces/${NS}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "del-wait", finalizers: ["example.com/hold"] } });
    const waiting = e.plat(["-n", NS, "delete", "cm", "del-wait", "--timeout=60s"]);
    for (;;) {
      const o = (await e.admin.get(`/api/v1/namespaces/${NS}/configmaps/del-wait`)).json() as { metadata: { deletionTimestamp?: string } };
      if (o.metadata.deletionTimestamp) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    let finished = false;
    void waiting.then(() => (finished = true));
    await new Promise((r) => setTimeout(r, 500));
    expect(finished).toBe(false);
    await e.admin.patch(`/api/v1/namespaces/${NS}/configmaps/del-wait`, { metadata: { finalizers: null } }, "application/merge-patch+json");
    const done = await waiting;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toBe(`configmap "del-wait" deleted from ${NS} namespace\n`);
    await e.admin.patch(`/api/v1/namespaces/${NS}/configmaps/del-bg`, { metadata: { finalizers: null } }, "application/merge-patch+json");
    const gone = await e.plat(["-n", NS, "delete", "cm", "del-bg"]);
    expect(gone.code).toBe(1);
    expect(gone.stderr.trim()).toBe('Error from server (NotFound): configmaps "del-bg" not found');
    const badCascade = await e.plat(["-n", NS, "delete", "cm", "x", "--cascade=sideways"]);
    expect(badCascade.code).toBe(1);
    expect(badCascade.stderr).toContain('error: invalid cascade value (sideways). Must be "background", "foreground", or "orphan".');
  });

  it("auth whoami, auth can-i and create token", async () => {
    await e.admin.post(`/api/v1/namespaces/${NS}/serviceaccounts`, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "bot" } });
    const [who, yes, no, token] = await Promise.all([
      ok(["auth", "whoami"]),
      ok(["auth", "can-i", "create", "deployments.apps", "-n", NS]),
      e.plat(["--context", "viewer", "auth", "can-i", "delete", "cm", "-n", NS]),
      ok(["-n", NS, "create", "token", "bot", "--duration", "10m"]),
    ]);
    expect(who.split("\n").map((l) => l.trim().split(/\s{2,}/))).toEqual([["ATTRIBUTE", "VALUE"], ["Username", "cli-admin"], ["Groups", "[system:masters system:authenticated]"], [""]]);
    expect(yes).toBe("yes\n");
    expect(no.code).toBe(1);
    expect(no.stdout).toBe("no\n");
    const sa = await ok(["--token", token.trim(), "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"]);
    expect(sa).toBe(`system:serviceaccount:${NS}:bot`);
  });

  it("--content-type protobuf creates and reads the same objects as json; a bad value is one line", async () => {
    const f = file("pb.yaml", stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "via-pb", namespace: NS }, data: { k: "v" } }));
    await ok(["--content-type", "protobuf", "create", "-f", f]);
    const viaPb = JSON.parse(await ok(["--content-type=protobuf", "get", "configmap", "via-pb", "-n", NS, "-o", "json"])) as Record<string, unknown>;
    const viaJson = JSON.parse(await ok(["get", "configmap", "via-pb", "-n", NS, "-o", "json"])) as Record<string, unknown>;
    expect(viaPb).toEqual(viaJson);
    expect(viaPb).toMatchObject({ kind: "ConfigMap", data: { k: "v" } });
    const bad = await e.plat(["--content-type", "xml", "get", "configmaps", "-n", NS]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim().split("\n")).toEqual(['error: invalid value "xml" for --content-type: expected one of json, protobuf, cbor']);
  });

  it("api-resources and version", async () => {
    const [resources, version] = await Promise.all([ok(["api-resources"]), ok(["version"])]);
    expect(headerOf(resources)).toEqual(["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]);
    expect(resources).toMatch(/^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
    expect(resources).toMatch(new RegExp(`^roles\\s+${e.api.profile.group("rbac").replace(/\./g, "\\.")}/v1\\s+true\\s+Role$`, "m"));
    expect(version).toMatch(/^Client Version: v1\.35\.0\nServer Version: v1\.\d+\.\d+\n$/);
  });

  it("config view redacts credentials; use-context switches; bad configurations fail with one line", async () => {
    const view = parse(await ok(["config", "view"])) as { users: Array<{ name: string; user: Record<string, string> }>; clusters: Array<{ cluster: Record<string, string> }> };
    expect(view.users.find((u) => u.name === "viewer")?.user.token).toBe("REDACTED");
    expect(view.clusters[0].cluster["certificate-authority"]).toBe(join(e.dir, "ca.crt"));
    const raw = parse(await ok(["config", "view", "--raw", "--minify", "--context", "viewer"])) as { users: Array<{ user: Record<string, string> }> };
    expect(raw.users).toHaveLength(1);
    expect(raw.users[0].user.token).toBeTruthy();
    const copy = file("config-copy", readFileSync(e.config, "utf8"));
    const env = { [e.api.profile.clientConfigEnv]: copy };
    const switched = await e.plat(["config", "use-context", "viewer"], { env });
    expect(switched.stdout).toBe('Switched to context "viewer".\n');
    expect((await e.plat(["auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"], { env })).stdout).toBe("viewer");
    const bad: Array<[string[], Record<string, string>, RegExp]> = [
      [["get", "cm"], { [e.api.profile.clientConfigEnv]: join(e.dir, "absent") }, /^error: no client configuration found: set PLATCONFIG/],
      [["--kubeconfig", join(e.dir, "absent"), "get", "cm"], {}, /^error: cannot read client configuration .*absent: ENOENT$/],
      [["get", "cm"], { [e.api.profile.clientConfigEnv]: file("garbage", "clusters: [\n") }, /^error: .*garbage: not a valid configuration file/],
      [["--context", "nowhere", "get", "cm"], {}, /^error: .*no context named "nowhere"$/],
      [["config", "use-context", "nowhere"], { [e.api.profile.clientConfigEnv]: copy }, /^error: no context exists with the name: "nowhere"$/],
    ];
    // No file at all: --server, --token and --insecure-skip-tls-verify are enough.
    const bare = e.plat(["--server", e.api.replica.url, "--token", ADMIN_TOKEN, "--insecure-skip-tls-verify", "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"], {
      env: { [e.api.profile.clientConfigEnv]: join(e.dir, "absent") },
    });
    const results = await Promise.all(bad.map(([args, env2]) => e.plat(args, { env: env2 })));
    expect((await bare).stdout).toBe("token-admin");
    results.forEach((r, i) => {
      expect(r.code, bad[i][0].join(" ")).not.toBe(0);
      expect(r.stderr.trim(), bad[i][0].join(" ")).toMatch(bad[i][2]);
      expect(r.stderr.trim().split("\n"), bad[i][0].join(" ")).toHaveLength(1);
    });
  });

  it("authenticates through an exec credential plugin; a hanging, garbage-printing, failing or expired plugin is one line and exit code 1", async () => {
    plugin("good-plugin.js", `out({ token: ${JSON.stringify(ADMIN_TOKEN)} });`);
    plugin("bad-plugin.js", `process.stderr.write("login required\\n"); process.exit(2);`);
    plugin("hang-plugin.js", "setTimeout(() => {}, 60000);");
    plugin("garbage-plugin.js", `process.stdout.write("hello, not json");`);
    plugin("expired-plugin.js", `out({ token: "x", expirationTimestamp: "2001-01-01T00:00:00Z" });`);
    const run = (cmd: string, args: string[]) => e.plat(args, { env: { [e.api.profile.clientConfigEnv]: execConfig(cmd) } });
    const [good, bad, hang, garbage, expired] = await Promise.all([
      run("good-plugin.js", ["auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"]),
      run("bad-plugin.js", ["get", "cm"]),
      run("hang-plugin.js", ["--request-timeout=1s", "get", "cm"]),
      run("garbage-plugin.js", ["get", "cm"]),
      run("expired-plugin.js", ["get", "cm"]),
    ]);
    expect(good.stdout, good.stderr).toBe("token-admin");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe("Unable to connect to the server: getting credentials: exec: executable ./bad-plugin.js failed with exit code 2: login required\n");
    const failures: Array<[typeof hang, RegExp]> = [
      [hang, /^Unable to connect to the server: getting credentials: exec: executable \.\/hang-plugin\.js did not finish within 1s and was killed$/],
      [garbage, /^Unable to connect to the server: getting credentials: exec plugin: decoding stdout: not an ExecCredential .*hello, not json/],
      [expired, /^Unable to connect to the server: getting credentials: exec plugin returned an expired credential \(expirationTimestamp 2001-01-01T00:00:00Z\)$/],
    ];
    for (const [r, message] of failures) {
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr.trim().split("\n"), r.stderr).toHaveLength(1);
      expect(r.stderr.trim()).toMatch(message);
    }
  });

  it("on a terminal, interactiveMode Always and IfAvailable hand standard input to the plugin (spec.interactive true); Never does not", async () => {
    plugin("tty-plugin.js", `out({ token: JSON.stringify({ interactive: info.spec.interactive, tty: process.stdin.isTTY === true }) === process.env.EXPECT ? ${JSON.stringify(ADMIN_TOKEN)} : "wrong" });`);
    const group = e.api.profile.groups.clientAuthentication;
    const config = (mode: string) => execConfig("tty-plugin.js", `${group}/v1`, mode);
    const whoami = ["auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"];
    const interactive = JSON.stringify({ interactive: true, tty: true });
    const [always, ifAvailable, never, alwaysWithoutTerminal] = await Promise.all([
      e.platOnTerminal(whoami, { env: { [e.api.profile.clientConfigEnv]: config("Always"), EXPECT: interactive } }),
      e.platOnTerminal(whoami, { env: { [e.api.profile.clientConfigEnv]: config("IfAvailable"), EXPECT: interactive } }),
      e.platOnTerminal(whoami, { env: { [e.api.profile.clientConfigEnv]: config("Never"), EXPECT: JSON.stringify({ interactive: false, tty: false }) } }),
      e.plat(whoami, { env: { [e.api.profile.clientConfigEnv]: config("Always") } }),
    ]);
    for (const r of [always, ifAvailable, never]) expect(r.stdout.trim(), r.stdout).toBe("token-admin");
    expect(alwaysWithoutTerminal.code).toBe(1);
    expect(alwaysWithoutTerminal.stderr).toBe("Unable to connect to the server: getting credentials: exec plugin cannot support interactive mode: standard input is not a terminal\n");
  });

  it("prints the server's Warning headers on standard error", async () => {
    const r = await e.plat(["get", "endpoints", "-n", NS]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split("\n")[0]).toBe(`Warning: v1 Endpoints is deprecated in v1.33+; use ${e.api.profile.group("discovery")}/v1 EndpointSlice`);
  });

  it("uses the namespace of the current context when -n is not given", async () => {
    const f = file("config-in-ns", readFileSync(e.config, "utf8").replace("context: {cluster: local, user: admin, namespace: default}", `context: {cluster: local, user: admin, namespace: ${NS}}`));
    const r = await e.plat(["get", "cm", "-o", "name", "-l", "tier"], { env: { [e.api.profile.clientConfigEnv]: f } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split("\n").sort()).toEqual(["configmap/one", "configmap/two"]);
  });
});

describe("plat --help", () => {
  it("every command prints its usage and flags and exits 0", async () => {
    for (const c of COMMANDS) {
      let out = "";
      const code = await runCli([...c.name.split(" "), "--help"], { out: (t) => (out += t), err: (t) => (out += t), stdin: async () => "" }, {});
      expect(code, c.name).toBe(0);
      expect(out, c.name).toContain(`Usage:\n  ${c.usage}`);
      for (const f of c.flags) expect(out, `${c.name} --${f.name}`).toContain(`--${f.name}=`);
    }
  });

  it("through the shipped executable (tsx) and `npm run plat --`, and an unknown flag or command exits 1", async () => {
    const bin = runClient(process.execPath, [BIN, "get", "-h"], { cwd: ROOT, env: e.env });
    const script = runClient("npm", ["run", "--silent", "plat", "--", "get", "-h"], { cwd: ROOT, env: e.env });
    const [help, viaNpm, flag, cmd] = await Promise.all([bin, script, e.plat(["get", "cm", "--bogus"]), e.plat(["frobnicate"])]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage:\n  plat get");
    expect(viaNpm.code, viaNpm.stderr).toBe(0);
    expect(viaNpm.stdout).toContain("Usage:\n  plat get");
    expect(flag.code).toBe(1);
    expect(flag.stderr).toBe("error: unknown flag: --bogus\nSee 'plat get --help' for usage.\n");
    expect(cmd.code).toBe(1);
    expect(cmd.stderr).toBe('error: unknown command "frobnicate" for "plat"\n');
  });
});
