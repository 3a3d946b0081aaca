/**
 * API Priority and Fairness over HTTPS against one replica (kubernetes profile) with
 * 2 + 1 seats (--max-requests-inflight=2, --max-mutating-requests-inflight=1), configured
 * through the API: a `tenants` level (queues of 2, one queue per flow) whose FlowSchema
 * matches the group `tenants` by user, and an `others` level for the group `others`.
 * A flood of lists from mallory is queued and refused with 429 (Retry-After, the
 * platform's Status), while alice (same level, another flow and queue), bob (another
 * level) and system:masters (exempt) are all served; both answers carry the matched
 * FlowSchema and priority level UIDs; the apiserver_flowcontrol_* metrics move; open
 * watches hold no seats once set up (more watches than the level's seats, all served); a
 * write that 30 open watches are interested in is estimated with 3 final seats (the
 * mutating work estimate, seen in the metrics) and succeeds; a flow whose requests hold
 * the seats for long (webhooks that do not answer) does not win the next seat over
 * another flow's newcomer (the service of executing requests counts while they run); the
 * three debug dumps list the levels and are authorized like other /debug paths (RBAC:
 * a user without a rule for them gets 403); a list is estimated by the memory it loads
 * (SizeBasedListCostEstimate): 40 ConfigMaps of 6 KiB among ~40 small ones take 3 seats
 * (by count they would take one), one named by field selector one seat. Last, bob's requests are sent to a level
 * with limitResponse Reject: a flood past its seats gets 429 at once, counted as
 * rejected for `concurrency-limit`, never queued.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAuthenticationOptions } from "../../services/apiserver/authn/options.ts";
import { dealHand, flowHash } from "../../services/apiserver/flowcontrol/dispatch/shuffle-shard.ts";
import { flowControlHeaders } from "../../services/apiserver/server/filters/with-priority-and-fairness.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { HttpsClient, type HttpResponse } from "../support/https-client.ts";
import { startWebhookServer } from "../../services/apiserver/admission/testing/webhook-server.ts";

const NS = "apf";
const QUEUES = 16;
let api: TestApiserver;
let dir: string;
let admin: HttpsClient;
let asMallory: HttpsClient;
let asAlice: HttpsClient;
let asBob: HttpsClient;
let fc: string;
let rbac: string;
const uids: Record<string, string> = {};

/**
 * A Limited level of 1000 shares with queues of 2. `borrowingLimitPercent` 0 keeps it at
 * its nominal seats: a level that may borrow grows at the periodic re-division of seats
 * by demand, and a flood then fits into the larger limit on some runs.
 */
const level = (name: string, borrowingLimitPercent?: number) => ({
  apiVersion: `${fc}/v1`,
  kind: "PriorityLevelConfiguration",
  metadata: { name },
  spec: {
    type: "Limited",
    limited: { nominalConcurrencyShares: 1000, lendablePercent: 0, ...(borrowingLimitPercent === undefined ? {} : { borrowingLimitPercent }), limitResponse: { type: "Queue", queuing: { queues: QUEUES, handSize: 1, queueLengthLimit: 2 } } },
  },
});

const schema = (name: string, group: string) => ({
  apiVersion: `${fc}/v1`,
  kind: "FlowSchema",
  metadata: { name },
  spec: {
    priorityLevelConfiguration: { name },
    matchingPrecedence: 500,
    distinguisherMethod: { type: "ByUser" },
    rules: [
      {
        subjects: [{ kind: "Group", group: { name: group } }],
        resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"], clusterScope: true }],
        nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
      },
    ],
  },
});

/** A user name of the `tenants` flow schema whose queue differs from mallory's. */
function userInOtherQueue(than: string): string {
  const queueOf = (user: string) => dealHand(flowHash("tenants", user), QUEUES, 1)[0];
  for (let i = 0; ; i++) if (queueOf(`alice-${i}`) !== queueOf(than)) return `alice-${i}`;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function metricSum(text: string, name: string, labels: Record<string, string>): number {
  return text
    .split("\n")
    .filter((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "apf-dispatch-"));
  const authentication = defaultAuthenticationOptions();
  authentication.tokenAuthFile = join(dir, "tokens.csv");
  const users: Array<[string, string]> = [["admin", "system:masters"], ["mallory", "tenants"], [userInOtherQueue("mallory"), "tenants"], ["bob", "others"]];
  await writeFile(authentication.tokenAuthFile, users.map(([user, group], i) => `token-${i},${user},${i},${group}\n`).join(""));
  api = await startTestApiserver({ profileId: "kubernetes", security: { authentication, authorization: { modes: ["RBAC"] } }, maxRequestsInFlight: 2, maxMutatingRequestsInFlight: 1, requestTimeoutMs: 8000 });
  fc = api.profile.group("flowcontrol");
  rbac = api.profile.group("rbac");
  const client = (i: number) => new HttpsClient(api.replica.url, { ca: api.ca, token: `token-${i}` });
  [admin, asMallory, asAlice, asBob] = [0, 1, 2, 3].map(client);
  const setup = [
    await admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } }),
    await admin.post(`/api/v1/namespaces/${NS}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm" }, data: { k: "v" } }),
    await admin.post(`/apis/${rbac}/v1/clusterroles`, { apiVersion: `${rbac}/v1`, kind: "ClusterRole", metadata: { name: "apf-read" }, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list", "watch"] }] }),
    ...(await Promise.all(
      ["tenants", "others"].map((g) =>
        admin.post(`/apis/${rbac}/v1/clusterrolebindings`, {
          apiVersion: `${rbac}/v1`,
          kind: "ClusterRoleBinding",
          metadata: { name: `apf-read-${g}` },
          roleRef: { apiGroup: rbac, kind: "ClusterRole", name: "apf-read" },
          subjects: [{ apiGroup: rbac, kind: "Group", name: g }],
        }),
      ),
    )),
    await admin.post(`/apis/${fc}/v1/prioritylevelconfigurations`, level("tenants", 0)),
    await admin.post(`/apis/${fc}/v1/prioritylevelconfigurations`, level("others")),
    await admin.post(`/apis/${fc}/v1/flowschemas`, schema("tenants", "tenants")),
    await admin.post(`/apis/${fc}/v1/flowschemas`, schema("others", "others")),
  ];
  for (const r of setup) expect(r.status, r.text).toBe(201);
  for (const kind of ["flowschemas", "prioritylevelconfigurations"]) {
    for (const name of ["tenants", "others", "exempt"]) uids[`${kind}/${name}`] = (await admin.get(`/apis/${fc}/v1/${kind}/${name}`)).json<{ metadata: { uid: string } }>().metadata.uid;
  }
  // the replica classifies by the new schemas once its watch cache has them
  const headers = flowControlHeaders(api.profile);
  await until("the tenants schema in use", async () => {
    const r = await asMallory.get(`/api/v1/namespaces/${NS}/configmaps/cm`);
    return r.headers[headers.flowSchemaUid.toLowerCase()] === uids["flowschemas/tenants"] ? true : undefined;
  });
}, 60_000);

afterAll(async () => {
  for (const c of [admin, asMallory, asAlice, asBob]) c?.close();
  await api?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("API Priority and Fairness dispatch over HTTPS", () => {
  const flood: HttpResponse[] = [];
  const served: Record<string, HttpResponse[]> = { alice: [], bob: [], admin: [] };

  it("a flood of lists from one user is queued and refused, while another flow, another level and system:masters are served", async () => {
    let stop = false;
    const list = `/api/v1/namespaces/${NS}/configmaps`;
    const flooder = async (): Promise<void> => {
      while (!stop) flood.push(await asMallory.get(list));
    };
    const floods = Array.from({ length: 8 }, () => flooder());
    await until("a refusal of the flood", async () => (flood.some((r) => r.status === 429) ? true : undefined));
    for (let i = 0; i < 10; i++) {
      served.alice.push(await asAlice.get(`${list}/cm`));
      served.bob.push(await asBob.get(list));
    }
    served.admin.push(...(await Promise.all(Array.from({ length: 30 }, () => admin.get(list)))));
    stop = true;
    await Promise.all(floods);

    expect(served.alice.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(served.bob.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(served.admin.map((r) => r.status)).toEqual(Array(30).fill(200));
    const refused = flood.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(flood.filter((r) => r.status !== 429 && r.status !== 200)).toEqual([]);
    const refusal = refused[0];
    expect(Number(refusal.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(refusal.json()).toMatchObject({ kind: "Status", status: "Failure", code: 429, reason: "TooManyRequests", message: "Too many requests, please try again later." });
  });

  it("both answers carry the matched FlowSchema and priority level UIDs (profile-named headers)", () => {
    const h = flowControlHeaders(api.profile);
    expect(h).toEqual({ flowSchemaUid: "X-Kubernetes-PF-FlowSchema-UID", priorityLevelUid: "X-Kubernetes-PF-PriorityLevel-UID" });
    const fsOf = (r: HttpResponse) => r.headers[h.flowSchemaUid.toLowerCase()];
    const plOf = (r: HttpResponse) => r.headers[h.priorityLevelUid.toLowerCase()];
    const refusal = flood.find((r) => r.status === 429);
    const ok = flood.find((r) => r.status === 200);
    for (const r of [refusal, ok, served.alice[0]]) {
      expect(r && fsOf(r)).toBe(uids["flowschemas/tenants"]);
      expect(r && plOf(r)).toBe(uids["prioritylevelconfigurations/tenants"]);
    }
    expect(plOf(served.bob[0])).toBe(uids["prioritylevelconfigurations/others"]);
    expect(fsOf(served.admin[0])).toBe(uids["flowschemas/exempt"]);
    expect(plOf(served.admin[0])).toBe(uids["prioritylevelconfigurations/exempt"]);
  });

  it("the apiserver_flowcontrol_* metrics move", async () => {
    const text = (await admin.get("/metrics")).text;
    const tenants = { priority_level: "tenants", flow_schema: "tenants" };
    expect(metricSum(text, "apiserver_flowcontrol_rejected_requests_total", { ...tenants, reason: "queue-full" })).toBe(flood.filter((r) => r.status === 429).length);
    expect(metricSum(text, "apiserver_flowcontrol_dispatched_requests_total", tenants)).toBeGreaterThanOrEqual(flood.filter((r) => r.status === 200).length + 10);
    expect(metricSum(text, "apiserver_flowcontrol_dispatched_requests_total", { priority_level: "exempt" })).toBeGreaterThanOrEqual(30);
    expect(metricSum(text, "apiserver_flowcontrol_request_wait_duration_seconds_count", { ...tenants, execute: "true" })).toBeGreaterThan(0);
    expect(metricSum(text, "apiserver_flowcontrol_current_executing_requests", tenants)).toBe(0);
    expect(metricSum(text, "apiserver_flowcontrol_current_inqueue_requests", tenants)).toBe(0);
    // 3 seats shared by shares: 1000 of 2245 (the suggested levels' 245 and the two test levels)
    expect(metricSum(text, "apiserver_flowcontrol_nominal_limit_seats", { priority_level: "tenants" })).toBe(2);
    expect(metricSum(text, "apiserver_flowcontrol_upper_limit_seats", { priority_level: "tenants" })).toBe(2);
    expect(metricSum(text, "apiserver_flowcontrol_upper_limit_seats", { priority_level: "others" })).toBe(5);
    expect(text).toContain("# TYPE apiserver_flowcontrol_current_limit_seats gauge");
  });

  it("a watch holds its seats only while it is set up: open watches leave the level's seats free", async () => {
    const watches = Array.from({ length: 4 }, () => asBob.watch(`/api/v1/namespaces/${NS}/configmaps?watch=1`));
    try {
      await until("the watches answered", async () => (watches.every((w) => w.status === 200) ? true : undefined));
      // 4 open watches on a level of 2 seats: bob's next requests are served at once
      const started = Date.now();
      for (let i = 0; i < 3; i++) expect((await asBob.get(`/api/v1/namespaces/${NS}/configmaps/cm`)).status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1500);
      const text = (await admin.get("/metrics")).text;
      expect(metricSum(text, "apiserver_flowcontrol_current_executing_seats", { priority_level: "others" })).toBe(0);
      expect(metricSum(text, "apiserver_flowcontrol_request_execution_seconds_count", { priority_level: "others", type: "watch" })).toBeGreaterThanOrEqual(4);
    } finally {
      for (const w of watches) w.stop();
    }
  });

  it("a write with many watchers is estimated with final seats (watch_count_samples, work_estimated_seats) and succeeds", async () => {
    const exempt = { priority_level: "exempt", flow_schema: "exempt" };
    const samples = async () => {
      const text = (await admin.get("/metrics")).text;
      const bucket = (name: string, le: string) => metricSum(text, `apiserver_flowcontrol_${name}_bucket`, { ...exempt, le });
      // buckets are cumulative: estimates of 2 to 4 seats are le="4" minus le="1"
      return { watchesAtMost10: bucket("watch_count_samples", "10"), watchesAtMost100: bucket("watch_count_samples", "100"), twoToFourSeats: bucket("work_estimated_seats", "4") - bucket("work_estimated_seats", "1") };
    };
    const write = (i: number) => admin.post(`/api/v1/namespaces/${NS}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `watched-${i}` }, data: { k: "v" } });
    const before = await samples();
    const watches = Array.from({ length: 30 }, () => admin.watch(`/api/v1/namespaces/${NS}/configmaps?watch=1`));
    try {
      await until("the watches answered", async () => (watches.every((w) => w.status === 200) ? true : undefined));
      const writes = await Promise.all([0, 1, 2].map(write));
      expect(writes.map((r) => r.status)).toEqual([201, 201, 201]);
      const during = await samples();
      // 30 watches of the namespace: 3 final seats for each write, none estimated at one seat
      expect(during.watchesAtMost100 - before.watchesAtMost100).toBe(3);
      expect(during.watchesAtMost10 - before.watchesAtMost10).toBe(0);
      expect(during.twoToFourSeats - before.twoToFourSeats).toBe(3);
    } finally {
      for (const w of watches) w.stop();
    }
    // once the watches are over, a write is one seat again
    await until("the watches forgotten", async () => {
      const last = await samples();
      expect((await write(10 + Math.floor(Math.random() * 1e6))).status).toBe(201);
      const after = await samples();
      return after.twoToFourSeats === last.twoToFourSeats && after.watchesAtMost10 > last.watchesAtMost10 ? true : undefined;
    });
  });

  it("the debug dumps list levels, queues and requests, for authorized users only", async () => {
    const levels = await admin.get("/debug/api_priority_and_fairness/dump_priority_levels");
    expect(levels.status).toBe(200);
    const lines = levels.text.trimEnd().split("\n");
    expect(lines[0].split(/,\s*/)).toEqual(["PriorityLevelName", "ActiveQueues", "IsIdle", "IsQuiescing", "WaitingRequests", "ExecutingRequests", "DispatchedRequests", "RejectedRequests", "TimedoutRequests", "CancelledRequests"]);
    const names = lines.slice(1).map((l) => l.split(",")[0]);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(["catch-all", "exempt", "global-default", "others", "tenants"]));
    const tenantsRow = lines.find((l) => l.startsWith("tenants,"))?.split(/,\s*/) ?? [];
    expect(Number(tenantsRow[7])).toBe(flood.filter((r) => r.status === 429).length);
    const queues = await admin.get("/debug/api_priority_and_fairness/dump_queues");
    expect(queues.text.split("\n").filter((l) => l.startsWith("tenants,"))).toHaveLength(QUEUES);
    const requests = await admin.get("/debug/api_priority_and_fairness/dump_requests?includeRequestDetails=1");
    expect(requests.text.split("\n")[0]).toContain("FlowDistingsher,");
    expect(requests.text.split("\n")[0]).toContain("SubResource");
    expect((await asBob.get("/debug/api_priority_and_fairness/dump_priority_levels")).status).toBe(403);
  });

  it("a flow whose requests hold the seats for long does not win the next seat over a newcomer: alice goes before mallory's queued request", async () => {
    // mallory's B holds one of the level's 2 seats from -1 s (its webhook never answers),
    // A the other from 0 for 1 s (webhook timeout, failure ignored); mallory's C queues
    // at 0, alice's GET at 0.85 s. When A ends, mallory's queue has had 2 s of service
    // (A and B); counting A's only (B still runs), it looked served less than alice's
    // newly active queue from 0.5 s on, and C went first.
    const ar = api.profile.group("admissionregistration");
    const wh = await startWebhookServer();
    wh.on("/hold", () => ({ hang: true }));
    const hook = (name: string, hold: string, timeoutSeconds: number) => ({
      name: `${name}.apf.example.com`,
      clientConfig: { url: `${wh.url}/hold`, caBundle: wh.caBundle },
      rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
      objectSelector: { matchLabels: { hold } },
      failurePolicy: "Ignore",
      timeoutSeconds,
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
    });
    const setup = [
      await admin.post(`/apis/${ar}/v1/validatingwebhookconfigurations`, { apiVersion: `${ar}/v1`, kind: "ValidatingWebhookConfiguration", metadata: { name: "apf-hold" }, webhooks: [hook("long", "long", 10), hook("short", "short", 1)] }),
      await admin.post(`/apis/${rbac}/v1/clusterroles`, { apiVersion: `${rbac}/v1`, kind: "ClusterRole", metadata: { name: "apf-write" }, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["create"] }] }),
      await admin.post(`/apis/${rbac}/v1/clusterrolebindings`, { apiVersion: `${rbac}/v1`, kind: "ClusterRoleBinding", metadata: { name: "apf-write" }, roleRef: { apiGroup: rbac, kind: "ClusterRole", name: "apf-write" }, subjects: [{ apiGroup: rbac, kind: "User", name: "mallory" }] }),
    ];
    for (const r of setup) expect(r.status, r.text).toBe(201);
    const path = `/api/v1/namespaces/${NS}/configmaps`;
    const held = (name: string, hold: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { hold } } });
    try {
      let probe = 0;
      await until("the webhooks in use", async () => {
        const t = performance.now();
        await admin.post(`${path}?dryRun=All`, held(`probe-${probe++}`, "short"));
        return performance.now() - t > 900 ? true : undefined;
      });
      const done: string[] = [];
      const track = (who: string, answer: Promise<HttpResponse>) => answer.then((r) => (done.push(who), r));
      const b = track("B", asMallory.post(path, held("b", "long")));
      await new Promise((r) => setTimeout(r, 1000));
      const a = track("A", asMallory.post(path, held("a", "short")));
      const c = track("C", asMallory.get(`${path}/cm`));
      await new Promise((r) => setTimeout(r, 850));
      const alice = await track("alice", asAlice.get(`${path}/cm`));
      expect(alice.status).toBe(200);
      expect((await a).status).toBe(201);
      expect((await c).status).toBe(200);
      expect(done).toEqual(["A", "alice", "C"]);
      await wh.close();
      expect((await b).status).toBe(201);
      expect(done).toEqual(["A", "alice", "C", "B"]);
    } finally {
      await wh.close();
      await admin.delete(`/apis/${ar}/v1/validatingwebhookconfigurations/apf-hold`);
    }
  });

  it("a list is estimated by the size of its objects, and a list naming one object (fieldSelector metadata.name) at one seat", async () => {
    const path = `/api/v1/namespaces/${NS}/configmaps`;
    const large = "x".repeat(6 * 1024);
    const created = await Promise.all(Array.from({ length: 40 }, (_, j) => admin.post(path, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `sized-${j}` }, data: { v: large } })));
    expect(created.map((r) => r.status)).toEqual(Array(40).fill(201));
    const exempt = { priority_level: "exempt", flow_schema: "exempt" };
    // cumulative buckets; each sample's own GET /metrics is one seat, counted before its text is made
    const seats = async () => {
      const text = (await admin.get("/metrics")).text;
      const bucket = (le: string) => metricSum(text, "apiserver_flowcontrol_work_estimated_seats_bucket", { ...exempt, le });
      return { one: bucket("1"), twoToFour: bucket("4") - bucket("1") };
    };
    const estimateOf = async (request: string) => {
      const before = await seats();
      expect((await admin.get(request)).status).toBe(200);
      const after = await seats();
      return { one: after.one - before.one - 1, twoToFour: after.twoToFour - before.twoToFour };
    };
    // fewer than 100 ConfigMaps (one seat by count), but more than 200 kB stored: 3 seats
    expect(await estimateOf(path)).toEqual({ one: 0, twoToFour: 1 });
    expect(await estimateOf(`${path}?fieldSelector=${encodeURIComponent("metadata.name=cm")}`)).toEqual({ one: 1, twoToFour: 0 });
    expect(await estimateOf(`${path}?labelSelector=${encodeURIComponent("app=none")}`)).toEqual({ one: 0, twoToFour: 1 });
  });

  it("a Reject level refuses what exceeds its seats at once with 429 (reason concurrency-limit), queuing nothing", async () => {
    const queued = level("rejecting", 0);
    const rejecting = { ...queued, spec: { ...queued.spec, limited: { ...queued.spec.limited, limitResponse: { type: "Reject" } } } };
    // Ahead of the `others` schema (precedence 500): bob's requests now go to the Reject level.
    const others = schema("rejecting", "others");
    const bobFirst = { ...others, spec: { ...others.spec, matchingPrecedence: 100 } };
    for (const [path, body] of [[`/apis/${fc}/v1/prioritylevelconfigurations`, rejecting], [`/apis/${fc}/v1/flowschemas`, bobFirst]] as const) {
      const r = await admin.post(path, body);
      expect(r.status, r.text).toBe(201);
    }
    const schemaUid = (await admin.get(`/apis/${fc}/v1/flowschemas/rejecting`)).json<{ metadata: { uid: string } }>().metadata.uid;
    const headers = flowControlHeaders(api.profile);
    const list = `/api/v1/namespaces/${NS}/configmaps`;
    await until("bob classified as rejecting", async () => ((await asBob.get(list)).headers[headers.flowSchemaUid.toLowerCase()] === schemaUid ? true : undefined));
    const metric = async (reason: string) => metricSum((await admin.get("/metrics")).text, "apiserver_flowcontrol_rejected_requests_total", { priority_level: "rejecting", reason });
    const answers: HttpResponse[] = [];
    let stop = false;
    const flooders = Array.from({ length: 8 }, async () => {
      while (!stop) answers.push(await asBob.get(list));
    });
    await until("a refusal", async () => (answers.some((r) => r.status === 429) ? true : undefined));
    stop = true;
    await Promise.all(flooders);
    const refused = answers.filter((r) => r.status === 429);
    expect(answers.filter((r) => r.status !== 429 && r.status !== 200)).toEqual([]);
    expect(refused[0].json()).toMatchObject({ kind: "Status", code: 429, reason: "TooManyRequests" });
    expect(Number(refused[0].headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(await metric("concurrency-limit")).toBe(refused.length);
    for (const reason of ["queue-full", "time-out"]) expect(await metric(reason)).toBe(0);
  });
});
