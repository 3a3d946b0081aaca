/**
 * MutatingAdmissionPolicy (admissionregistration/v1beta1) over HTTPS: not served
 * while its feature gate is off (the default); with the gate on and its group
 * version enabled by `--runtime-config` (the platform asks for both), a policy and a
 * binding mutate matching objects with an ApplyConfiguration and a JSONPatch,
 * params and namespaceObject are available, an evaluation error follows
 * failurePolicy, and matchPolicy Equivalent mutates another version's request
 * in the rule's version.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeatureGates } from "../../services/apiserver/server/feature-gates.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

type Obj = Record<string, unknown>;
let on: TestApiserver;
let off: TestApiserver;
let v1beta1: string;

beforeAll(async () => {
  const gates = new FeatureGates();
  gates.set(["MutatingAdmissionPolicy=true"]);
  [on, off] = await Promise.all([startTestApiserver({ gates, runtimeConfig: [`${getProfile().group("admissionregistration")}/v1beta1`] }), startTestApiserver()]);
  v1beta1 = `${on.profile.group("admissionregistration")}/v1beta1`;
});

afterAll(async () => {
  await Promise.all([on?.close(), off?.close()]);
});

async function must(p: Promise<{ status: number; text: string }>): Promise<void> {
  const r = await p;
  expect(r.status, r.text).toBe(201);
}

/** A namespace `ns`, `before` (objects the policy must not see), then the policy and its binding. */
async function policy(name: string, ns: string, spec: Obj, before?: () => Promise<void>): Promise<void> {
  await must(on.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns, labels: { map: ns, team: `team-${ns}` } } }));
  await before?.();
  await must(
    on.admin.post(`/apis/${v1beta1}/mutatingadmissionpolicies`, {
      apiVersion: v1beta1,
      kind: "MutatingAdmissionPolicy",
      metadata: { name },
      spec: { matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }] }, ...spec },
    }),
  );
  await must(
    on.admin.post(`/apis/${v1beta1}/mutatingadmissionpolicybindings`, {
      apiVersion: v1beta1,
      kind: "MutatingAdmissionPolicyBinding",
      metadata: { name: `${name}-binding` },
      spec: { policyName: name, matchResources: { namespaceSelector: { matchLabels: { map: ns } } }, ...(spec.paramKind ? { paramRef: { name: "settings", namespace: ns, parameterNotFoundAction: "Deny" } } : {}) },
    }),
  );
}

const configMap = (name: string): Obj => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { a: "b" } });

/** Creates ConfigMaps (dry run) until `done` holds for the answer: the policy reached the replica's cache. */
async function whenEffective(ns: string, done: (r: { status: number; text: string }) => boolean): Promise<void> {
  const deadline = Date.now() + 2000;
  for (;;) {
    const r = await on.admin.post(`/api/v1/namespaces/${ns}/configmaps?dryRun=All`, configMap("probe"));
    if (done(r)) return;
    if (Date.now() > deadline) throw new Error(`policy not effective: ${r.status} ${r.text}`);
    await new Promise((res) => setTimeout(res, 25));
  }
}

describe("MutatingAdmissionPolicy", () => {
  it("is not served while the feature gate is off", async () => {
    const path = `/apis/${off.profile.group("admissionregistration")}/v1beta1/mutatingadmissionpolicies`;
    expect((await off.admin.get(path)).status).toBe(404);
    expect((await on.admin.get(`/apis/${v1beta1}/mutatingadmissionpolicies`)).status).toBe(200);
  });

  it("rejects at write time a mutation that does not compile or lacks its expression", async () => {
    const post = (mutations: Obj[]) =>
      on.admin.post(`/apis/${v1beta1}/mutatingadmissionpolicies`, {
        apiVersion: v1beta1,
        kind: "MutatingAdmissionPolicy",
        metadata: { name: "invalid.example.com" },
        spec: { matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }] }, mutations },
      });
    const broken = await post([{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{spec: " } }]);
    expect(broken.status).toBe(422);
    expect(broken.json<{ message: string }>().message).toContain('spec.mutations[0].applyConfiguration.expression: Invalid value: "Object{spec: ": compilation failed: ');
    const missing = await post([{ patchType: "JSONPatch" }]);
    expect(missing.status).toBe(422);
    expect(missing.json<{ message: string }>().message).toContain("spec.mutations[0].jsonPatch.expression: Required value: must be specified when patchType is JSONPatch");
  });

  it("mutates with an ApplyConfiguration and a JSONPatch, reading params and namespaceObject", async () => {
    await policy("label-and-annotate.example.com", "mut", {
      paramKind: { apiVersion: "v1", kind: "ConfigMap" },
      mutations: [
        {
          patchType: "ApplyConfiguration",
          applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'team': namespaceObject.metadata.labels.team, 'tier': params.data.tier}}}" },
        },
        {
          patchType: "JSONPatch",
          jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/metadata/annotations', value: {}}, JSONPatch{op: 'add', path: '/metadata/annotations/' + jsonpatch.escapeKey('example.com/by'), value: request.userInfo.username}]" },
        },
      ],
    }, () => must(on.admin.post("/api/v1/namespaces/mut/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings" }, data: { tier: "gold" } })));
    await whenEffective("mut", (r) => r.status === 201 && r.text.includes('"tier":"gold"'));
    const created = await on.admin.post("/api/v1/namespaces/mut/configmaps", configMap("mutated"));
    expect(created.status, created.text).toBe(201);
    const meta = created.json<{ metadata: { labels: Obj; annotations: Obj } }>().metadata;
    expect(meta.labels).toEqual({ team: "team-mut", tier: "gold" });
    expect(Object.keys(meta.annotations)).toEqual(["example.com/by"]);
    const stored = (await on.admin.get("/api/v1/namespaces/mut/configmaps/mutated")).json<{ metadata: { labels: Obj } }>();
    expect(stored.metadata.labels).toEqual({ team: "team-mut", tier: "gold" });
  });

  it("rejects under failurePolicy Fail when a mutation fails; under Ignore skips it and applies the next", async () => {
    const failing = { patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'x': object.data.missing}}}" } };
    await policy("broken.example.com", "broken", { failurePolicy: "Fail", mutations: [failing] });
    await whenEffective("broken", (r) => r.status === 422);
    const r = await on.admin.post("/api/v1/namespaces/broken/configmaps", configMap("c"));
    expect(r.status).toBe(422);
    expect(r.json<{ message: string }>().message).toMatch(
      /^configmaps "c" is forbidden: policy 'broken\.example\.com' with binding 'broken\.example\.com-binding' denied request: expression '.*' resulted in error: no such key: missing/,
    );
    await policy("ignored.example.com", "ignored", { failurePolicy: "Ignore", mutations: [failing, { patchType: "JSONPatch", jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/data/x', value: 'y'}]" } }] });
    await whenEffective("ignored", (r) => r.status === 201 && r.text.includes('"x":"y"'));
    const ok = await on.admin.post("/api/v1/namespaces/ignored/configmaps", configMap("c"));
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json<{ data: Obj }>().data).toEqual({ a: "b", x: "y" });
  });

  it("matchPolicy Equivalent mutates a request in another served version in the rule's version, converted back", async () => {
    const autoscaling = on.profile.group("autoscaling");
    const apps = on.profile.group("apps");
    const v2Rules = [{ apiGroups: [autoscaling], apiVersions: ["v2"], operations: ["CREATE"], resources: ["horizontalpodautoscalers"] }];
    // A v2-only path: in v1 the same field is spec.targetCPUUtilizationPercentage.
    const capAt60 = { patchType: "JSONPatch", jsonPatch: { expression: "object.spec.metrics.exists(m, m.resource.target.averageUtilization > 60) ? [JSONPatch{op: 'replace', path: '/spec/metrics/0/resource/target/averageUtilization', value: 60}] : []" } };
    await policy("equiv-cap.example.com", "mapequiv", { matchConstraints: { resourceRules: v2Rules }, mutations: [capAt60] });
    await policy("exact-label.example.com", "mapexact", {
      matchConstraints: { resourceRules: v2Rules, matchPolicy: "Exact" },
      mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'exact': 'matched'}}}" } }],
    });
    const hpa = (name: string, cpu: number): Obj => ({
      apiVersion: `${autoscaling}/v1`,
      kind: "HorizontalPodAutoscaler",
      metadata: { name },
      spec: { scaleTargetRef: { apiVersion: `${apps}/v1`, kind: "Deployment", name: "d" }, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: cpu },
    });
    const create = (ns: string, name: string, cpu: number, query = "") => on.admin.post(`/apis/${autoscaling}/v1/namespaces/${ns}/horizontalpodautoscalers${query}`, hpa(name, cpu));
    const createV2 = (name: string, query = "") =>
      on.admin.post(`/apis/${autoscaling}/v2/namespaces/mapexact/horizontalpodautoscalers${query}`, {
        apiVersion: `${autoscaling}/v2`,
        kind: "HorizontalPodAutoscaler",
        metadata: { name },
        spec: { scaleTargetRef: { apiVersion: `${apps}/v1`, kind: "Deployment", name: "d" }, minReplicas: 1, maxReplicas: 3 },
      });
    // Both policies reached the replica's cache.
    const deadline = Date.now() + 2000;
    for (;;) {
      const [equiv, exact] = await Promise.all([create("mapequiv", "probe", 90, "?dryRun=All"), createV2("probe", "?dryRun=All")]);
      if (equiv.text.includes('"targetCPUUtilizationPercentage":60') && exact.text.includes('"exact":"matched"')) break;
      if (Date.now() > deadline) throw new Error(`policies not effective: ${equiv.text} ${exact.text}`);
      await new Promise((res) => setTimeout(res, 25));
    }
    const capped = await create("mapequiv", "capped", 90);
    expect(capped.status, capped.text).toBe(201);
    expect(capped.json<{ apiVersion: string; spec: Obj }>().apiVersion).toBe(`${autoscaling}/v1`);
    expect(capped.json<{ spec: Obj }>().spec.targetCPUUtilizationPercentage).toBe(60);
    const calm = await create("mapequiv", "calm", 40);
    expect(calm.json<{ spec: Obj }>().spec.targetCPUUtilizationPercentage).toBe(40);
    // Exact: a v2 request is labelled, a v1 request does not match the v2 rule.
    const v2 = await createV2("in-v2");
    expect(v2.status, v2.text).toBe(201);
    expect(v2.json<{ metadata: { labels?: Obj } }>().metadata.labels).toEqual({ exact: "matched" });
    const v1 = await create("mapexact", "in-v1", 50);
    expect(v1.status, v1.text).toBe(201);
    expect(v1.json<{ metadata: { labels?: Obj } }>().metadata.labels).toBeUndefined();
  });
});
