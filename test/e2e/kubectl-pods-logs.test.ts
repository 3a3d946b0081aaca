/**
 * pods/log end to end: a real apiserver replica (kubernetes profile, RBAC and Node
 * authorization, an agent client certificate from `kubeletClient`), a real node-agent
 * process with the test container runtime, and CRI log files the test writes. Over HTTPS:
 * the log, tailLines, timestamps, limitBytes, sinceTime, sinceSeconds, container defaulting and its
 * 400s, the 422 of bad options, the agent's 400s (waiting container, no previous
 * container), an unbound pod's empty log, a follow stream that sees an appended
 * line, and `previous=true` reading the exited instance of a restarted container; nodes/proxy
 * to the agent. With kubectl 1.34: `kubectl logs`, `kubectl logs -f`, `kubectl logs
 * --previous` and `kubectl get --raw` through nodes/proxy.
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAuthenticationOptions } from "../../services/apiserver/authn/options.ts";
import { createCA, createClientCert, createServingCert, type KeyPairPem } from "../../services/apiserver/server/certs.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { layerClients, runClient, spawnLines } from "../support/clients.ts";
import { startCriServer, type CriServer } from "../support/cri-server.ts";
import { HttpsClient } from "../support/https-client.ts";
import { startAgentProcess, waitFor, writeKubeconfig, type AgentProcess } from "../node-agent/harness.ts";

const NODE = "log-node";
const NS = "logs";
let dir: string;
let api: TestApiserver;
let admin: HttpsClient;
let cri: CriServer;
let agent: AgentProcess;
let kubeconfig: string;
let adminCert: KeyPairPem;
let caPem: string;
let appLog: string;
let soloLog: string;

const T0 = "2026-01-01T10:00:00.000000001Z";
const T1 = "2026-01-01T10:00:01.000000002Z";
const T2 = "2026-01-01T10:00:02.000000003Z";
const logPath = (ns: string, pod: string) => `/api/v1/namespaces/${ns}/pods/${pod}/log`;

async function createPod(name: string, containers: string[], nodeName?: string): Promise<string> {
  const res = await admin.post(`/api/v1/namespaces/${NS}/pods`, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: { ...(nodeName ? { nodeName } : {}), automountServiceAccountToken: false, containers: containers.map((c) => ({ name: c, image: "busybox:1.36" })) },
  });
  expect(res.status, res.text).toBe(201);
  return res.json<{ metadata: { uid: string } }>().metadata.uid;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pod-logs-"));
  const ca = await createCA({ commonName: "pod-logs-ca" });
  caPem = ca.certPem;
  const caFile = join(dir, "ca.crt");
  writeFileSync(caFile, ca.certPem);
  const serving = await createServingCert(ca);
  const agentClient = await createClientCert(ca, { user: "apiserver-agent-client", groups: ["system:masters"] });
  api = await startTestApiserver({
    profileId: "kubernetes",
    tls: { key: serving.keyPem, cert: serving.certPem, clientCa: ca.certPem },
    security: { authentication: { ...defaultAuthenticationOptions(), clientCaFile: caFile }, authorization: { modes: ["Node", "RBAC"] } },
    admission: { enable: ["NodeRestriction"], disable: [] },
    kubeletClient: { certPem: agentClient.certPem, keyPem: agentClient.keyPem, preferredAddressTypes: ["InternalIP"] },
  });
  adminCert = await createClientCert(ca, { user: "admin", groups: ["system:masters"] });
  admin = new HttpsClient(api.replica.url, { ca: ca.certPem, cert: adminCert.certPem, key: adminCert.keyPem });
  kubeconfig = writeKubeconfig(join(dir, "admin.kubeconfig"), api.replica.url, ca.certPem, { cert: adminCert });
  const nodeKubeconfig = writeKubeconfig(join(dir, "node.kubeconfig"), api.replica.url, ca.certPem, { cert: await createClientCert(ca, { user: `system:node:${NODE}`, groups: ["system:nodes"] }) });
  cri = await startCriServer();
  expect((await admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } })).status).toBe(201);
  agent = await startAgentProcess(["--profile", "kubernetes", "--kubeconfig", nodeKubeconfig, "--hostname-override", NODE, "--node-ip", "127.0.0.1", "--container-runtime-endpoint", cri.endpoint, "--client-ca-file", caFile]);

  const uid = await createPod("web", ["app", "sidecar"], NODE);
  const ids = cri.addPod({ name: "web", namespace: NS, uid, containers: ["app", "sidecar"] }).containerIds;
  appLog = cri.logPath(ids.app);
  writeFileSync(appLog, `${T0} stdout F first line\n${T1} stderr P second \n${T1} stderr F line\n${T2} stdout F third line\n`);
  const soloUid = await createPod("solo", ["only"], NODE);
  soloLog = cri.logPath(cri.addPod({ name: "solo", namespace: NS, uid: soloUid, containers: ["only"] }).containerIds.only);
  writeFileSync(soloLog, `${T0} stdout F solo says hi\n`);
  // A container that restarted once: its first instance exited with its own log, the second runs.
  const restartedUid = await createPod("restarted", ["app"], NODE);
  const firstId = cri.addPod({ name: "restarted", namespace: NS, uid: restartedUid, containers: ["app"] }).containerIds.app;
  writeFileSync(cri.logPath(firstId), `${T0} stdout F before the restart\n${T1} stderr F crashed\n`);
  writeFileSync(cri.logPath(cri.restartContainer(firstId)), `${T2} stdout F after the restart\n`);
  await createPod("waiting", ["app"], NODE);
  await createPod("unbound", ["app"]);
  // The agent knows the pods once its pod reflector saw them.
  await waitFor(async () => {
    const res = await admin.get(`${logPath(NS, "waiting")}`);
    return res.status === 400 && res.text.includes("waiting to start") ? true : undefined;
  }, 30_000, "the agent serving logs of its pods");
}, 120_000);

afterAll(async () => {
  await agent?.stop();
  await cri?.close();
  admin?.close();
  await api?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("pods/log over HTTPS", () => {
  it("streams the container's log as text, with tailLines, timestamps, limitBytes, sinceTime and sinceSeconds", async () => {
    const all = await admin.get(`${logPath(NS, "web")}?container=app`);
    expect(all.status, all.text).toBe(200);
    expect(all.headers["content-type"]).toMatch(/^text\/plain/);
    expect(all.text).toBe("first line\nsecond line\nthird line\n");
    expect((await admin.get(`${logPath(NS, "web")}?container=app&tailLines=2`)).text).toBe("second line\nthird line\n");
    expect((await admin.get(`${logPath(NS, "web")}?container=app&tailLines=1&timestamps=true`)).text).toBe(`${T2} third line\n`);
    expect((await admin.get(`${logPath(NS, "web")}?container=app&limitBytes=8`)).text).toBe("first li");
    expect((await admin.get(`${logPath(NS, "web")}?container=app&sinceTime=2026-01-01T10:00:02Z`)).text).toBe("third line\n");
    // The lines were written on 2026-01-01: none is from the last minute, all are from the last 10^9 seconds.
    expect((await admin.get(`${logPath(NS, "web")}?container=app&sinceSeconds=60`)).text).toBe("");
    expect((await admin.get(`${logPath(NS, "web")}?container=app&sinceSeconds=1000000000`)).text).toBe("first line\nsecond line\nthird line\n");
    expect((await admin.get(logPath(NS, "solo"))).text).toBe("solo says hi\n");
  });

  it("refuses what the platform refuses", async () => {
    const choose = await admin.get(logPath(NS, "web"));
    expect(choose.status).toBe(400);
    expect(choose.json()).toMatchObject({ reason: "BadRequest", message: "a container name must be specified for pod web, choose one of: [app sidecar]" });
    const wrong = await admin.get(`${logPath(NS, "web")}?container=nope`);
    expect(wrong.json()).toMatchObject({ code: 400, message: "container nope is not valid for pod web" });
    const negative = await admin.get(`${logPath(NS, "web")}?container=app&tailLines=-1`);
    expect(negative.status).toBe(422);
    expect(negative.json()).toMatchObject({ reason: "Invalid", message: 'PodLogOptions "web" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0' });
    const both = await admin.get(`${logPath(NS, "web")}?container=app&sinceSeconds=5&sinceTime=2026-01-01T10:00:02Z`);
    expect(both.json()).toMatchObject({ code: 422, message: 'PodLogOptions "web" is invalid: Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified' });
    const previous = await admin.get(`${logPath(NS, "web")}?container=app&previous=true`);
    expect(previous.json()).toMatchObject({ code: 400, reason: "BadRequest", message: 'previous terminated container "app" in pod "web" not found' });
    const waiting = await admin.get(logPath(NS, "waiting"));
    expect(waiting.json()).toMatchObject({ code: 400, message: 'container "app" in pod "waiting" is waiting to start: ContainerCreating' });
    const missing = await admin.get(logPath(NS, "ghost"));
    expect(missing.json()).toMatchObject({ code: 404, message: 'pods "ghost" not found' });
    const unbound = await admin.get(logPath(NS, "unbound"));
    expect(unbound.status).toBe(200);
    expect(unbound.text).toBe("");
    expect((await admin.post(`${logPath(NS, "web")}`, {})).status).toBe(405);
  });

  it("previous=true reads the exited instance of a restarted container; without it, the running one", async () => {
    const previous = await admin.get(`${logPath(NS, "restarted")}?previous=true`);
    expect(previous.status, previous.text).toBe(200);
    expect(previous.text).toBe("before the restart\ncrashed\n");
    expect((await admin.get(`${logPath(NS, "restarted")}?previous=true&tailLines=1&timestamps=true`)).text).toBe(`${T1} crashed\n`);
    expect((await admin.get(logPath(NS, "restarted"))).text).toBe("after the restart\n");
  });

  it("follow=true keeps the stream open and delivers lines appended to the log", async () => {
    const url = new URL(`${logPath(NS, "solo")}?follow=true`, api.replica.url);
    const received: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const req = httpsRequest(url, { ca: caPem, cert: adminCert.certPem, key: adminCert.keyPem }, (res) => {
        expect(res.statusCode).toBe(200);
        res.on("data", (c: Buffer) => {
          received.push(c.toString());
          const text = received.join("");
          if (text === "solo says hi\n") appendFileSync(soloLog, `${T2} stdout F appended later\n`);
          if (text.includes("appended later\n")) {
            req.destroy();
            resolve();
          }
        });
        res.on("error", () => undefined);
      });
      req.on("error", (err) => (received.join("").includes("appended later") ? resolve() : reject(err)));
      req.end();
      setTimeout(() => reject(new Error(`no appended line; got ${JSON.stringify(received.join(""))}`)), 15_000).unref();
    });
    expect(received.join("")).toBe("solo says hi\nappended later\n");
  });
});

describe("nodes/proxy over HTTPS", () => {
  it("forwards to the node agent and streams its answer back", async () => {
    const health = await admin.get(`/api/v1/nodes/${NODE}/proxy/healthz`);
    expect(health.status, health.text).toBe(200);
    expect(health.text).toBe("ok");
    const list = await admin.get(`/api/v1/nodes/${NODE}/proxy/pods`);
    expect(list.status).toBe(200);
    expect(list.json<{ kind: string; items: Array<{ metadata: { name: string } }> }>().items.map((p) => p.metadata.name)).toEqual(expect.arrayContaining(["web", "solo"]));
    const logs = await admin.get(`/api/v1/nodes/${NODE}/proxy/containerLogs/${NS}/solo/only?limitBytes=4`);
    expect(logs.text).toBe("solo");
    const unknownPath = await admin.get(`/api/v1/nodes/${NODE}/proxy/no-such-path`);
    expect(unknownPath.status).toBe(404);
    expect(unknownPath.text).toBe("404 page not found");
    const ghost = await admin.get("/api/v1/nodes/ghost/proxy/healthz");
    expect(ghost.json()).toMatchObject({ code: 404, message: 'nodes "ghost" not found' });
  });
});

describe("kubectl 1.34", () => {
  it("kubectl logs prints the log; -c picks the container; --tail limits it", async () => {
    const kubectl = layerClients().kubectl;
    const res = await runClient(kubectl, ["--kubeconfig", kubeconfig, "-n", NS, "logs", "web", "-c", "app", "--tail=2"]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe("second line\nthird line\n");
    const raw = await runClient(kubectl, ["--kubeconfig", kubeconfig, "get", "--raw", `/api/v1/nodes/${NODE}/proxy/healthz`]);
    expect(raw.stdout, raw.stderr).toBe("ok");
    const noContainer = await runClient(kubectl, ["--kubeconfig", kubeconfig, "-n", NS, "logs", "pod/waiting"]);
    expect(noContainer.code).not.toBe(0);
    expect(noContainer.stderr).toContain('container "app" in pod "waiting" is waiting to start: ContainerCreating');
  });

  it("kubectl logs --previous prints the exited instance's log", async () => {
    const kubectl = layerClients().kubectl;
    const res = await runClient(kubectl, ["--kubeconfig", kubeconfig, "-n", NS, "logs", "restarted", "--previous"]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe("before the restart\ncrashed\n");
    const none = await runClient(kubectl, ["--kubeconfig", kubeconfig, "-n", NS, "logs", "solo", "-p"]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('previous terminated container "only" in pod "solo" not found');
  });

  it("kubectl logs -f follows the log", async () => {
    const kubectl = layerClients().kubectl;
    const { lines, stderr } = await spawnLines(kubectl, ["--kubeconfig", kubeconfig, "-n", NS, "logs", "-f", "web", "-c", "app", "--tail=1"], {
      count: 2,
      timeoutMs: 20_000,
      onFirstLine: () => appendFileSync(appLog, `${T2} stdout F followed by kubectl\n`),
    });
    expect(lines, stderr).toEqual(["third line", "followed by kubectl"]);
  });
});
