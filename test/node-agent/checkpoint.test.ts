/**
 * The checkpoint endpoint of a real node-agent process (self-signed serving certificate,
 * client certificates from the cluster CA, bearer tokens through TokenReview, decisions
 * through SubjectAccessReview) with the test container runtime and a real apiserver:
 * every status code of Part 1, the response body, the archive's name, place and mode,
 * /healthz and /pods, and the gate switched off on a second agent. The debugging
 * handler `/run` on the same agent: output of CRI ExecSync, `cmd` from the query or a
 * form body, authorization as nodes/proxy, and the agent's 401/403/404/405/500 answers.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { request } from "node:https";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyPairPem } from "../../services/apiserver/server/certs.ts";
import type { ApiObject } from "../../shared/client/object-client.ts";
import { isStatusError } from "../../shared/api/status.ts";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { loadKubeconfig } from "../../shared/client/kubeconfig.ts";
import { startCriServer, type CriServer } from "../support/cri-server.ts";
import { call, TempDir, type HttpResult } from "../support/https-call.ts";
import { NODES, TOKEN, TOKEN_USER, getOrUndefined, startAgentProcess, startAgentTestCluster, waitFor, type AgentProcess, type AgentTestCluster } from "./harness.ts";

const NODE = "cp-node";
const OFF_NODE = "cp-gate-off";
let c: AgentTestCluster;
let cri: CriServer;
let agent: AgentProcess;
let gateOff: AgentProcess;
let checkpointer: KeyPairPem;
let nobody: KeyPairPem;
let containerIds: Record<string, string>;
let nodeKubeconfig: string;
let runner: KeyPairPem;
let webUid: string;
const scripts = new TempDir("run-scripts-");

function agentCa(a: AgentProcess): string {
  return readFileSync(join(a.rootDir, "pki", "kubelet.crt"), "utf8");
}

function post(a: AgentProcess, path: string, auth: { client?: KeyPairPem; token?: string } = {}): Promise<HttpResult> {
  return call(a.url, agentCa(a), { method: "POST", path, client: auth.client, headers: auth.token ? { authorization: `Bearer ${auth.token}` } : {} });
}

const rbac = () => c.api.profile.group("rbac");

beforeAll(async () => {
  c = await startAgentTestCluster();
  cri = await startCriServer();
  const args = (node: string, kubeconfig: string) => ["--kubeconfig", kubeconfig, "--hostname-override", node, "--container-runtime-endpoint", cri.endpoint, "--client-ca-file", c.caFile];
  [agent, gateOff] = await Promise.all([
    c.kubeconfigFor(`system:node:${NODE}`, ["system:nodes"]).then((k) => {
      nodeKubeconfig = k;
      return startAgentProcess(args(NODE, k));
    }),
    c.kubeconfigFor(`system:node:${OFF_NODE}`, ["system:nodes"]).then((k) => startAgentProcess([...args(OFF_NODE, k), "--feature-gates=ContainerCheckpoint=false"])),
  ]);
  checkpointer = await c.clientCert("checkpointer", ["ops"]);
  nobody = await c.clientCert("nobody");
  runner = await c.clientCert("runner");
  const admin = c.admin;
  await admin.create({ group: rbac(), version: "v1", resource: "clusterroles" }, {
    apiVersion: `${rbac()}/v1`,
    kind: "ClusterRole",
    metadata: { name: "node-checkpointer" },
    rules: [{ apiGroups: [""], resources: ["nodes/checkpoint", "nodes/pods", "nodes/healthz"], verbs: ["create", "get"] }],
  });
  await admin.create({ group: rbac(), version: "v1", resource: "clusterrolebindings" }, {
    apiVersion: `${rbac()}/v1`,
    kind: "ClusterRoleBinding",
    metadata: { name: "node-checkpointer" },
    roleRef: { apiGroup: rbac(), kind: "ClusterRole", name: "node-checkpointer" },
    subjects: [
      { apiGroup: rbac(), kind: "User", name: "checkpointer" },
      { apiGroup: rbac(), kind: "User", name: TOKEN_USER },
    ],
  });
  await admin.create({ group: rbac(), version: "v1", resource: "clusterroles" }, {
    apiVersion: `${rbac()}/v1`,
    kind: "ClusterRole",
    metadata: { name: "node-runner" },
    rules: [{ apiGroups: [""], resources: ["nodes/proxy"], verbs: ["create"] }],
  });
  await admin.create({ group: rbac(), version: "v1", resource: "clusterrolebindings" }, {
    apiVersion: `${rbac()}/v1`,
    kind: "ClusterRoleBinding",
    metadata: { name: "node-runner" },
    roleRef: { apiGroup: rbac(), kind: "ClusterRole", name: "node-runner" },
    subjects: [{ apiGroup: rbac(), kind: "User", name: "runner" }],
  });
  await admin.create({ group: "", version: "v1", resource: "namespaces" }, { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a" } });
  await admin.create({ group: "", version: "v1", resource: "serviceaccounts" }, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default", namespace: "team-a" } }).catch(() => undefined);
  const pod = (name: string, nodeName: string): ApiObject => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "team-a" },
    spec: { nodeName, automountServiceAccountToken: false, initContainers: [{ name: "init", image: "busybox" }], containers: [{ name: "app", image: "busybox" }, { name: "sidecar", image: "busybox" }] },
  });
  const web = await admin.create({ group: "", version: "v1", resource: "pods" }, pod("web", NODE));
  await admin.create({ group: "", version: "v1", resource: "pods" }, pod("elsewhere", "some-other-node"));
  webUid = String(web.metadata.uid);
  containerIds = cri.addPod({ name: "web", namespace: "team-a", uid: webUid, containers: ["app", "sidecar"] }).containerIds;
  // The agent learns its pods from the API: wait until /pods lists the pod.
  await waitFor(async () => {
    const r = await call(agent.url, agentCa(agent), { path: "/pods", client: checkpointer });
    return (r.body.items as ApiObject[] | undefined)?.some((p) => p.metadata.name === "web") ? true : undefined;
  }, 20_000, "pod web listed by the agent");
}, 120_000);

afterAll(async () => {
  await Promise.all([agent?.stop(), gateOff?.stop()]);
  await cri?.close();
  await c?.close();
  scripts.remove();
});

describe("healthz and pods", () => {
  it("serves /healthz and lists only the pods bound to the node on /pods", async () => {
    const h = await call(agent.url, agentCa(agent), { path: "/healthz", client: checkpointer });
    expect([h.status, h.text]).toEqual([200, "ok"]);
    const p = await call(agent.url, agentCa(agent), { path: "/pods", client: checkpointer });
    expect(p.body.kind).toBe("PodList");
    expect((p.body.items as ApiObject[]).map((x) => x.metadata.name)).toEqual(["web"]);
    expect((await call(agent.url, agentCa(agent), { path: "/pods" })).status).toBe(401);
  });
});

/** A raw request to the agent: an optional form body, the answer's headers kept. */
function raw(a: AgentProcess, method: string, path: string, o: { client?: KeyPairPem; form?: string } = {}): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, a.url), { method, ca: agentCa(a), cert: o.client?.certPem, key: o.client?.keyPem, agent: false, headers: o.form === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (b: Buffer) => chunks.push(b));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(o.form);
  });
}

describe("run endpoint", () => {
  const lastExecSync = () => cri.calls.filter((x) => x.method === "ExecSync").at(-1)?.request;

  it("runs the cmd query's words in the running container through CRI ExecSync and answers the output as JSON content", async () => {
    const r = await raw(agent, "POST", `/run/team-a/web/app?cmd=${encodeURIComponent("echo hello  world")}`, { client: runner });
    expect(r.status, r.text).toBe(200);
    expect(r.headers["content-type"]).toBe("application/json");
    // Split at every single space: the double space gives an empty argument.
    expect(r.text).toBe("hello  world\n");
    expect(lastExecSync()).toEqual({ container_id: containerIds.app, cmd: ["echo", "hello", "", "world"], timeout: "0" });
  });

  it("reads cmd from a form body before the query, serves the path with the pod's uid, and answers stdout then stderr", async () => {
    const script = scripts.write("both.sh", "echo to-stderr >&2\necho to-stdout\n");
    const r = await raw(agent, "POST", `/run/team-a/web/${webUid}/sidecar?cmd=echo+from-query`, { client: runner, form: new URLSearchParams({ cmd: `sh ${script}` }).toString() });
    expect(r.status, r.text).toBe(200);
    expect(r.text).toBe("to-stdout\nto-stderr\n");
    expect(lastExecSync()).toMatchObject({ container_id: containerIds.sidecar, cmd: ["sh", script] });
  });

  it("answers 500 with the command and its stderr when the command exits non-zero", async () => {
    const script = scripts.write("fail.sh", "echo broken >&2\nexit 3\n");
    const r = await raw(agent, "POST", `/run/team-a/web/app?cmd=${encodeURIComponent(`sh ${script}`)}`, { client: runner });
    expect(r.status).toBe(500);
    expect(r.text).toBe(`command 'sh ${script}' exited with 3: broken\n`);
  });

  it("answers 401 without credentials and 403 naming the proxy subresource for a caller allowed only nodes/checkpoint", async () => {
    const anonymous = await raw(agent, "POST", "/run/team-a/web/app?cmd=true");
    expect([anonymous.status, anonymous.text]).toEqual([401, "Unauthorized"]);
    const denied = await raw(agent, "POST", "/run/team-a/web/app?cmd=true", { client: checkpointer });
    expect(denied.status).toBe(403);
    expect(denied.text.trim()).toBe("Forbidden (user=checkpointer, verb=create, resource=nodes, subresource(s)=[proxy])");
  });

  it.each([
    ["an unknown pod", "/run/team-a/nope/app", 404, "pod does not exist"],
    ["a pod bound to another node", "/run/team-a/elsewhere/app", 404, "pod does not exist"],
    ["a container with no running instance", "/run/team-a/web/nope", 500, 'container not found ("nope")'],
  ])("answers %s with the agent's code and text", async (_name, path, status, text) => {
    const r = await raw(agent, "POST", `${path}?cmd=true`, { client: runner });
    expect([r.status, r.text]).toEqual([status, text]);
  });

  it("answers a GET as the agent does: 403 without the get verb, 405 for a caller allowed it", async () => {
    const r = await raw(agent, "GET", "/run/team-a/web/app?cmd=true", { client: runner });
    expect(r.status).toBe(403);
    const admin = await c.clientCert("run-admin", ["system:masters"]);
    const g = await raw(agent, "GET", "/run/team-a/web/app?cmd=true", { client: admin });
    expect([g.status, g.text]).toEqual([405, "405: Method Not Allowed"]);
  });
});

describe("checkpoint endpoint", () => {
  it("answers 200 with the archive path; the archive is a tar under <root-dir>/checkpoints, mode 0600 in a 0700 directory", async () => {
    cri.mode = "ok";
    const before = Date.now();
    const r = await post(agent, "/checkpoint/team-a/web/app", { client: checkpointer });
    expect(r.status, r.text).toBe(200);
    const items = r.body.items as string[];
    expect(items).toHaveLength(1);
    const dir = join(agent.rootDir, "checkpoints");
    const m = /^checkpoint-web_team-a-app-(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)\.tar$/.exec(items[0].slice(dir.length + 1));
    expect(items[0].startsWith(`${dir}/`)).toBe(true);
    expect(m, items[0]).not.toBeNull();
    expect(Date.parse(m![1])).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(statSync(items[0]).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(execFileSync("tar", ["-tf", items[0]], { encoding: "utf8" })).toContain("config.dump");
    const sent = cri.calls.filter((x) => x.method === "CheckpointContainer").at(-1)?.request;
    expect(sent).toEqual({ container_id: containerIds.app, location: items[0], timeout: "0" });
  });

  it("authenticates a bearer token through a TokenReview and passes ?timeout to the runtime", async () => {
    const r = await post(agent, "/checkpoint/team-a/web/sidecar?timeout=3&timeout=7", { token: TOKEN });
    expect(r.status, r.text).toBe(200);
    const sent = cri.calls.filter((x) => x.method === "CheckpointContainer").at(-1)?.request;
    expect(sent).toMatchObject({ container_id: containerIds.sidecar, timeout: "7" });
  });

  it.each([
    ["no credentials", {}],
    ["an unknown bearer token", { token: "not-a-valid-token-0123456789" }],
  ])("answers 401 Unauthorized for %s", async (_name, auth) => {
    const r = await post(agent, "/checkpoint/team-a/web/app", auth);
    expect(r.status).toBe(401);
    expect(r.text).toBe("Unauthorized");
  });

  it("answers 403 for an authenticated caller the API does not authorize", async () => {
    const r = await post(agent, "/checkpoint/team-a/web/app", { client: nobody });
    expect(r.status).toBe(403);
    expect(r.text.trim()).toBe("Forbidden (user=nobody, verb=create, resource=nodes, subresource(s)=[checkpoint])");
  });

  it.each([
    ["an unknown namespace", "/checkpoint/nope/web/app", "pod does not exist"],
    ["an unknown pod", "/checkpoint/team-a/nope/app", "pod does not exist"],
    ["a pod bound to another node", "/checkpoint/team-a/elsewhere/app", "pod does not exist"],
    ["an unknown container", "/checkpoint/team-a/web/nope", "container nope does not exist"],
    ["a timeout that is not an integer", "/checkpoint/team-a/web/app?timeout=soon", "cannot parse value of timeout parameter"],
  ])("answers 404 for %s", async (_name, path, text) => {
    const r = await post(agent, path, { client: checkpointer });
    expect(r.status).toBe(404);
    expect(r.text).toBe(text);
  });

  it("answers 404 when the ContainerCheckpoint gate is off (after authentication: 401 without it)", async () => {
    const r = await post(gateOff, "/checkpoint/team-a/web/app", { client: checkpointer });
    expect(r.status).toBe(404);
    expect(r.text).toBe("404 page not found");
    expect((await post(gateOff, "/checkpoint/team-a/web/app")).status).toBe(401);
  });

  it.each([
    ["fails", "fail", /^checkpointing of team-a\/web\/app failed \(rpc error: code = Internal desc = checkpointing failed/],
    ["does not implement checkpointing", "unimplemented", /^checkpointing of team-a\/web\/app failed \(rpc error: code = Unimplemented desc = /],
  ] as const)("answers 500 when the runtime %s", async (_name, mode, text) => {
    cri.mode = mode;
    const r = await post(agent, "/checkpoint/team-a/web/app", { client: checkpointer });
    cri.mode = "ok";
    expect(r.status).toBe(500);
    expect(r.text).toMatch(text);
  });

  it("answers 500 when the runtime does not finish within ?timeout", async () => {
    cri.mode = "hang";
    const started = Date.now();
    const r = await post(agent, "/checkpoint/team-a/web/app?timeout=1", { client: checkpointer });
    cri.mode = "ok";
    expect(r.status).toBe(500);
    expect(r.text).toMatch(/DeadlineExceeded/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("keeps an allowed decision cached: removing the binding does not refuse at once", async () => {
    await c.admin.delete({ group: rbac(), version: "v1", resource: "clusterrolebindings" }, "node-checkpointer");
    // A caller never seen before is refused (no cached decision)...
    const fresh = await c.clientCert("checkpointer-2");
    expect((await post(agent, "/checkpoint/team-a/web/app", { client: fresh })).status).toBe(403);
    // ...while the decision for the earlier caller is still cached (5 minutes).
    const r = await post(agent, "/checkpoint/team-a/web/app", { client: checkpointer });
    expect(r.status, r.text).toBe(200);
    expect(existsSync((r.body.items as string[])[0])).toBe(true);
  });
});

describe("the agent's identity under the Node authorizer and NodeRestriction", () => {
  it("may write its own Node status and Lease, not another node's", async () => {
    const asNode = new HttpsObjectClient(loadKubeconfig(nodeKubeconfig));
    const leases = { group: c.api.profile.group("coordination"), version: "v1", resource: "leases" };
    const ns = c.api.profile.nodeLeaseNamespace;
    try {
      await waitFor(() => getOrUndefined(c.admin, NODES, OFF_NODE), 15_000, "other node registered");
      const patch = { metadata: { labels: { touched: "yes" } } };
      await asNode.patch(NODES, NODE, "merge", { status: { conditions: [] } }, { subresource: "status" }).then(() => undefined);
      const other = await asNode.patch(NODES, OFF_NODE, "merge", patch).catch((e: unknown) => e);
      expect(isStatusError(other, "Forbidden")).toBe(true);
      const otherStatus = await asNode.patch(NODES, OFF_NODE, "merge", { status: {} }, { subresource: "status" }).catch((e: unknown) => e);
      expect(isStatusError(otherStatus, "Forbidden")).toBe(true);
      const otherLease = await asNode.get(leases, OFF_NODE, { namespace: ns }).catch((e: unknown) => e);
      expect(isStatusError(otherLease, "Forbidden")).toBe(true);
      expect((await asNode.get(leases, NODE, { namespace: ns })).metadata.name).toBe(NODE);
    } finally {
      asNode.close();
    }
  });
});
