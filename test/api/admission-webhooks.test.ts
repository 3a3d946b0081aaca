/**
 * Admission webhooks through HTTPS against a real replica, with real HTTPS
 * webhook servers on 127.0.0.1: denial and mutation, warnings, faults under both
 * failure policies, dry run, selectors, match conditions, service references
 * resolved through EndpointSlices, reinvocation, v1beta1 reviews, exemption of
 * the configuration kinds, validation of configurations, and the metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { jsonPatch, startWebhookServer, type WebhookServer } from "../../services/apiserver/admission/testing/webhook-server.ts";

let api: TestApiserver;
let wh: WebhookServer;
let ar: string;

beforeAll(async () => {
  api = await startTestApiserver();
  wh = await startWebhookServer(["hooks.webhooks.svc"]);
  ar = `/apis/${api.profile.group("admissionregistration")}/v1`;
  const ns = await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "webhooks", labels: { team: "a" } } });
  expect(ns.status).toBe(201);
  const exempt = await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "exempt", labels: { policy: "off" } } });
  expect(exempt.status).toBe(201);
});

afterAll(async () => {
  await wh?.close();
  await api?.close();
});

type Hook = Record<string, unknown>;

/** A webhook on configmaps CREATE labelled `hook=<id>`, served at /<id>. */
function hook(id: string, extra: Hook = {}): Hook {
  return {
    name: `${id}.example.com`,
    clientConfig: { url: `${wh.url}/${id}`, caBundle: wh.caBundle },
    rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
    objectSelector: { matchLabels: { hook: id } },
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    ...extra,
  };
}

async function register(kind: "Validating" | "Mutating", name: string, hooks: Hook[]): Promise<void> {
  const plural = kind === "Validating" ? "validatingwebhookconfigurations" : "mutatingwebhookconfigurations";
  const r = await api.admin.post(`${ar}/${plural}`, { apiVersion: `${api.profile.group("admissionregistration")}/v1`, kind: `${kind}WebhookConfiguration`, metadata: { name }, webhooks: hooks });
  expect(r.status, r.text).toBe(201);
}

async function unregister(kind: "Validating" | "Mutating", name: string): Promise<void> {
  const plural = kind === "Validating" ? "validatingwebhookconfigurations" : "mutatingwebhookconfigurations";
  expect((await api.admin.delete(`${ar}/${plural}/${name}`)).status).toBe(200);
}

function configMap(name: string, id: string, namespace = "webhooks", labels: Record<string, string> = {}) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace, labels: { hook: id, ...labels } }, data: { a: "b" } };
}

function create(name: string, id: string, query = "", namespace = "webhooks", labels: Record<string, string> = {}) {
  return api.admin.post(`/api/v1/namespaces/${namespace}/configmaps${query}`, configMap(name, id, namespace, labels));
}

/** Waits until the replica's informer has the configuration: a dry-run probe reaches the webhook. */
async function effective(id: string, probe: () => Promise<unknown> = () => create(`probe-${id}`, id, "?dryRun=All")): Promise<void> {
  const deadline = Date.now() + 1000;
  for (;;) {
    const before = wh.reviews.filter((r) => r.path === `/${id}`).length;
    await probe();
    if (wh.reviews.filter((r) => r.path === `/${id}`).length > before) return;
    if (Date.now() > deadline) throw new Error(`webhook ${id} not effective within a second`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function stored(name: string, namespace = "webhooks"): Promise<number> {
  return (await api.admin.get(`/api/v1/namespaces/${namespace}/configmaps/${name}`)).status;
}

describe("validating webhooks", () => {
  it("deny with the webhook's status, message and code; allowed objects are stored; warnings reach the client", async () => {
    wh.on("/deny", (rv) =>
      rv.request.dryRun || String(rv.request.object?.metadata && (rv.request.object.metadata as { name: string }).name).startsWith("ok")
        ? { response: { allowed: true, warnings: ["careful: a warning"] } }
        : { response: { allowed: false, status: { code: 403, reason: "Forbidden", message: "configmaps need an owner" } } },
    );
    await register("Validating", "deny", [hook("deny")]);
    await effective("deny");
    const denied = await create("bad-1", "deny");
    expect(denied.status).toBe(403);
    expect(denied.json()).toMatchObject({ kind: "Status", status: "Failure", reason: "Forbidden", code: 403, message: 'admission webhook "deny.example.com" denied the request: configmaps need an owner' });
    expect(await stored("bad-1")).toBe(404);
    const connectionsBefore = wh.connections();
    for (let i = 0; i < 5; i++) expect((await create(`ok-ka-${i}`, "deny")).status).toBe(201);
    // Calls reuse kept-alive connections.
    expect(wh.connections() - connectionsBefore).toBeLessThanOrEqual(1);
    const ok = await create("ok-1", "deny", "?fieldManager=tester");
    expect(ok.status).toBe(201);
    expect(String(ok.headers.warning)).toContain("careful: a warning");
    const review = wh.reviews.filter((r) => r.path === "/deny").at(-1)?.review;
    expect(review).toMatchObject({ kind: "AdmissionReview", request: { operation: "CREATE", namespace: "webhooks", resource: { group: "", version: "v1", resource: "configmaps" }, kind: { kind: "ConfigMap" }, dryRun: false } });
    expect(review?.request.userInfo.username).toBeTruthy();
    expect(review?.request.options).toMatchObject({ kind: "CreateOptions", fieldManager: "tester" });
    await unregister("Validating", "deny");
  });

  it("a denial without a status is 400 'without explanation', with the webhook's warnings", async () => {
    wh.on("/bare", (rv) => (rv.request.dryRun ? { response: { allowed: true } } : { response: { allowed: false, warnings: ["denied with a warning"] } }));
    await register("Validating", "bare", [hook("bare")]);
    await effective("bare");
    const r = await create("bare-1", "bare");
    expect(r.status).toBe(400);
    expect(r.json<{ message: string }>().message).toBe('admission webhook "bare.example.com" denied the request without explanation');
    expect(String(r.headers.warning)).toContain("denied with a warning");
    await unregister("Validating", "bare");
  });

  it("faults follow failurePolicy: Fail rejects with 500 naming the webhook and stores nothing, Ignore admits", async () => {
    const faults: Record<string, () => import("../../services/apiserver/admission/testing/webhook-server.ts").Answer> = {
      "/f-500": () => ({ raw: "oops", status: 500 }),
      "/f-garbage": () => ({ raw: "not json at all" }),
      "/f-uid": () => ({ raw: JSON.stringify({ apiVersion: `admission.${api.profile.groupDomain}/v1`, kind: "AdmissionReview", response: { uid: "someone-else", allowed: true } }) }),
      "/f-timeout": () => ({ hang: true }),
    };
    for (const [path, answer] of Object.entries(faults)) wh.on(path, answer);
    const ids = Object.keys(faults).map((p) => p.slice(1));
    const hooks = (policy: string) =>
      [...ids, "f-unreachable"].map((id) =>
        hook(id, {
          name: `${id}-${policy.toLowerCase()}.example.com`,
          failurePolicy: policy,
          timeoutSeconds: 1,
          objectSelector: { matchLabels: { fault: id } },
          clientConfig: { url: id === "f-unreachable" ? "https://127.0.0.1:1/never" : `${wh.url}/${id}`, caBundle: wh.caBundle },
        }),
      );
    await register("Validating", "faults-fail", hooks("Fail"));
    await new Promise((r) => setTimeout(r, 300));
    for (const id of [...ids, "f-unreachable"]) {
      const r = await create(`x-${id}`, "none", "", "webhooks", { fault: id });
      expect(r.status, `${id}: ${r.text}`).toBe(500);
      const body = r.json<{ reason: string; message: string }>();
      expect(body.reason).toBe("InternalError");
      expect(body.message).toContain(`failed calling webhook "${id}-fail.example.com"`);
      expect(await stored(`x-${id}`)).toBe(404);
    }
    expect((await create("x-f-uid", "none", "", "webhooks", { fault: "f-uid" })).json<{ message: string }>().message).toContain('expected response.uid=');
    expect((await create("x-f-timeout", "none", "", "webhooks", { fault: "f-timeout" })).json<{ message: string }>().message).toContain("context deadline exceeded");
    await unregister("Validating", "faults-fail");
    await register("Validating", "faults-ignore", hooks("Ignore"));
    await new Promise((r) => setTimeout(r, 300));
    for (const id of [...ids, "f-unreachable"]) {
      const r = await create(`y-${id}`, "none", "", "webhooks", { fault: id });
      expect(r.status, `${id}: ${r.text}`).toBe(201);
    }
    await unregister("Validating", "faults-ignore");
    // The replica is still healthy.
    expect((await api.admin.get("/readyz")).status).toBe(200);
  });

  it("the webhook's certificate is verified against caBundle: another CA's bundle fails the call", async () => {
    const other = await startWebhookServer();
    try {
      wh.on("/tls", () => ({ response: { allowed: true } }));
      await register("Validating", "tls", [hook("tls", { clientConfig: { url: `${wh.url}/tls`, caBundle: other.caBundle } })]);
      await new Promise((r) => setTimeout(r, 300));
      const before = wh.reviews.filter((x) => x.path === "/tls").length;
      const r = await create("tls-1", "tls");
      expect(r.status).toBe(500);
      expect(r.json<{ message: string }>().message).toMatch(/failed calling webhook "tls.example.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/tls\?timeout=10s": .*certificate/);
      expect(wh.reviews.filter((x) => x.path === "/tls").length).toBe(before);
      await unregister("Validating", "tls");
    } finally {
      await other.close();
    }
  });

  it("namespaceSelector and objectSelector skip requests they do not select", async () => {
    wh.on("/sel", () => ({ response: { allowed: false, status: { message: "selected" } } }));
    await register("Validating", "sel", [hook("sel", { namespaceSelector: { matchExpressions: [{ key: "policy", operator: "NotIn", values: ["off"] }] } })]);
    await new Promise((r) => setTimeout(r, 300));
    expect((await create("sel-1", "sel")).status).toBe(400);
    expect((await create("sel-2", "sel", "", "exempt")).status).toBe(201);
    expect((await create("sel-3", "other")).status).toBe(201);
    await unregister("Validating", "sel");
  });

  it("matchConditions: false skips, an error follows failurePolicy; at most 64", async () => {
    wh.on("/cond", () => ({ response: { allowed: false, status: { message: "matched" } } }));
    await register("Validating", "cond", [
      hook("cond", { matchConditions: [{ name: "not-skip", expression: "!has(object.metadata.annotations) || !('skip' in object.metadata.annotations)" }] }),
      hook("cond-err", { name: "cond-err.example.com", clientConfig: { url: `${wh.url}/cond`, caBundle: wh.caBundle }, objectSelector: { matchLabels: { hook: "cond-err" } }, matchConditions: [{ name: "boom", expression: "object.data.missing == 'x'" }] }),
    ]);
    await new Promise((r) => setTimeout(r, 300));
    expect((await create("c-1", "cond")).status).toBe(400);
    const skipped = await api.admin.post("/api/v1/namespaces/webhooks/configmaps", { ...configMap("c-2", "cond"), metadata: { name: "c-2", labels: { hook: "cond" }, annotations: { skip: "yes" } } });
    expect(skipped.status).toBe(201);
    const err = await create("c-3", "cond-err");
    expect(err.status).toBe(500);
    expect(err.json<{ message: string }>().message).toContain('failed calling webhook "cond-err.example.com"');
    await unregister("Validating", "cond");
    const tooMany = await api.admin.post(`${ar}/validatingwebhookconfigurations`, {
      apiVersion: `${api.profile.group("admissionregistration")}/v1`,
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "too-many" },
      webhooks: [hook("tm", { matchConditions: Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: "true" })) })],
    });
    expect(tooMany.status).toBe(422);
  });

  it("dry run: webhooks without side effects (None, NoneOnDryRun) are called with dryRun and nothing is stored; v1 refuses other sideEffects", async () => {
    await register("Validating", "dry", [hook("dry"), hook("dry-nodr", { sideEffects: "NoneOnDryRun", objectSelector: { matchLabels: { hook: "dry" } }, clientConfig: { url: `${wh.url}/dry-nodr`, caBundle: wh.caBundle } })]);
    await effective("dry");
    const before = wh.reviews.length;
    const r = await create("d-1", "dry", "?dryRun=All");
    expect(r.status).toBe(201);
    const seen = wh.reviews.slice(before);
    expect(seen.some((x) => x.path === "/dry" && x.review.request.dryRun && x.review.request.options?.dryRun)).toBe(true);
    expect(seen.some((x) => x.path === "/dry-nodr" && x.review.request.dryRun)).toBe(true);
    expect(await stored("d-1")).toBe(404);
    await unregister("Validating", "dry");
    const some = await api.admin.post(`${ar}/validatingwebhookconfigurations`, {
      apiVersion: `${api.profile.group("admissionregistration")}/v1`,
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "some" },
      webhooks: [hook("some", { sideEffects: "Some" })],
    });
    expect(some.status).toBe(422);
  });

  it("DELETE: the webhook gets the stored object as oldObject and can keep it", async () => {
    wh.on("/nodelete", (rv) => ({ response: { allowed: rv.request.operation !== "DELETE", status: { code: 403, message: `keep ${String((rv.request.oldObject?.metadata as { name?: string } | undefined)?.name)}` } } }));
    await register("Validating", "nodelete", [hook("nodelete", { rules: [{ operations: ["DELETE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }] })]);
    expect((await create("keep-1", "nodelete")).status).toBe(201);
    await new Promise((r) => setTimeout(r, 300));
    const r = await api.admin.delete("/api/v1/namespaces/webhooks/configmaps/keep-1");
    expect(r.status).toBe(403);
    expect(r.json<{ message: string }>().message).toBe('admission webhook "nodelete.example.com" denied the request: keep keep-1');
    const review = wh.reviews.filter((x) => x.path === "/nodelete").at(-1)?.review;
    expect(review?.request).toMatchObject({ operation: "DELETE", name: "keep-1", object: null, options: { kind: "DeleteOptions" } });
    expect(await stored("keep-1")).toBe(200);
    await unregister("Validating", "nodelete");
  });

  it("webhook names must be unique in a configuration", async () => {
    const r = await api.admin.post(`${ar}/validatingwebhookconfigurations`, {
      apiVersion: `${api.profile.group("admissionregistration")}/v1`,
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "dup" },
      webhooks: [hook("dup"), hook("dup")],
    });
    expect(r.status).toBe(422);
    expect(r.json<{ message: string }>().message).toContain("Duplicate value");
  });

  it("a */status rule sees status updates; webhooks are never called for webhook configurations", async () => {
    wh.on("/everything", () => ({ response: { allowed: false, status: { message: "no" } } }));
    await register("Validating", "everything", [
      hook("everything", { rules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"] }], objectSelector: { matchLabels: { hook: "everything" } } }),
    ]);
    await new Promise((r) => setTimeout(r, 300));
    // Another configuration is still writable, and the blocking one can be removed.
    await register("Validating", "still-writable", [hook("still")]);
    await unregister("Validating", "still-writable");
    await unregister("Validating", "everything");
    // A status-only rule.
    wh.on("/status", (rv) => ({ response: { allowed: rv.request.subResource !== "status", status: { message: `subresource ${String(rv.request.subResource)}` } } }));
    await register("Validating", "status", [
      hook("status", { rules: [{ operations: ["UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["namespaces/status"] }], objectSelector: {} }),
    ]);
    await new Promise((r) => setTimeout(r, 300));
    const ns = (await api.admin.get("/api/v1/namespaces/exempt")).json<Record<string, unknown>>();
    const st = await api.admin.put("/api/v1/namespaces/exempt/status", ns);
    expect(st.status).toBe(400);
    expect(st.json<{ message: string }>().message).toBe('admission webhook "status.example.com" denied the request: subresource status');
    expect((await api.admin.put("/api/v1/namespaces/exempt", ns)).status).toBe(200);
    await unregister("Validating", "status");
  });
});

describe("mutating webhooks", () => {
  it("a JSONPatch is applied and stored; reinvocation IfNeeded sees later changes; v1beta1 reviews", async () => {
    wh.on("/label", (rv) => (rv.request.object && (rv.request.object.metadata as { labels?: Record<string, string> }).labels?.mutated ? { response: { allowed: true } } : { response: { allowed: true, ...jsonPatch([{ op: "add", path: "/metadata/labels/mutated", value: "yes" }]) } }));
    let reinvoked = 0;
    wh.on("/first", (rv) => {
      const labels = (rv.request.object?.metadata as { labels?: Record<string, string> }).labels ?? {};
      if (labels.first) {
        if (labels.mutated) reinvoked++;
        return { response: { allowed: true } };
      }
      return { response: { allowed: true, ...jsonPatch([{ op: "add", path: "/metadata/labels/first", value: "1" }]) } };
    });
    await register("Mutating", "a-first", [hook("first", { objectSelector: { matchLabels: { hook: "mut" } }, reinvocationPolicy: "IfNeeded" })]);
    await register("Mutating", "b-label", [hook("label", { objectSelector: { matchLabels: { hook: "mut" } }, admissionReviewVersions: ["v1beta1"] })]);
    await effective("label", () => create("probe-mut", "mut", "?dryRun=All"));
    const r = await create("m-1", "mut");
    expect(r.status, r.text).toBe(201);
    const got = (await api.admin.get("/api/v1/namespaces/webhooks/configmaps/m-1")).json<{ metadata: { labels: Record<string, string> } }>();
    expect(got.metadata.labels).toMatchObject({ first: "1", mutated: "yes" });
    expect(reinvoked).toBeGreaterThan(0);
    expect(wh.reviews.some((x) => x.path === "/label" && x.review.apiVersion.endsWith("/v1beta1"))).toBe(true);
    await unregister("Mutating", "a-first");
    await unregister("Mutating", "b-label");
  });

  it("a patch that does not apply follows failurePolicy; an invalid result is rejected by validation", async () => {
    wh.on("/badpatch", () => ({ response: { allowed: true, ...jsonPatch([{ op: "replace", path: "/nope/deeper", value: 1 }]) } }));
    wh.on("/invalid", () => ({ response: { allowed: true, ...jsonPatch([{ op: "add", path: "/metadata/labels/bad label", value: "x" }]) } }));
    await register("Mutating", "bad", [hook("badpatch"), hook("invalid", { objectSelector: { matchLabels: { hook: "invalid" } } })]);
    await new Promise((r) => setTimeout(r, 300));
    const r = await create("bp-1", "badpatch");
    expect(r.status).toBe(500);
    expect(r.json<{ message: string }>().message).toContain('failed calling webhook "badpatch.example.com"');
    expect(await stored("bp-1")).toBe(404);
    const inv = await create("inv-1", "invalid");
    expect(inv.status).toBe(422);
    expect(await stored("inv-1")).toBe(404);
    await unregister("Mutating", "bad");
  });

  it("a patch may not move the object (name, namespace, kind: 400, nothing stored) nor forge system metadata", async () => {
    wh.on("/rename", () => ({ response: { allowed: true, ...jsonPatch([{ op: "replace", path: "/metadata/name", value: "elsewhere" }]) } }));
    await register("Mutating", "rename", [hook("rename")]);
    await new Promise((r) => setTimeout(r, 300));
    const r = await create("rn-1", "rename");
    expect(r.status).toBe(400);
    expect(r.json<{ message: string }>().message).toBe('mutating admission may not change metadata.name (from "rn-1" to "elsewhere")');
    expect(await stored("rn-1")).toBe(404);
    expect(await stored("elsewhere")).toBe(404);
    await unregister("Mutating", "rename");
    // System metadata stays the server's whatever a patch says.
    wh.on("/sysmeta", () => ({ response: { allowed: true, ...jsonPatch([{ op: "add", path: "/metadata/uid", value: "forged" }, { op: "add", path: "/metadata/creationTimestamp", value: "2001-01-01T00:00:00Z" }]) } }));
    await register("Mutating", "sysmeta", [hook("sysmeta")]);
    await new Promise((r) => setTimeout(r, 300));
    const sm = await create("sm-1", "sysmeta");
    expect(sm.status, sm.text).toBe(201);
    const smeta = sm.json<{ metadata: { uid: string; creationTimestamp: string } }>().metadata;
    expect(smeta.uid).not.toBe("forged");
    expect(smeta.creationTimestamp).not.toBe("2001-01-01T00:00:00Z");
    await unregister("Mutating", "sysmeta");
  });

  it("clientConfig.service resolves through the Service's EndpointSlices and path", async () => {
    const disc = api.profile.group("discovery");
    expect((await api.admin.post("/api/v1/namespaces/webhooks/services", { apiVersion: "v1", kind: "Service", metadata: { name: "hooks" }, spec: { ports: [{ name: "https", port: 8443, targetPort: 9443 }] } })).status).toBe(201);
    const slice = await api.admin.post(`/apis/${disc}/v1/namespaces/webhooks/endpointslices`, {
      apiVersion: `${disc}/v1`,
      kind: "EndpointSlice",
      metadata: { name: "hooks-1", labels: { [api.profile.labels.serviceName]: "hooks" } },
      addressType: "IPv4",
      endpoints: [{ addresses: ["127.0.0.1"], conditions: { ready: true } }],
      ports: [{ name: "https", port: wh.port, protocol: "TCP" }],
    });
    expect(slice.status, slice.text).toBe(201);
    wh.on("/via-service", () => ({ response: { allowed: true, ...jsonPatch([{ op: "add", path: "/data/via", value: "service" }]) } }));
    await register("Mutating", "svc", [hook("svc", { clientConfig: { service: { namespace: "webhooks", name: "hooks", port: 8443, path: "/via-service" }, caBundle: wh.caBundle } })]);
    await effective("via-service", () => create("probe-svc", "svc", "?dryRun=All"));
    expect((await create("s-1", "svc")).status).toBe(201);
    expect((await api.admin.get("/api/v1/namespaces/webhooks/configmaps/s-1")).json<{ data: Record<string, string> }>().data.via).toBe("service");
    await unregister("Mutating", "svc");
  });
});

describe("matchPolicy", () => {
  it("Equivalent calls a webhook registered for another version with the object in that version; Exact does not", async () => {
    const as = api.profile.group("autoscaling");
    const rules = [{ operations: ["CREATE"], apiGroups: [as], apiVersions: ["v2"], resources: ["horizontalpodautoscalers"] }];
    await register("Validating", "equiv", [
      hook("equiv", { rules, objectSelector: { matchLabels: { hook: "equiv" } } }),
      hook("exact", { rules, matchPolicy: "Exact", objectSelector: { matchLabels: { hook: "equiv" } } }),
    ]);
    await new Promise((r) => setTimeout(r, 300));
    const before = wh.reviews.length;
    const r = await api.admin.post(`/apis/${as}/v1/namespaces/webhooks/horizontalpodautoscalers`, {
      apiVersion: `${as}/v1`,
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "h1", labels: { hook: "equiv" } },
      spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 60 },
    });
    expect(r.status, r.text).toBe(201);
    const seen = wh.reviews.slice(before);
    expect(seen.map((x) => x.path)).toEqual(["/equiv"]);
    const req = seen[0].review.request as Record<string, unknown> & { object: Record<string, unknown> };
    expect(req.kind).toEqual({ group: as, version: "v2", kind: "HorizontalPodAutoscaler" });
    expect(req.requestKind).toEqual({ group: as, version: "v1", kind: "HorizontalPodAutoscaler" });
    expect(req.object.apiVersion).toBe(`${as}/v2`);
    expect(JSON.stringify((req.object.spec as Record<string, unknown>).metrics)).toContain("60");
    await unregister("Validating", "equiv");
  });
});

describe("webhook configurations", () => {
  it("are defaulted and validated like the platform's v1", async () => {
    await register("Validating", "defaults", [{ name: "d.example.com", clientConfig: { url: `${wh.url}/d`, caBundle: wh.caBundle }, sideEffects: "None", admissionReviewVersions: ["v1"] }]);
    const got = (await api.admin.get(`${ar}/validatingwebhookconfigurations/defaults`)).json<{ webhooks: Hook[] }>();
    expect(got.webhooks[0]).toMatchObject({ failurePolicy: "Fail", matchPolicy: "Equivalent", timeoutSeconds: 10, namespaceSelector: {}, objectSelector: {} });
    await unregister("Validating", "defaults");
    const bad = (w: Hook) =>
      api.admin.post(`${ar}/validatingwebhookconfigurations`, { apiVersion: `${api.profile.group("admissionregistration")}/v1`, kind: "ValidatingWebhookConfiguration", metadata: { name: "bad" }, webhooks: [w] });
    expect((await bad(hook("t", { timeoutSeconds: 31 }))).status).toBe(422);
    expect((await bad({ ...hook("t"), sideEffects: undefined })).status).toBe(422);
    expect((await bad({ ...hook("t"), admissionReviewVersions: undefined })).status).toBe(422);
    expect((await bad(hook("t", { clientConfig: { url: `${wh.url}/x?query=1` } }))).status).toBe(422);
    expect((await bad(hook("t", { clientConfig: { url: `http://127.0.0.1/x` } }))).status).toBe(422);
    const cel = await bad(hook("t", { matchConditions: [{ name: "broken", expression: "object.metadata.name ==" }] }));
    expect(cel.status).toBe(422);
    expect(cel.json<{ message: string }>().message).toContain("webhooks[0].matchConditions[0].expression: Invalid value");
    expect(cel.json<{ message: string }>().message).toContain("compilation failed");
    const notBool = await bad(hook("t", { matchConditions: [{ name: "str", expression: "'a string'" }] }));
    expect(notBool.status).toBe(422);
    expect(notBool.json<{ message: string }>().message).toContain("must evaluate to bool");
  });
});

describe("admission metrics", () => {
  it("are served with the platform's names and labels", async () => {
    const text = (await api.admin.get("/metrics")).text;
    expect(text).toMatch(/apiserver_admission_controller_admission_duration_seconds_count\{name="NamespaceLifecycle",type="admit",operation="CREATE",rejected="false"\}/);
    expect(text).toMatch(/apiserver_admission_step_admission_duration_seconds_count\{type="validate",operation="CREATE",rejected="(true|false)"\}/);
    expect(text).toMatch(/apiserver_admission_webhook_admission_duration_seconds_count\{name="deny.example.com",type="validating",operation="CREATE",rejected="true"\}/);
    expect(text).toMatch(/apiserver_admission_webhook_rejection_count\{name="deny.example.com",type="validating",operation="CREATE",error_type="no_error",rejection_code="403"\}/);
    expect(text).toMatch(/apiserver_admission_webhook_rejection_count\{name="f-500-fail.example.com",type="validating",operation="CREATE",error_type="calling_webhook_error",rejection_code="0"\}/);
    expect(text).toMatch(/apiserver_admission_webhook_request_total\{name="label.example.com",type="admit",operation="CREATE",code="200",rejected="false"\}/);
  });
});
