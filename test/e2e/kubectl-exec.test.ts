/**
 * pods/exec end to end with kubectl 1.34 (WebSocket, channel protocol v5): a real
 * apiserver, a real node-agent process and the test runtime's streaming server, whose
 * exec runs real child processes. Covered: output of a command, stdin piped through
 * `-i` (closed with the v5 close signal, so the command sees its end of input), a
 * non-zero exit code becoming kubectl's exit code, container choice, RBAC (no
 * `create` on pods/exec: 403, over the WebSocket GET too), a validating webhook that
 * sees the CONNECT operation with the PodExecOptions and denies it (and likewise the
 * PodAttachOptions, PodPortForwardOptions and the Pod/Service/NodeProxyOptions), and the Status
 * answers of requests that cannot stream (not an upgrade, a pod without a node).
 * Also `kubectl attach -i` to a container's main process, and the SPDY/3.1 fallback
 * (kubectl with KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false: `Upgrade: SPDY/3.1` through the
 * apiserver and the agent to the runtime's streaming server) for exec and attach, and
 * `kubectl exec -it` (kubectl itself on a terminal made by util-linux `script`): the
 * command runs on a terminal of kubectl's size, sent on the resize channel (WebSocket)
 * or stream (SPDY). `kubectl cp` both ways (tar through exec, stdin for the way in).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCA, createServingCert } from "../../services/apiserver/server/certs.ts";
import { streamProtocols } from "../../shared/stream/channel-protocol.ts";
import { shellQuote } from "../../services/node-agent/cri/tty-process.ts";
import { layerClients, runClient } from "../support/clients.ts";
import { NODE, startStreamingCluster, type StreamingCluster } from "./kubectl-exec-cluster.ts";

const NS = "exec";
let c: StreamingCluster;
let webhook: Server;
const reviews: Array<Record<string, unknown>> = [];

/** A raw upgrade request as a WebSocket client sends it; resolves with the status and body of a refusal (or 101). */
function upgradeRequest(path: string, cert = c.adminCert): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(path, c.api.replica.url), {
      ca: c.caPem,
      cert: cert.certPem,
      key: cert.keyPem,
      headers: { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-protocol": streamProtocols(c.api.profile.groupDomain).v5 },
    });
    req.on("upgrade", (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: "" });
    });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

beforeAll(async () => {
  c = await startStreamingCluster("kubectl-exec", NS, [
    { name: "shell", containers: ["app"] },
    { name: "duo", containers: ["main", "side"] },
    // The main process attach joins: it upper-cases what it reads.
    { name: "attached", containers: ["app"], mainProcesses: { app: ["tr", "a-z", "A-Z"] } },
    // The same for the SPDY attach (an attach that ends its input ends such a process).
    { name: "attached-spdy", containers: ["app"], mainProcesses: { app: ["tr", "a-z", "A-Z"] } },
  ]);
  await c.admin.post(`/api/v1/namespaces/${NS}/pods`, { apiVersion: "v1", kind: "Pod", metadata: { name: "unbound" }, spec: { containers: [{ name: "app", image: "busybox:1.36" }] } });
  // A webhook that denies any CONNECT (exec, attach, portforward, proxy) whose options mention "forbidden-word".
  const ca = await createCA({ commonName: "exec-webhook-ca" });
  const cert = await createServingCert(ca);
  webhook = createServer({ key: cert.keyPem, cert: cert.certPem }, (req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      const review = JSON.parse(body) as { request: { uid: string; subResource: string; object: unknown } };
      reviews.push(review.request as unknown as Record<string, unknown>);
      const denied = JSON.stringify(review.request.object).includes("forbidden-word");
      const message = `${review.request.subResource} of forbidden-word is not allowed`;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ apiVersion: `admission.${c.api.profile.groupDomain}/v1`, kind: "AdmissionReview", response: { uid: review.request.uid, allowed: !denied, ...(denied ? { status: { code: 403, message } } : {}) } }));
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, "127.0.0.1", resolve));
  const port = (webhook.address() as AddressInfo).port;
  const res = await c.admin.post(`/apis/${c.api.profile.group("admissionregistration")}/v1/validatingwebhookconfigurations`, {
    apiVersion: `${c.api.profile.group("admissionregistration")}/v1`,
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: "exec-guard" },
    webhooks: [
      {
        name: "exec-guard.example.com",
        clientConfig: { url: `https://127.0.0.1:${port}/review`, caBundle: Buffer.from(ca.certPem).toString("base64") },
        rules: [{ operations: ["CONNECT"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods/exec", "pods/attach", "pods/portforward", "pods/proxy", "services/proxy", "nodes/proxy"] }],
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
        namespaceSelector: { matchLabels: { [c.api.profile.labels.metadataName]: NS } },
      },
    ],
  });
  expect(res.status, res.text).toBe(201);
}, 120_000);

afterAll(async () => {
  await c?.close();
  await new Promise<void>((resolve) => (webhook ? webhook.close(() => resolve()) : resolve()));
});

describe("kubectl exec", () => {
  it("prints the command's output, pipes stdin through -i, and exits with the command's code", async () => {
    const kubectl = layerClients().kubectl;
    const base = ["--kubeconfig", c.kubeconfig, "-n", NS, "exec"];
    const echo = await runClient(kubectl, [...base, "shell", "--", "sh", "-c", "echo out; echo err >&2"]);
    expect(echo.code, echo.stderr).toBe(0);
    expect(echo.stdout).toBe("out\n");
    expect(echo.stderr).toContain("err\n");
    const piped = await runClient(kubectl, [...base, "-i", "shell", "--", "sh", "-c", "tr a-z A-Z; echo done"], { input: "hello stdin\n" });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toBe("HELLO STDIN\ndone\n");
    const failing = await runClient(kubectl, [...base, "shell", "--", "sh", "-c", "echo before; exit 3"]);
    expect(failing.code).toBe(3);
    expect(failing.stdout).toBe("before\n");
    expect(failing.stderr).toContain("command terminated with exit code 3");
    const duo = await runClient(kubectl, [...base, "duo", "-c", "side", "--", "echo", "side says hi"]);
    expect(duo.stdout, duo.stderr).toBe("side says hi\n");
  });

  it("kubectl attach -i joins the container's main process", async () => {
    const kubectl = layerClients().kubectl;
    const res = await runClient(kubectl, ["--kubeconfig", c.kubeconfig, "-n", NS, "attach", "-i", "attached", "-c", "app"], { input: "attached input\n" });
    expect(res.stdout, res.stderr).toContain("ATTACHED INPUT\n");
  });

  it("falls back to SPDY/3.1 when kubectl does not use WebSocket: exec output, -i stdin, exit code, attach", async () => {
    const kubectl = layerClients().kubectl;
    const env = { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: "false" };
    const base = ["--kubeconfig", c.kubeconfig, "-n", NS, "-v=6", "exec"];
    const piped = await runClient(kubectl, [...base, "-i", "shell", "--", "sh", "-c", "tr a-z A-Z; echo err >&2; exit 4"], { input: "over spdy\n", env });
    expect(piped.stdout, piped.stderr).toBe("OVER SPDY\n");
    expect(piped.stderr).toMatch(/verb="POST" url="https:[^"]+\/exec\?[^"]*" status="101 Switching Protocols"/);
    expect(piped.stderr).toContain("err\n");
    expect(piped.code).toBe(4);
    const attached = await runClient(kubectl, ["--kubeconfig", c.kubeconfig, "-n", NS, "attach", "-i", "attached-spdy", "-c", "app"], { input: "spdy attach\n", env });
    expect(attached.stdout, attached.stderr).toContain("SPDY ATTACH\n");
  });

  it("kubectl exec -it runs the command on a terminal of kubectl's size, over WebSocket and SPDY", async () => {
    const exec = [layerClients().kubectl, "--kubeconfig", c.kubeconfig, "-n", NS, "exec", "-it", "shell", "--", "sh", "-c", "stty size; test -t 0 && echo on-a-terminal"];
    // kubectl's own terminal, 77 columns by 19 rows.
    const onTerminal = ["script", "-q", "-e", "-c", `stty cols 77 rows 19; exec ${exec.map(shellQuote).join(" ")}`, "/dev/null"];
    const variants: Array<Record<string, string>> = [{}, { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: "false" }];
    for (const env of variants) {
      const res = await runClient(onTerminal[0], onTerminal.slice(1), { env });
      // The remote terminal echoes what kubectl forwards from its own; an echoed NUL
      // shows as "^@" and may land between the two lines (seen once in CI).
      expect(res.stdout.replaceAll("^@", ""), JSON.stringify(env)).toContain("19 77\r\non-a-terminal");
      expect(res.code, res.stdout).toBe(0);
    }
  });

  it("needs create on pods/exec: 403 without it, for kubectl and for a WebSocket GET", async () => {
    const kubectl = layerClients().kubectl;
    const reader = await c.user("exec-reader");
    const rbac = c.api.profile.group("rbac");
    const grant = async (name: string, verbs: string[]) => {
      expect((await c.admin.post(`/apis/${rbac}/v1/namespaces/${NS}/roles`, { apiVersion: `${rbac}/v1`, kind: "Role", metadata: { name }, rules: [{ apiGroups: [""], resources: ["pods", "pods/exec"], verbs }] })).status).toBe(201);
      const binding = { apiVersion: `${rbac}/v1`, kind: "RoleBinding", metadata: { name }, roleRef: { apiGroup: rbac, kind: "Role", name }, subjects: [{ apiGroup: rbac, kind: "User", name }] };
      expect((await c.admin.post(`/apis/${rbac}/v1/namespaces/${NS}/rolebindings`, binding)).status).toBe(201);
    };
    const exec = (kubeconfig: string) => runClient(kubectl, ["--kubeconfig", kubeconfig, "-n", NS, "exec", "shell", "--", "echo", "hi"]);
    const none = await exec(reader.kubeconfig);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('User "exec-reader" cannot get resource "pods"');
    expect((await upgradeRequest(`/api/v1/namespaces/${NS}/pods/shell/exec?command=echo&stdout=true`, reader.cert)).status).toBe(403);
    // `get` on pods/exec is not enough: the WebSocket GET is also checked for `create`.
    await grant("exec-reader", ["get"]);
    const getOnly = await upgradeRequest(`/api/v1/namespaces/${NS}/pods/shell/exec?command=echo&stdout=true`, reader.cert);
    expect(getOnly.status).toBe(403);
    expect(JSON.parse(getOnly.body)).toMatchObject({ kind: "Status", code: 403, reason: "Forbidden" });
    const kubectlGetOnly = await exec(reader.kubeconfig);
    expect(kubectlGetOnly.code).not.toBe(0);
    expect(kubectlGetOnly.stdout).toBe("");
    const runner = await c.user("exec-runner");
    await grant("exec-runner", ["get", "create"]);
    const allowed = await exec(runner.kubeconfig);
    expect(allowed.stdout, allowed.stderr).toBe("hi\n");
  });

  it("runs CONNECT admission: a validating webhook sees PodExecOptions and can deny", async () => {
    const kubectl = layerClients().kubectl;
    const denied = await runClient(kubectl, ["--kubeconfig", c.kubeconfig, "-n", NS, "exec", "shell", "--", "echo", "forbidden-word"]);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain("exec of forbidden-word is not allowed");
    expect(denied.stdout).toBe("");
    const seen = reviews.find((r) => JSON.stringify(r.object).includes("forbidden-word"));
    expect(seen).toMatchObject({
      operation: "CONNECT",
      kind: { group: "", version: "v1", kind: "PodExecOptions" },
      resource: { group: "", version: "v1", resource: "pods" },
      subResource: "exec",
      name: "shell",
      namespace: NS,
      object: { kind: "PodExecOptions", apiVersion: "v1", stdout: true, stderr: true, stdin: false, command: ["echo", "forbidden-word"] },
    });
  });

  it("runs CONNECT admission for attach, portforward, pods/proxy, services/proxy and nodes/proxy with their options", async () => {
    const review = (sub: string, kind: string) => reviews.findLast((r) => r.subResource === sub && (r.kind as { kind?: string } | undefined)?.kind === kind);
    const attach = await c.admin.post(`/api/v1/namespaces/${NS}/pods/attached/attach?stdout=true&container=forbidden-word`, undefined);
    expect(attach.status, attach.text).toBe(403);
    expect(attach.text).toContain("attach of forbidden-word is not allowed");
    expect(review("attach", "PodAttachOptions")).toMatchObject({ operation: "CONNECT", name: "attached", namespace: NS, object: { kind: "PodAttachOptions", container: "forbidden-word", stdout: true } });
    // Allowed by the webhook, then refused as no upgrade: admission came first.
    const forward = await c.admin.post(`/api/v1/namespaces/${NS}/pods/shell/portforward?ports=4242`, undefined);
    expect(forward.status, forward.text).toBe(400);
    expect(review("portforward", "PodPortForwardOptions")).toMatchObject({ operation: "CONNECT", name: "shell", object: { kind: "PodPortForwardOptions", apiVersion: "v1", ports: [4242] } });
    const svc = await c.admin.post(`/api/v1/namespaces/${NS}/services`, { apiVersion: "v1", kind: "Service", metadata: { name: "web" }, spec: { ports: [{ port: 80 }] } });
    expect(svc.status, svc.text).toBe(201);
    const proxies: Array<[string, string, string]> = [
      [`/api/v1/namespaces/${NS}/pods/shell/proxy/forbidden-word/a`, "PodProxyOptions", "shell"],
      [`/api/v1/namespaces/${NS}/services/web/proxy/forbidden-word/a`, "ServiceProxyOptions", "web"],
      [`/api/v1/nodes/${NODE}/proxy/forbidden-word/a`, "NodeProxyOptions", NODE],
    ];
    for (const [path, kind, name] of proxies) {
      const r = await c.admin.get(path);
      expect(r.status, `${path}: ${r.text}`).toBe(403);
      expect(r.text).toContain("proxy of forbidden-word is not allowed");
      expect(review("proxy", kind)).toMatchObject({ operation: "CONNECT", name, object: { kind, apiVersion: "v1", path: "/forbidden-word/a" } });
    }
  });

  it("kubectl cp copies a file into the container and back (tar over exec with stdin)", async () => {
    // The test runtime runs a container's commands on this machine, so a container path is a local path.
    const work = mkdtempSync(join(tmpdir(), "kubectl-cp-"));
    try {
      const kubectl = layerClients().kubectl;
      writeFileSync(join(work, "in.txt"), "copied by kubectl cp\n");
      const up = await runClient(kubectl, ["--kubeconfig", c.kubeconfig, "-n", NS, "cp", join(work, "in.txt"), `shell:${work}/inside.txt`, "-c", "app"]);
      expect(up.code, up.stderr).toBe(0);
      expect(readFileSync(join(work, "inside.txt"), "utf8")).toBe("copied by kubectl cp\n");
      const down = await runClient(kubectl, ["--kubeconfig", c.kubeconfig, "-n", NS, "cp", `shell:${work}/inside.txt`, join(work, "back.txt"), "-c", "app"]);
      expect(down.code, down.stderr).toBe(0);
      expect(readFileSync(join(work, "back.txt"), "utf8")).toBe("copied by kubectl cp\n");
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it("answers Status errors when there is nothing to stream", async () => {
    const plain = await c.admin.post(`/api/v1/namespaces/${NS}/pods/shell/exec?command=true&stdout=true`, {});
    expect(plain.json()).toMatchObject({ code: 400, reason: "BadRequest", message: "Upgrade request required" });
    const noStreams = await upgradeRequest(`/api/v1/namespaces/${NS}/pods/shell/exec?command=true`);
    expect(noStreams.status).toBe(400);
    expect(JSON.parse(noStreams.body)).toMatchObject({ message: "you must specify at least 1 of stdin, stdout, stderr" });
    const unbound = await upgradeRequest(`/api/v1/namespaces/${NS}/pods/unbound/exec?command=true&stdout=1`);
    expect(JSON.parse(unbound.body)).toMatchObject({ code: 400, message: "pod unbound does not have a host assigned" });
    const choose = await upgradeRequest(`/api/v1/namespaces/${NS}/pods/duo/exec?command=true&stdout=1`);
    expect(JSON.parse(choose.body)).toMatchObject({ code: 400, message: "a container name must be specified for pod duo, choose one of: [main side]" });
    const ghost = await upgradeRequest(`/api/v1/namespaces/${NS}/pods/ghost/exec?command=true&stdout=1`);
    expect(JSON.parse(ghost.body)).toMatchObject({ code: 404, message: 'pods "ghost" not found' });
  });
});
