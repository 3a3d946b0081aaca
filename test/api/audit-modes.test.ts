/**
 * Audit backends' modes, truncation and the Panic stage over HTTPS (issue 25):
 *  - a blocking-strict webhook receives a request's RequestReceived event before the
 *    request is answered; while it fails, requests fail with the platform's 500
 *    ("failed to store audit event") and are counted as rejected;
 *  - the log backend truncates an event over `--audit-log-truncate-max-event-size`
 *    (objects removed, `audit.<domain>/truncated`) and drops one that stays too large;
 *  - a handler that throws gives a Panic event (500, InternalError, "APIServer panic'd")
 *    instead of ResponseComplete, the client a 500 Status, and the replica keeps serving;
 *  - a second replica's log in batch mode with a one-event buffer drops and counts
 *    what does not fit (`apiserver_audit_error_total{plugin="buffered"}`);
 *  - a third replica's batch-mode webhook gets EventLists of the configured max size,
 *    a partial one after the configured max wait, and batches spaced by the throttle;
 *    a batch the webhook answers 503 is sent again after --audit-webhook-initial-backoff
 *    (100 ms here), then × 1.5, and delivered once.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditOptions } from "../../services/apiserver/audit/options.ts";
import { startLocalHttps, type LocalHttps } from "../../services/apiserver/authz/testing/harness.ts";
import type { Replica } from "../../services/apiserver/server/replica.ts";
import { startSecondReplica, startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import type { HttpsClient } from "../support/https-client.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { auditKubeconfig } from "./audit-kubeconfig.ts";

interface Event {
  auditID: string;
  stage: string;
  level: string;
  requestURI: string;
  responseStatus?: { code: number; status?: string; reason?: string; message?: string };
  requestObject?: unknown;
  responseObject?: unknown;
  annotations?: Record<string, string>;
}

let dir: string;
let api: TestApiserver;
let receiver: LocalHttps;
let webhookFails = false;
const received: Event[] = [];
let logPath: string;
let second: { replica: Replica; admin: HttpsClient } | undefined;
let secondLog: string;
/** The third replica: a batch-mode webhook (4 events a batch, 400 ms wait, 4 batches a second, burst 1) posting to BATCHED_PATH. */
let batched: { replica: Replica; admin: HttpsClient } | undefined;
const BATCHED_PATH = "/batched";
const batches: Array<{ at: number; size: number }> = [];
/** The batched webhook answers 503 to this many sends of RETRIED_NS's events, then 200. */
const RETRIED_NS = "retried";
let refuseRetried = 0;
const retriedSends: Array<{ at: number; events: string[]; refused: boolean }> = [];

async function events(path: string): Promise<Event[]> {
  const text = await readFile(path, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Event);
}

async function eventsFor(path: string, pred: (e: Event) => boolean): Promise<Event[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const hits = (await events(path)).filter(pred);
    if (hits.length > 0 || Date.now() > deadline) return hits;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The first event the blocking webhook received that matches, waiting for it up to 5 s (it is sent beside the log's write, not before it). */
async function receivedFor(pred: (e: Event) => boolean): Promise<Event | undefined> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const hit = received.find(pred);
    if (hit || Date.now() > deadline) return hit;
    await new Promise((r) => setTimeout(r, 25));
  }
}

const metric = (text: string, re: RegExp): number => Number(re.exec(text)?.[1] ?? 0);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "audit-modes-"));
  receiver = await startLocalHttps((req, res, body) => {
    if (req.url === BATCHED_PATH) {
      const items = (JSON.parse(body) as { items: Event[] }).items;
      if (items.some((e) => e.requestURI.startsWith(`/api/v1/namespaces/${RETRIED_NS}/`))) {
        const refused = refuseRetried > 0;
        if (refused) refuseRetried--;
        retriedSends.push({ at: Date.now(), events: items.map((e) => `${e.auditID}/${e.stage}`), refused });
        if (refused) {
          res.writeHead(503).end();
          return;
        }
      }
      batches.push({ at: Date.now(), size: items.length });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
      return;
    }
    if (webhookFails) {
      res.writeHead(500).end();
      return;
    }
    const list = JSON.parse(body) as { items: Event[] };
    received.push(...list.items);
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  const policy = join(dir, "policy.yaml");
  await writeFile(policy, [`apiVersion: audit.${getProfile("plat").groupDomain}/v1`, "kind: Policy", "rules:", "- level: RequestResponse", "  namespaces: [big]", "- level: Metadata", ""].join("\n"));
  await writeFile(join(dir, "webhook.kubeconfig"), auditKubeconfig(receiver.url, receiver.ca.certPem));
  logPath = join(dir, "audit.log");
  const options: AuditOptions = {
    policyFile: policy,
    log: { path: logPath, format: "json", maxAgeDays: 0, maxBackups: 0, maxSizeMB: 0, mode: "blocking", truncate: { maxEventSize: 3000, maxBatchSize: 30_000 } },
    webhook: { configFile: join(dir, "webhook.kubeconfig"), mode: "blocking-strict", bufferSize: 10, maxBatchSize: 1, maxBatchWaitMs: 10, throttleEnable: false, throttleQps: 10, throttleBurst: 10, initialBackoffMs: 5 },
  };
  const explode = async (): Promise<Response> => {
    throw new Error("boom: nil map");
  };
  api = await startTestApiserver({ auditOptions: options, extraRoutes: [["/explode", explode]] });
  expect((await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "big" } })).status).toBe(201);
  secondLog = join(dir, "second.log");
  second = await startSecondReplica(api, { auditOptions: { policyFile: policy, log: { path: secondLog, format: "json", maxAgeDays: 0, maxBackups: 0, maxSizeMB: 0, mode: "batch", batch: { bufferSize: 1, maxBatchSize: 1 } } } });
  const batchedPolicy = join(dir, "batched-policy.yaml");
  await writeFile(batchedPolicy, [`apiVersion: audit.${getProfile("plat").groupDomain}/v1`, "kind: Policy", "rules:", "- level: Metadata", `  namespaces: [batched, ${RETRIED_NS}]`, "- level: None", ""].join("\n"));
  const batchedConfig = join(dir, "batched.kubeconfig");
  await writeFile(batchedConfig, auditKubeconfig(new URL(BATCHED_PATH, receiver.url).href, receiver.ca.certPem));
  const batchedWebhook = { configFile: batchedConfig, mode: "batch" as const, bufferSize: 100, maxBatchSize: 4, maxBatchWaitMs: 400, throttleEnable: true, throttleQps: 4, throttleBurst: 1, initialBackoffMs: 100 };
  batched = await startSecondReplica(api, { auditOptions: { policyFile: batchedPolicy, webhook: batchedWebhook } });
}, 30_000);

afterAll(async () => {
  batched?.admin.close();
  await batched?.replica.close();
  second?.admin.close();
  await second?.replica.close();
  await api?.close();
  await receiver?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("audit modes", () => {
  it("blocking-strict webhook: the RequestReceived event is delivered before the answer; a failing webhook fails requests with 500", async () => {
    const ok = await api.admin.get("/api/v1/namespaces/default/configmaps", { "audit-id": "strict-ok" });
    expect(ok.status).toBe(200);
    // No polling: the request waited for its RequestReceived event.
    expect(received.filter((e) => e.auditID === "strict-ok").map((e) => e.stage)).toContain("RequestReceived");
    webhookFails = true;
    try {
      const refused = await api.admin.get("/api/v1/namespaces/default/configmaps", { "audit-id": "strict-refused" });
      expect(refused.status).toBe(500);
      expect(refused.json<{ reason: string; message: string }>()).toMatchObject({ reason: "InternalError", message: "Internal error occurred: failed to store audit event" });
    } finally {
      webhookFails = false;
    }
    expect((await api.admin.get("/api/v1/namespaces/default/configmaps")).status).toBe(200);
    const metrics = (await api.admin.get("/metrics")).text;
    expect(metric(metrics, /^apiserver_audit_requests_rejected_total (\d+)/m)).toBeGreaterThanOrEqual(1);
    expect(metric(metrics, /^apiserver_audit_error_total\{plugin="webhook"\} (\d+)/m)).toBeGreaterThanOrEqual(1);
  });

  it("truncates an event over the log's max event size and drops one that stays too large", async () => {
    const value = "v".repeat(4000);
    const created = await api.admin.post("/api/v1/namespaces/big/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "large" }, data: { value } }, { "audit-id": "trunc-1" });
    expect(created.status).toBe(201);
    const [done] = await eventsFor(logPath, (e) => e.auditID === "trunc-1" && e.stage === "ResponseComplete");
    expect(done.level).toBe("RequestResponse");
    expect(done.requestObject).toBeUndefined();
    expect(done.responseObject).toBeUndefined();
    expect(done.annotations?.[`audit.${api.profile.groupDomain}/truncated`]).toBe("true");
    // The webhook is not truncated: it got the objects.
    expect((await receivedFor((e) => e.auditID === "trunc-1" && e.stage === "ResponseComplete"))?.requestObject).toBeDefined();

    const longSelector = `a in (${Array.from({ length: 800 }, (_, i) => `v${i}`).join(",")})`;
    expect((await api.admin.get(`/api/v1/namespaces/default/configmaps?labelSelector=${encodeURIComponent(longSelector)}`, { "audit-id": "trunc-2" })).status).toBe(200);
    // The log is blocking: once a later request's event is written, trunc-2's would have been.
    await api.admin.get("/api/v1/namespaces/default/configmaps", { "audit-id": "trunc-3" });
    expect(await eventsFor(logPath, (e) => e.auditID === "trunc-3" && e.stage === "ResponseComplete")).toHaveLength(1);
    expect((await events(logPath)).some((e) => e.auditID === "trunc-2")).toBe(false);
    expect(metric((await api.admin.get("/metrics")).text, /^apiserver_audit_error_total\{plugin="truncate"\} (\d+)/m)).toBeGreaterThanOrEqual(2);
  });

  it("gives a handler that throws a Panic event and the client a 500 Status; the replica keeps serving", async () => {
    const res = await api.admin.get("/explode", { "audit-id": "panic-1" });
    expect(res.status).toBe(500);
    expect(res.json<{ kind: string; reason: string }>()).toMatchObject({ kind: "Status", reason: "InternalError" });
    const [panic] = await eventsFor(logPath, (e) => e.auditID === "panic-1" && e.stage === "Panic");
    expect(panic.responseStatus).toEqual({ metadata: {}, code: 500, status: "Failure", reason: "InternalError", message: "APIServer panic'd: boom: nil map" });
    expect((await events(logPath)).filter((e) => e.auditID === "panic-1").map((e) => e.stage)).toEqual(["RequestReceived", "Panic"]);
    expect((await api.admin.get("/api/v1/namespaces/default/configmaps")).status).toBe(200);
  });

  it("batch log mode: events are written after the request, and a full buffer drops and counts", async () => {
    const client = second?.admin as HttpsClient;
    await Promise.all(Array.from({ length: 20 }, (_, i) => client.get("/api/v1/namespaces/default/configmaps", { "audit-id": `batch-${i}` })));
    const written = await eventsFor(secondLog, (e) => e.auditID.startsWith("batch-"));
    expect(written.length).toBeGreaterThan(0);
    expect(written.length).toBeLessThan(40);
    expect(metric((await client.get("/metrics")).text, /^apiserver_audit_error_total\{plugin="buffered"\} (\d+)/m)).toBeGreaterThan(0);
  });

  it("batch webhook: a batch leaves at --audit-webhook-batch-max-size events or after -max-wait, and the throttle spaces batches", async () => {
    const client = batched?.admin as HttpsClient;
    const list = "/api/v1/namespaces/batched/configmaps";
    const arrived = async (events: number, from: number): Promise<Array<{ at: number; size: number }>> => {
      const deadline = Date.now() + 5000;
      while (batches.slice(from).reduce((n, b) => n + b.size, 0) < events && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return batches.slice(from);
    };
    // Three requests, six events: a full batch of four at once, the rest once 400 ms have passed.
    await Promise.all([0, 1, 2].map(() => client.get(list).then((r) => expect(r.status).toBe(200))));
    const first = await arrived(6, 0);
    expect(first.reduce((n, b) => n + b.size, 0)).toBe(6);
    expect(first[0].size).toBe(4);
    for (let i = 1; i < first.length; i++) {
      if (first[i].size < 4) expect(first[i].at - first[i - 1].at).toBeGreaterThanOrEqual(300);
      expect(first[i].at - first[i - 1].at).toBeLessThan(2000);
    }
    // Eight requests, sixteen events: full batches, at most four a second with no burst to spend.
    await new Promise((r) => setTimeout(r, 300));
    const from = batches.length;
    await Promise.all(Array.from({ length: 8 }, () => client.get(list).then((r) => expect(r.status).toBe(200))));
    const second = await arrived(16, from);
    expect(second.reduce((n, b) => n + b.size, 0)).toBe(16);
    expect(second.every((b) => b.size <= 4)).toBe(true);
    expect(second.length).toBeGreaterThanOrEqual(4);
    // Sends start at least 250 ms apart; arrival adds each send's own latency, hence the margin.
    expect(second[second.length - 1].at - second[0].at, JSON.stringify(second)).toBeGreaterThanOrEqual((second.length - 1) * 250 - 150);
  });

  it("batch webhook: a batch answered 503 is sent again after the initial backoff, then 1.5 times longer, and delivered once", async () => {
    const client = batched?.admin as HttpsClient;
    expect((await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: RETRIED_NS } })).status).toBe(201);
    const errorsBefore = metric(await (await client.get("/metrics")).text, /^apiserver_audit_error_total\{plugin="webhook"\} (\d+)/m);
    refuseRetried = 2;
    const res = await client.get(`/api/v1/namespaces/${RETRIED_NS}/configmaps`);
    expect(res.status).toBe(200);
    const complete = `${String(res.headers["audit-id"])}/ResponseComplete`;
    const deadline = Date.now() + 5000;
    while (!retriedSends.some((s) => !s.refused && s.events.includes(complete)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const sends = retriedSends.filter((s) => s.events.includes(complete));
    expect(sends.map((s) => s.refused), JSON.stringify(retriedSends)).toEqual([true, true, false]);
    // The same batch each time, after 100-120 ms and then 150-180 ms (jitter 0.2), plus the send itself.
    expect(new Set(sends.map((s) => s.events.join(","))).size).toBe(1);
    expect(sends[1].at - sends[0].at).toBeGreaterThanOrEqual(95);
    expect(sends[2].at - sends[1].at).toBeGreaterThanOrEqual(145);
    expect(sends[2].at - sends[0].at).toBeLessThan(2000);
    await new Promise((r) => setTimeout(r, 300));
    expect(retriedSends.filter((s) => s.events.includes(complete))).toHaveLength(3);
    expect(metric(await (await client.get("/metrics")).text, /^apiserver_audit_error_total\{plugin="webhook"\} (\d+)/m)).toBe(errorsBefore);
  });
});
