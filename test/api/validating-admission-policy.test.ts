/**
 * ValidatingAdmissionPolicy through HTTPS against a real replica: a policy and
 * a binding limiting Deployment replicas (Deny with the platform's status and
 * message, Warn with a `Warning` header), reasons and message expressions,
 * variables and namespaceObject, parameters from a ConfigMap with both
 * parameterNotFoundActions, failurePolicy on evaluation errors, and write-time
 * compilation of the expressions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
let ar: string;
let apps: string;

beforeAll(async () => {
  api = await startTestApiserver();
  ar = `/apis/${api.profile.group("admissionregistration")}/v1`;
  apps = api.profile.group("apps");
});

afterAll(async () => {
  await api?.close();
});

type Obj = Record<string, unknown>;

/** A namespace labelled `vap=<id>` that only the bindings of test `id` select. */
async function namespace(id: string, labels: Record<string, string> = {}): Promise<void> {
  const r = await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: id, labels: { vap: id, ...labels } } });
  expect(r.status, r.text).toBe(201);
}

function deployment(name: string, replicas: number, labels: Record<string, string> = {}): Obj {
  return {
    apiVersion: `${apps}/v1`,
    kind: "Deployment",
    metadata: { name, labels },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx" }] } },
    },
  };
}

function createDeployment(ns: string, name: string, replicas: number, query = "") {
  return api.admin.post(`/apis/${apps}/v1/namespaces/${ns}/deployments${query}`, deployment(name, replicas));
}

async function policy(name: string, spec: Obj): Promise<void> {
  const body = {
    apiVersion: `${api.profile.group("admissionregistration")}/v1`,
    kind: "ValidatingAdmissionPolicy",
    metadata: { name },
    spec: {
      failurePolicy: "Fail",
      matchConstraints: { resourceRules: [{ apiGroups: [apps], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["deployments"] }] },
      ...spec,
    },
  };
  const r = await api.admin.post(`${ar}/validatingadmissionpolicies`, body);
  expect(r.status, r.text).toBe(201);
}

async function binding(name: string, policyName: string, ns: string, actions: string[], extra: Obj = {}): Promise<void> {
  const body = {
    apiVersion: `${api.profile.group("admissionregistration")}/v1`,
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name },
    spec: { policyName, validationActions: actions, matchResources: { namespaceSelector: { matchLabels: { vap: ns } } }, ...extra },
  };
  const r = await api.admin.post(`${ar}/validatingadmissionpolicybindings`, body);
  expect(r.status, r.text).toBe(201);
}

/** Waits until a dry-run create of `replicas` in `ns` gets `status` (the policy reached the replica's cache). */
async function effective(ns: string, replicas: number, status: number): Promise<void> {
  const deadline = Date.now() + 1000;
  for (;;) {
    const r = await createDeployment(ns, "probe", replicas, "?dryRun=All");
    if (r.status === status) return;
    if (Date.now() > deadline) throw new Error(`policy not effective within a second: ${r.status} ${r.text}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

describe("ValidatingAdmissionPolicy", () => {
  it("denies a Deployment over the replica limit with the platform's status and message, and admits one under it", async () => {
    await namespace("limit");
    await policy("replica-limit.example.com", { validations: [{ expression: "object.spec.replicas <= 5" }] });
    await binding("replica-limit-binding.example.com", "replica-limit.example.com", "limit", ["Deny"]);
    await effective("limit", 10, 422);
    const big = await createDeployment("limit", "big", 10);
    expect(big.status).toBe(422);
    const status = JSON.parse(big.text) as { reason: string; code: number; message: string; details: { causes: Array<{ message: string }> } };
    const denial = "ValidatingAdmissionPolicy 'replica-limit.example.com' with binding 'replica-limit-binding.example.com' denied request: failed expression: object.spec.replicas <= 5";
    expect(status.reason).toBe("Invalid");
    expect(status.code).toBe(422);
    expect(status.message).toBe(`deployments.${apps} "big" is forbidden: ${denial}`);
    expect(status.details.causes).toEqual([{ message: denial }]);
    expect((await api.admin.get(`/apis/${apps}/v1/namespaces/limit/deployments/big`)).status).toBe(404);
    const small = await createDeployment("limit", "small", 3);
    expect(small.status, small.text).toBe(201);
    // UPDATE is matched too.
    const current = JSON.parse(small.text) as Obj & { spec: Obj };
    current.spec.replicas = 7;
    const up = await api.admin.put(`/apis/${apps}/v1/namespaces/limit/deployments/small`, current);
    expect(up.status).toBe(422);
    // Other namespaces are outside the binding.
    await namespace("limit-free");
    expect((await createDeployment("limit-free", "big", 10)).status).toBe(201);
  });

  it("uses the validation's reason and message, or its messageExpression", async () => {
    await namespace("reasons");
    await policy("reasons.example.com", {
      validations: [
        { expression: "object.spec.replicas != 6", reason: "Forbidden", message: "six is not allowed" },
        { expression: "object.spec.replicas != 7", reason: "RequestEntityTooLarge", messageExpression: "'too many: ' + string(object.spec.replicas)" },
        { expression: "object.spec.replicas != 8", reason: "Unauthorized", message: "eight" },
      ],
    });
    await binding("reasons-binding", "reasons.example.com", "reasons", ["Deny"]);
    await effective("reasons", 6, 403);
    const six = await createDeployment("reasons", "six", 6);
    expect(six.status).toBe(403);
    expect(JSON.parse(six.text)).toMatchObject({ reason: "Forbidden", message: `deployments.${apps} "six" is forbidden: ValidatingAdmissionPolicy 'reasons.example.com' with binding 'reasons-binding' denied request: six is not allowed` });
    const seven = await createDeployment("reasons", "seven", 7);
    expect(seven.status).toBe(413);
    expect(JSON.parse(seven.text)).toMatchObject({ reason: "RequestEntityTooLarge" });
    expect(seven.text).toContain("denied request: too many: 7");
    expect((await createDeployment("reasons", "eight", 8)).status).toBe(401);
    expect((await createDeployment("reasons", "nine", 9)).status).toBe(201);
  });

  it("Warn admits the object with a Warning header", async () => {
    await namespace("warn");
    await policy("warn-limit.example.com", { validations: [{ expression: "object.spec.replicas <= 5", message: "more than 5 replicas" }] });
    await binding("warn-binding", "warn-limit.example.com", "warn", ["Warn"]);
    const deadline = Date.now() + 1000;
    let r = await createDeployment("warn", "w0", 10, "?dryRun=All");
    while (r.headers.warning === undefined && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 20));
      r = await createDeployment("warn", "w0", 10, "?dryRun=All");
    }
    const created = await createDeployment("warn", "wide", 10);
    expect(created.status, created.text).toBe(201);
    expect(String(created.headers.warning)).toContain("Validation failed for ValidatingAdmissionPolicy 'warn-limit.example.com' with binding 'warn-binding': more than 5 replicas");
    expect((await api.admin.get(`/apis/${apps}/v1/namespaces/warn/deployments/wide`)).status).toBe(200);
    const quiet = await createDeployment("warn", "narrow", 2);
    expect(quiet.status).toBe(201);
    expect(quiet.headers.warning).toBeUndefined();
  });

  it("reads the limit from a ConfigMap parameter; missing parameters follow parameterNotFoundAction", async () => {
    await namespace("params");
    const cm = await api.admin.post("/api/v1/namespaces/params/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "limits" }, data: { maxReplicas: "4" } });
    expect(cm.status).toBe(201);
    await policy("param-limit.example.com", {
      paramKind: { apiVersion: "v1", kind: "ConfigMap" },
      validations: [{ expression: "object.spec.replicas <= int(params.data.maxReplicas)", messageExpression: "'at most ' + params.data.maxReplicas + ' replicas'" }],
    });
    await binding("param-binding", "param-limit.example.com", "params", ["Deny"], { paramRef: { name: "limits", parameterNotFoundAction: "Deny" } });
    await effective("params", 5, 422);
    const five = await createDeployment("params", "five", 5);
    expect(five.status).toBe(422);
    expect(five.text).toContain("with binding 'param-binding' denied request: at most 4 replicas");
    expect((await createDeployment("params", "four", 4)).status).toBe(201);

    // A parameter name that does not exist: Deny applies the failure policy (Fail).
    await namespace("params-missing");
    await binding("param-missing-deny", "param-limit.example.com", "params-missing", ["Deny"], { paramRef: { name: "absent", parameterNotFoundAction: "Deny" } });
    await effective("params-missing", 1, 422);
    const denied = await createDeployment("params-missing", "one", 1);
    expect(denied.status).toBe(422);
    expect(JSON.parse(denied.text)).toMatchObject({
      message: `deployments.${apps} "one" is forbidden: ValidatingAdmissionPolicy 'param-limit.example.com' with binding 'param-missing-deny' denied request: failed to configure binding: no params found for policy binding with \`Deny\` parameterNotFoundAction`,
    });

    // Allow: nothing to evaluate.
    await namespace("params-allow");
    await binding("param-missing-allow", "param-limit.example.com", "params-allow", ["Deny"], { paramRef: { name: "absent", parameterNotFoundAction: "Allow" } });
    await new Promise((res) => setTimeout(res, 300));
    expect((await createDeployment("params-allow", "many", 50)).status).toBe(201);

    // A selector picks every matching parameter object; each is evaluated.
    await namespace("params-sel");
    for (const [name, max] of [["a", "9"], ["b", "2"]]) {
      const r = await api.admin.post("/api/v1/namespaces/params-sel/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { limit: "yes" } }, data: { maxReplicas: max } });
      expect(r.status).toBe(201);
    }
    await binding("param-selector", "param-limit.example.com", "params-sel", ["Deny"], { paramRef: { selector: { matchLabels: { limit: "yes" } }, parameterNotFoundAction: "Deny" } });
    await effective("params-sel", 3, 422);
    expect((await createDeployment("params-sel", "three", 3)).text).toContain("at most 2 replicas");
    expect((await createDeployment("params-sel", "two", 2)).status).toBe(201);
  });

  it("evaluates variables, namespaceObject, request and matchConditions", async () => {
    await namespace("vars", { tier: "small" });
    await policy("vars.example.com", {
      matchConditions: [{ name: "not-exempt", expression: "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)" }],
      variables: [
        { name: "tier", expression: "namespaceObject.metadata.labels.tier" },
        { name: "limit", expression: "variables.tier == 'small' ? 2 : 100" },
      ],
      validations: [
        { expression: "object.spec.replicas <= variables.limit", messageExpression: "'tier ' + variables.tier + ' allows ' + string(variables.limit) + ' (' + request.operation + ')'" },
      ],
    });
    await binding("vars-binding", "vars.example.com", "vars", ["Deny"]);
    await effective("vars", 3, 422);
    const r = await createDeployment("vars", "three", 3);
    expect(r.text).toContain("denied request: tier small allows 2 (CREATE)");
    const exempt = await api.admin.post(`/apis/${apps}/v1/namespaces/vars/deployments`, deployment("exempt", 3, { exempt: "yes" }));
    expect(exempt.status, exempt.text).toBe(201);
  });

  it("follows failurePolicy on evaluation errors", async () => {
    await namespace("errors");
    await policy("fails.example.com", { validations: [{ expression: "object.spec.missing > 1" }] });
    await policy("ignores.example.com", { failurePolicy: "Ignore", validations: [{ expression: "object.spec.missing > 1" }] });
    await binding("ignores-binding", "ignores.example.com", "errors", ["Deny"]);
    await binding("fails-binding", "fails.example.com", "errors", ["Deny"]);
    await effective("errors", 1, 422);
    const r = await createDeployment("errors", "e", 1);
    expect(JSON.parse(r.text)).toMatchObject({ reason: "Invalid", code: 422 });
    expect(r.text).toContain("ValidatingAdmissionPolicy 'fails.example.com' with binding 'fails-binding' denied request: expression 'object.spec.missing > 1' resulted in error");
  });

  it("stops enforcing within a second of the binding's deletion", async () => {
    await namespace("removal");
    await policy("removal.example.com", { validations: [{ expression: "object.spec.replicas <= 1" }] });
    await binding("removal-binding", "removal.example.com", "removal", ["Deny"]);
    await effective("removal", 2, 422);
    expect((await api.admin.delete(`${ar}/validatingadmissionpolicybindings/removal-binding`)).status).toBe(200);
    await effective("removal", 2, 201);
    expect((await createDeployment("removal", "two", 2)).status).toBe(201);
  });

  it("matchPolicy Equivalent checks a request in another served version in the rule's version", async () => {
    await namespace("equiv");
    const autoscaling = api.profile.group("autoscaling");
    const rules = [{ apiGroups: [autoscaling], apiVersions: ["v2"], operations: ["CREATE"], resources: ["horizontalpodautoscalers"] }];
    const check = "object.spec.metrics.all(m, m.resource.target.averageUtilization <= 80)";
    await policy("equiv.example.com", { matchConstraints: { resourceRules: rules }, validations: [{ expression: check }] });
    await policy("exact.example.com", { matchConstraints: { resourceRules: rules, matchPolicy: "Exact" }, validations: [{ expression: "false" }] });
    await binding("equiv-binding", "equiv.example.com", "equiv", ["Deny"]);
    await binding("exact-binding", "exact.example.com", "equiv", ["Deny"]);
    const hpa = (name: string, cpu: number) => ({
      apiVersion: `${autoscaling}/v1`,
      kind: "HorizontalPodAutoscaler",
      metadata: { name },
      spec: { scaleTargetRef: { apiVersion: `${apps}/v1`, kind: "Deployment", name: "d" }, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: cpu },
    });
    const url = `/apis/${autoscaling}/v1/namespaces/equiv/horizontalpodautoscalers`;
    const deadline = Date.now() + 1000;
    let r = await api.admin.post(`${url}?dryRun=All`, hpa("probe", 90));
    while (r.status !== 422 && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 20));
      r = await api.admin.post(`${url}?dryRun=All`, hpa("probe", 90));
    }
    expect(r.status, r.text).toBe(422);
    expect(r.text).toContain(`ValidatingAdmissionPolicy 'equiv.example.com' with binding 'equiv-binding' denied request: failed expression: ${check}`);
    expect((await api.admin.post(url, hpa("calm", 50))).status).toBe(201);
  });

  it("records the observed generation in the policy's status", async () => {
    await policy("status.example.com", { validations: [{ expression: "true" }] });
    const path = `${ar}/validatingadmissionpolicies/status.example.com`;
    const observedAfter = async (generation: number) => {
      const deadline = Date.now() + 1000;
      for (;;) {
        const got = JSON.parse((await api.admin.get(path)).text) as Obj & { metadata: { generation: number }; status?: { observedGeneration?: number; typeChecking?: Obj } };
        if (got.status?.observedGeneration === generation) return got;
        if (Date.now() > deadline) throw new Error(`observedGeneration ${String(got.status?.observedGeneration)}, want ${generation}`);
        await new Promise((res) => setTimeout(res, 20));
      }
    };
    const first = await observedAfter(1);
    expect(first.metadata.generation).toBe(1);
    expect(first.status?.typeChecking).toEqual({});
    const spec = first.spec as Obj;
    const put = await api.admin.put(path, { ...first, spec: { ...spec, validations: [{ expression: "object != null" }] } });
    expect(put.status, put.text).toBe(200);
    expect((await observedAfter(2)).metadata.generation).toBe(2);
  });

  it("rejects at write time a policy whose expressions do not compile, with their field paths", async () => {
    const body = {
      apiVersion: `${api.profile.group("admissionregistration")}/v1`,
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "broken.example.com" },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [apps], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] }] },
        validations: [{ expression: "object.spec.replicas <=" }, { expression: "object.spec.replicas < 3", messageExpression: "object.spec.replicas +" }],
        auditAnnotations: [{ key: "replicas", valueExpression: "string(object.spec.replicas) +" }],
      },
    };
    const r = await api.admin.post(`${ar}/validatingadmissionpolicies`, body);
    expect(r.status).toBe(422);
    const status = JSON.parse(r.text) as { reason: string; details: { causes: Array<{ field: string; message: string }> } };
    expect(status.reason).toBe("Invalid");
    expect(status.details.causes.map((c) => c.field)).toEqual(["spec.validations[0].expression", "spec.validations[1].messageExpression", "spec.auditAnnotations[0].valueExpression"]);
    expect(status.details.causes[0].message).toContain('Invalid value: "object.spec.replicas <=": compilation failed: ');
    expect((await api.admin.get(`${ar}/validatingadmissionpolicies/broken.example.com`)).status).toBe(404);
  });
});
