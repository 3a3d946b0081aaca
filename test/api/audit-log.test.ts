/**
 * Auditing through HTTPS against a replica started with --audit-policy-file, a log
 * file and a webhook receiver (an HTTPS server of this test): kubectl 1.34's requests
 * (`create -f`, JSON) appear as audit Event lines at the policy's levels, the Audit-ID response header is
 * the event's auditID (a client-sent one is kept), watches get ResponseStarted,
 * authorization decisions are annotated, credentials never appear in the log, and a
 * second replica whose webhook never answers still serves promptly and counts the
 * events it drops.
 */
import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer as createTcpServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAuthenticationOptions } from "../../services/apiserver/authn/options.ts";
import { startLocalHttps, type LocalHttps } from "../../services/apiserver/authz/testing/harness.ts";
import type { AuditOptions } from "../../services/apiserver/audit/options.ts";
import type { Replica } from "../../services/apiserver/server/replica.ts";
import { startSecondReplica, startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { layerClients, runClient } from "../support/clients.ts";
import { HttpsClient } from "../support/https-client.ts";
import { auditKubeconfig } from "./audit-kubeconfig.ts";

const ADMIN_TOKEN = "audit-admin-token-5f1e2d3c4b5a69788796";
const BOB_TOKEN = "audit-bob-token-0a9b8c7d6e5f40312233";
const SECRET_VALUE = "s3cr3t-value-that-must-stay-out";

interface Event {
  kind: string;
  apiVersion: string;
  level: string;
  auditID: string;
  stage: string;
  verb: string;
  requestURI: string;
  user: { username: string };
  impersonatedUser?: { username: string; groups?: string[] };
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: { resource: string; namespace?: string; name?: string; subresource?: string };
  responseStatus?: { code: number; reason?: string };
  requestObject?: Record<string, unknown>;
  responseObject?: Record<string, unknown>;
  annotations?: Record<string, string>;
}

let dir: string;
let api: TestApiserver;
let receiver: LocalHttps;
let hanging: Server | undefined;
const hangingSockets: Socket[] = [];
let second: { replica: Replica; admin: HttpsClient } | undefined;
let bare: HttpsClient;
/** The admin by bearer token (the replica authenticates with its flags, not the harness certificates). */
let admin: HttpsClient;
let secondAdmin: HttpsClient;
const received: Event[] = [];
let logPath: string;

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

function auditOptions(policyFile: string, log: string, webhookConfig: string): AuditOptions {
  return {
    policyFile,
    log: { path: log, format: "json", maxAgeDays: 0, maxBackups: 0, maxSizeMB: 0 },
    webhook: { configFile: webhookConfig, bufferSize: 20, maxBatchSize: 5, maxBatchWaitMs: 100, throttleEnable: false, throttleQps: 10, throttleBurst: 15, initialBackoffMs: 50 },
  };
}

async function logEvents(): Promise<Event[]> {
  const text = await readFile(logPath, "utf8");
  return text
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Event);
}

/** Waits until the log holds an event matching `pred`; returns every such event. */
async function eventsFor(pred: (e: Event) => boolean, min = 1): Promise<Event[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const hits = (await logEvents()).filter(pred);
    if (hits.length >= min || Date.now() > deadline) return hits;
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "audit-log-"));
  receiver = await startLocalHttps((_req, res, body) => {
    const list = JSON.parse(body) as { kind: string; items: Event[] };
    if (list.kind === "EventList") received.push(...list.items);
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
  const profile = getProfile("kubernetes");
  const authn = profile.group("authentication");
  const policy = await file(
    "policy.yaml",
    [
      `apiVersion: audit.${profile.groupDomain}/v1`,
      "kind: Policy",
      "omitStages: []",
      "rules:",
      "- level: None",
      '  nonResourceURLs: ["/healthz*", "/livez*", "/readyz*"]',
      "- level: Metadata",
      "  resources: [{group: \"\", resources: [secrets]}]",
      "- level: RequestResponse",
      `  resources: [{group: "${authn}", resources: [tokenreviews]}, {group: "", resources: ["serviceaccounts/token"]}]`,
      "- level: RequestResponse",
      "  namespaces: [audited]",
      "  omitManagedFields: true",
      "- level: Metadata",
      "",
    ].join("\n"),
  );
  logPath = join(dir, "audit", "audit.log");
  const key = generateKeyPairSync("rsa", { modulusLength: 2048, publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } });
  const authentication = defaultAuthenticationOptions();
  authentication.tokenAuthFile = await file("tokens.csv", `${ADMIN_TOKEN},admin,1,system:masters\n${BOB_TOKEN},bob,2\n`);
  authentication.serviceAccountSigningKeyFile = await file("sa.key", key.privateKey);
  authentication.serviceAccountKeyFiles = [await file("sa.pub", key.publicKey)];
  authentication.serviceAccountIssuers = ["https://issuer.audit.test"];
  authentication.apiAudiences = ["https://issuer.audit.test"];
  const webhookConfig = await file("webhook.kubeconfig", auditKubeconfig(receiver.url, receiver.ca.certPem));
  api = await startTestApiserver({ profileId: "kubernetes", security: { authentication, authorization: { modes: ["RBAC"] } }, auditOptions: auditOptions(policy, logPath, webhookConfig) });
  bare = new HttpsClient(api.replica.url, { ca: api.ca });
  admin = new HttpsClient(api.replica.url, { ca: api.ca, token: ADMIN_TOKEN });
  for (const ns of ["audited"]) expect((await admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } })).status).toBe(201);

  // A second replica whose webhook accepts connections and never answers (not even the TLS handshake).
  hanging = createTcpServer((socket: Socket) => hangingSockets.push(socket));
  await new Promise<void>((resolve) => hanging?.listen(0, "127.0.0.1", () => resolve()));
  const hangingPort = (hanging.address() as { port: number }).port;
  const hangingConfig = await file("hanging.kubeconfig", auditKubeconfig(`https://127.0.0.1:${hangingPort}/audit`, receiver.ca.certPem));
  const secondOptions = auditOptions(policy, join(dir, "second.log"), hangingConfig);
  // Throttled to one batch a second, so the hung sends leave the buffer to fill and drop.
  secondOptions.webhook = { ...(secondOptions.webhook as NonNullable<AuditOptions["webhook"]>), bufferSize: 5, maxBatchSize: 5, throttleEnable: true, throttleQps: 1, throttleBurst: 1 };
  second = await startSecondReplica(api, { security: { authentication, authorization: { modes: ["RBAC"] } }, auditOptions: secondOptions });
  secondAdmin = new HttpsClient(second.replica.url, { ca: api.ca, token: ADMIN_TOKEN });
});

afterAll(async () => {
  bare?.close();
  admin?.close();
  secondAdmin?.close();
  second?.admin.close();
  const hangingClosed = new Promise<void>((resolve) => (hanging ? hanging.close(() => resolve()) : resolve()));
  for (const s of hangingSockets) s.destroy();
  await second?.replica.close();
  await api?.close();
  await receiver?.close();
  await hangingClosed;
  if (dir) await rm(dir, { recursive: true, force: true });
});

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

describe("audit log", () => {
  it("writes kubectl 1.34's requests as audit Events with request and response objects at RequestResponse", async () => {
    const home = await mkdtemp(join(tmpdir(), "audit-kubectl-"));
    try {
      await writeFile(join(home, "config"), auditKubeconfig(api.replica.url, api.ca, ADMIN_TOKEN));
      const manifest = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "kc-made", namespace: "audited" }, data: { colour: "teal" } });
      const out = await runClient(layerClients().kubectl, ["create", "-f", "-"], { input: manifest, env: { HOME: home, KUBECONFIG: join(home, "config") } });
      expect(out.code, out.stderr).toBe(0);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
    const [done] = await eventsFor((e) => e.verb === "create" && e.objectRef?.name === "kc-made" && e.stage === "ResponseComplete");
    expect(done).toMatchObject({ kind: "Event", apiVersion: `audit.${api.profile.groupDomain}/v1`, level: "RequestResponse", objectRef: { resource: "configmaps", namespace: "audited" }, responseStatus: { code: 201 } });
    expect(done.user.username).toBe("admin");
    expect(done.requestObject).toMatchObject({ kind: "ConfigMap", data: { colour: "teal" } });
    expect(done.responseObject).toMatchObject({ kind: "ConfigMap", metadata: { name: "kc-made" }, data: { colour: "teal" } });
    expect((done.responseObject?.metadata as Record<string, unknown>).managedFields).toBeUndefined();
    expect(done.annotations?.[api.profile.annotations.authorizationDecision]).toBe("allow");
    const stages = (await logEvents()).filter((e) => e.auditID === done.auditID).map((e) => e.stage);
    expect(stages).toEqual(["RequestReceived", "ResponseComplete"]);
  });

  it("decodes protobuf bodies (kubectl's typed requests) into the event's objects", async () => {
    const home = await mkdtemp(join(tmpdir(), "audit-kubectl-"));
    try {
      await writeFile(join(home, "config"), auditKubeconfig(api.replica.url, api.ca, ADMIN_TOKEN));
      const out = await runClient(layerClients().kubectl, ["create", "configmap", "kc-proto", "-n", "audited", "--from-literal=shade=amber"], { env: { HOME: home, KUBECONFIG: join(home, "config") } });
      expect(out.code, out.stderr).toBe(0);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
    const [done] = await eventsFor((e) => e.verb === "create" && e.objectRef?.name === "kc-proto" && e.stage === "ResponseComplete");
    expect(done?.requestObject).toMatchObject({ kind: "ConfigMap", data: { shade: "amber" } });
    expect(done?.responseObject).toMatchObject({ kind: "ConfigMap", metadata: { name: "kc-proto" } });
  });

  it("answers with the Audit-ID header of the event, keeping one the client sent", async () => {
    const mine = await admin.get("/api/v1/namespaces/audited/configmaps", { "audit-id": "client-chosen-id-42" });
    expect(mine.headers["audit-id"]).toBe("client-chosen-id-42");
    const fresh = await admin.get("/api/v1/namespaces/default/configmaps");
    const id = String(fresh.headers["audit-id"]);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await eventsFor((e) => e.auditID === "client-chosen-id-42" && e.stage === "ResponseComplete"))[0]?.level).toBe("RequestResponse");
    const ev = (await eventsFor((e) => e.auditID === id && e.stage === "ResponseComplete"))[0];
    expect(ev).toMatchObject({ level: "Metadata", verb: "list", responseStatus: { code: 200 } });
    expect(ev.requestObject).toBeUndefined();
    expect(ev.responseObject).toBeUndefined();
  });

  it("records the caller's address, user agent and, under impersonation, both the authenticated and the impersonated user", async () => {
    const r = await admin.get("/api/v1/namespaces/audited/configmaps", { "impersonate-user": "bob", "impersonate-group": "audit-viewers", "user-agent": "audit-test/1.0 (linux/amd64)" });
    const id = String(r.headers["audit-id"]);
    const ev = (await eventsFor((e) => e.auditID === id && e.stage === "ResponseComplete"))[0];
    expect(ev, id).toBeDefined();
    expect(ev.user.username).toBe("admin");
    expect(ev.impersonatedUser?.username).toBe("bob");
    expect(ev.impersonatedUser?.groups).toContain("audit-viewers");
    expect(ev.sourceIPs).toEqual(["127.0.0.1"]);
    expect(ev.userAgent).toBe("audit-test/1.0 (linux/amd64)");
    // bob may not list ConfigMaps: the event records the impersonated request's refusal.
    expect(r.status).toBe(403);
    expect(ev.responseStatus?.code).toBe(403);
    const plain = await admin.get("/api/v1/namespaces/audited/configmaps");
    const own = (await eventsFor((e) => e.auditID === String(plain.headers["audit-id"]) && e.stage === "ResponseComplete"))[0];
    expect(own.impersonatedUser).toBeUndefined();
    // Behind proxies: the forwarded chain, then X-Real-Ip, then the connection's own address.
    const proxied = await admin.get("/api/v1/namespaces/audited/configmaps", { "x-forwarded-for": "203.0.113.7, 10.1.2.3", "x-real-ip": "198.51.100.4" });
    const via = (await eventsFor((e) => e.auditID === String(proxied.headers["audit-id"]) && e.stage === "ResponseComplete"))[0];
    expect(via.sourceIPs).toEqual(["203.0.113.7", "10.1.2.3", "198.51.100.4", "127.0.0.1"]);
  });

  it("records each mutating webhook call (mutated or not) at Metadata, and its patch from the Request level up", async () => {
    const profile = getProfile("kubernetes");
    const patch = [{ op: "add", path: "/metadata/annotations", value: { stamped: "yes" } }];
    const hooks = await startLocalHttps((_req, res, body) => {
      const review = JSON.parse(body) as { request: { uid: string; object: { metadata: { labels?: Record<string, string> } } } };
      const stamp = review.request.object.metadata.labels?.stamp === "yes";
      const response = { uid: review.request.uid, allowed: true, ...(stamp ? { patchType: "JSONPatch", patch: Buffer.from(JSON.stringify(patch)).toString("base64") } : {}) };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ apiVersion: `admission.${profile.groupDomain}/v1`, kind: "AdmissionReview", response }));
    });
    const ar = `/apis/${profile.group("admissionregistration")}/v1/mutatingwebhookconfigurations`;
    const hook = (name: string) => ({
      name,
      clientConfig: { url: `${hooks.url}/${name}`, caBundle: Buffer.from(hooks.ca.certPem).toString("base64") },
      rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
      objectSelector: { matchLabels: { audited: "hook" } },
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
    });
    try {
      const reg = await admin.post(ar, { apiVersion: `${profile.group("admissionregistration")}/v1`, kind: "MutatingWebhookConfiguration", metadata: { name: "audit-stamper" }, webhooks: [hook("stamper.example.com")] });
      expect(reg.status, reg.text).toBe(201);
      const create = async (namespace: string, name: string, labels: Record<string, string>) => {
        for (let i = 0; ; i++) {
          const r = await admin.post(`/api/v1/namespaces/${namespace}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `${name}-${i}`, labels: { audited: "hook", ...labels } } });
          expect(r.status, r.text).toBe(201);
          const stamped = r.json<{ metadata: { annotations?: Record<string, string> } }>().metadata.annotations?.stamped === "yes";
          // The webhook configuration reaches admission through the watch: retry until the call is made.
          const ev = (await eventsFor((e) => e.auditID === String(r.headers["audit-id"]) && e.stage === "ResponseComplete"))[0];
          if (ev.annotations?.[mutationKey] !== undefined || i > 50) return { ev, stamped };
          await new Promise((res) => setTimeout(res, 100));
        }
      };
      const mutationKey = `mutation.webhook.admission.${profile.groupDomain}/round_0_index_0`;
      const patchKey = `patch.webhook.admission.${profile.groupDomain}/round_0_index_0`;
      // RequestResponse level (namespace "audited"): whether it mutated, and the patch it sent.
      const full = await create("audited", "stamped", { stamp: "yes" });
      expect(full.stamped).toBe(true);
      expect(JSON.parse(full.ev.annotations?.[mutationKey] ?? "null")).toEqual({ configuration: "audit-stamper", webhook: "stamper.example.com", mutated: true });
      expect(JSON.parse(full.ev.annotations?.[patchKey] ?? "null")).toEqual({ configuration: "audit-stamper", webhook: "stamper.example.com", patch, patchType: "JSONPatch" });
      // A call that changed nothing is recorded as such, with no patch.
      const plain = await create("audited", "plain", {});
      expect(JSON.parse(plain.ev.annotations?.[mutationKey] ?? "null")).toMatchObject({ mutated: false });
      expect(plain.ev.annotations?.[patchKey]).toBeUndefined();
      // Metadata level (namespace "default"): the patch may carry request data, so it is left out.
      const meta = await create("default", "stamped", { stamp: "yes" });
      expect(meta.ev.level).toBe("Metadata");
      expect(JSON.parse(meta.ev.annotations?.[mutationKey] ?? "null")).toMatchObject({ mutated: true });
      expect(meta.ev.annotations?.[patchKey]).toBeUndefined();
    } finally {
      await admin.delete(`${ar}/audit-stamper`);
      await hooks.close();
    }
  });

  it("keeps Secrets at the policy's Metadata level: their data never reaches the log", async () => {
    const r = await admin.post("/api/v1/namespaces/audited/secrets", { apiVersion: "v1", kind: "Secret", metadata: { name: "creds" }, stringData: { password: SECRET_VALUE } });
    expect(r.status, r.text).toBe(201);
    expect((await admin.get("/api/v1/namespaces/audited/secrets/creds")).status).toBe(200);
    const [ev] = await eventsFor((e) => e.objectRef?.resource === "secrets" && e.verb === "get" && e.stage === "ResponseComplete");
    expect(ev.level).toBe("Metadata");
    const text = await readFile(logPath, "utf8");
    expect(text).not.toContain(SECRET_VALUE);
    expect(text).not.toContain(Buffer.from(SECRET_VALUE).toString("base64"));
  });

  it("never writes a token: TokenReview and TokenRequest are redacted, bearer headers are not copied", async () => {
    const authn = api.profile.group("authentication");
    const review = await bare.post(`/apis/${authn}/v1/tokenreviews`, { apiVersion: `${authn}/v1`, kind: "TokenReview", spec: { token: BOB_TOKEN } }, auth(ADMIN_TOKEN));
    expect(review.status, review.text).toBe(201);
    expect((await bare.post("/api/v1/namespaces/audited/serviceaccounts", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "robot" } }, auth(ADMIN_TOKEN))).status).toBe(201);
    const issued = await bare.post("/api/v1/namespaces/audited/serviceaccounts/robot/token", { apiVersion: `${authn}/v1`, kind: "TokenRequest", spec: {} }, auth(ADMIN_TOKEN));
    expect(issued.status, issued.text).toBe(201);
    const token = issued.json<{ status: { token: string } }>().status.token;
    const [reviewed] = await eventsFor((e) => e.objectRef?.resource === "tokenreviews" && e.stage === "ResponseComplete");
    expect(reviewed.level).toBe("RequestResponse");
    expect((reviewed.requestObject?.spec as Record<string, unknown>).token).toBe("[REDACTED]");
    const [requested] = await eventsFor((e) => e.objectRef?.subresource === "token" && e.stage === "ResponseComplete");
    expect((requested.responseObject?.status as Record<string, unknown>).token).toBe("[REDACTED]");
    const text = await readFile(logPath, "utf8");
    for (const credential of [ADMIN_TOKEN, BOB_TOKEN, token]) expect(text).not.toContain(credential);
  });

  it("annotates a refused request with the forbid decision", async () => {
    const r = await bare.get("/api/v1/namespaces/audited/configmaps/kc-made", auth(BOB_TOKEN));
    expect(r.status).toBe(403);
    const [ev] = await eventsFor((e) => e.user.username === "bob" && e.stage === "ResponseComplete");
    expect(ev.responseStatus).toMatchObject({ code: 403, reason: "Forbidden" });
    expect(ev.annotations?.[api.profile.annotations.authorizationDecision]).toBe("forbid");
    expect(ev.annotations?.[api.profile.annotations.authorizationReason]).toBe("");
  });

  it("annotates an allowed request with the authorizer's reason", async () => {
    const rbac = api.profile.group("rbac");
    await admin.post(`/apis/${rbac}/v1/namespaces/audited/roles`, { apiVersion: `${rbac}/v1`, kind: "Role", metadata: { name: "cm-reader" }, rules: [{ verbs: ["get"], apiGroups: [""], resources: ["configmaps"] }] });
    await admin.post(`/apis/${rbac}/v1/namespaces/audited/rolebindings`, {
      apiVersion: `${rbac}/v1`,
      kind: "RoleBinding",
      metadata: { name: "bob-reads" },
      roleRef: { apiGroup: rbac, kind: "Role", name: "cm-reader" },
      subjects: [{ kind: "User", apiGroup: rbac, name: "bob" }],
    });
    let r = await bare.get("/api/v1/namespaces/audited/configmaps/kc-made", { ...auth(BOB_TOKEN), "audit-id": "reason-id-1" });
    for (let i = 0; i < 100 && r.status === 403; i++) {
      await new Promise((res) => setTimeout(res, 50));
      r = await bare.get("/api/v1/namespaces/audited/configmaps/kc-made", { ...auth(BOB_TOKEN), "audit-id": "reason-id-1" });
    }
    expect(r.status, r.text).toBe(200);
    const [ev] = (await eventsFor((e) => e.auditID === "reason-id-1" && e.stage === "ResponseComplete" && e.responseStatus?.code === 200)).slice(-1);
    expect(ev.annotations?.[api.profile.annotations.authorizationDecision]).toBe("allow");
    expect(ev.annotations?.[api.profile.annotations.authorizationReason]).toBe('RBAC: allowed by RoleBinding "bob-reads/audited" of Role "cm-reader" to User "bob"');
  });

  it("gives a watch ResponseStarted when it starts and ResponseComplete when it ends; level None writes nothing", async () => {
    const w = await admin.get("/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1", { "audit-id": "watch-id-1" });
    expect(w.status).toBe(200);
    await admin.get("/healthz", { "audit-id": "health-id-1" });
    const stages = (await eventsFor((e) => e.auditID === "watch-id-1", 3)).map((e) => e.stage);
    expect(stages).toEqual(["RequestReceived", "ResponseStarted", "ResponseComplete"]);
    expect((await logEvents()).some((e) => e.auditID === "health-id-1")).toBe(false);
  });

  it("sends the same events to the webhook as EventList batches", async () => {
    await admin.get("/api/v1/namespaces/audited/configmaps/kc-made", { "audit-id": "webhook-id-1" });
    const deadline = Date.now() + 5000;
    while (received.filter((e) => e.auditID === "webhook-id-1").length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    const sent = received.filter((e) => e.auditID === "webhook-id-1");
    expect(sent.map((e) => e.stage)).toEqual(["RequestReceived", "ResponseComplete"]);
    expect(sent[1]).toMatchObject({ kind: "Event", level: "RequestResponse", responseObject: { metadata: { name: "kc-made" } } });
  });

  it("serves promptly while its webhook never answers, and counts the dropped events", async () => {
    const client = secondAdmin;
    const started = Date.now();
    for (let i = 0; i < 20; i++) expect((await client.get("/api/v1/namespaces/default/configmaps")).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5000);
    const metrics = (await client.get("/metrics")).text;
    const dropped = Number(/^apiserver_audit_error_total\{plugin="buffered"\} (\d+)/m.exec(metrics)?.[1] ?? 0);
    expect(dropped).toBeGreaterThan(0);
    expect(Number(/^apiserver_audit_event_total (\d+)/m.exec(metrics)?.[1] ?? 0)).toBeGreaterThanOrEqual(40);
  });
});
