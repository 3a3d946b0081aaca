/**
 * The write-time estimated cost check over HTTPS: a ValidatingAdmissionPolicy,
 * a MutatingAdmissionPolicy and a webhook match condition whose expression
 * costs more than the per-call limit whatever the input (ten authorizer checks
 * of 350,000 each; a regex over a long literal inside a nested literal loop)
 * are refused with 422 and the platform's `Forbidden: estimated rule cost
 * exceeds budget by factor of ...` at the expression's path; the same
 * expressions within budget are stored, and an expression priced by its input
 * (`object...all(...)`) is never refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeatureGates } from "../../services/apiserver/server/feature-gates.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

type Obj = Record<string, unknown>;
let api: TestApiserver;
let ar: string;
const HINT = "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)";
const tenChecks = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, authorizer.group('').resource('pods').check('get').allowed())";
const twoChecks = "[1, 2].all(x, authorizer.group('').resource('pods').check('get').allowed())";
const rules = [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }];

beforeAll(async () => {
  const gates = new FeatureGates();
  gates.set(["MutatingAdmissionPolicy=true"]);
  api = await startTestApiserver({ gates, runtimeConfig: [`${getProfile().group("admissionregistration")}/v1beta1`] });
  ar = api.profile.group("admissionregistration");
});

afterAll(async () => {
  await api?.close();
});

function vap(name: string, validations: Obj[]): Promise<{ status: number; text: string; json<T>(): T }> {
  return api.admin.post(`/apis/${ar}/v1/validatingadmissionpolicies`, {
    apiVersion: `${ar}/v1`,
    kind: "ValidatingAdmissionPolicy",
    metadata: { name },
    spec: { matchConstraints: { resourceRules: rules }, validations },
  });
}

describe("estimated cost at write time", () => {
  it("refuses a ValidatingAdmissionPolicy expression over the per-call limit, with the factor", async () => {
    const r = await vap("costly.example.com", [{ expression: "object != null" }, { expression: tenChecks }]);
    expect(r.status, r.text).toBe(422);
    const status = r.json<{ reason: string; message: string; details: { causes: Array<{ field: string; message: string }> } }>();
    expect(status.reason).toBe("Invalid");
    // 10 × (350,000 + 4) + 40 + 10 = 3,500,090: 3.5 times 1,000,000
    expect(status.message).toContain(`spec.validations[1].expression: Forbidden: estimated rule cost exceeds budget by factor of 3.5x ${HINT}`);
    expect(status.details.causes).toEqual([{ reason: "FieldValueForbidden", field: "spec.validations[1].expression", message: `Forbidden: estimated rule cost exceeds budget by factor of 3.5x ${HINT}` }]);
    expect((await api.admin.get(`/apis/${ar}/v1/validatingadmissionpolicies/costly.example.com`)).status).toBe(404);
  });

  it("caps the factor at 'more than 100x' and checks messageExpression too", async () => {
    // 100 × 100 iterations of a 100-character regex on a 10,000-character literal: ceil(10,001 × 0.1) × ceil(100 × 0.25) each
    const hundred = `[${Array.from({ length: 100 }, (_, i) => i).join(", ")}]`;
    const regexLoop = `${hundred}.all(x, ${hundred}.all(y, '${"a".repeat(10_000)}'.matches('^(${"a".repeat(96)})$')))`;
    const r = await vap("regex.example.com", [{ expression: "true", messageExpression: `${regexLoop} ? 'a' : 'b'` }]);
    expect(r.status, r.text).toBe(422);
    expect(r.json<{ message: string }>().message).toContain(`spec.validations[0].messageExpression: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${HINT}`);
  });

  it("stores expressions within budget, including ones whose cost depends on the input", async () => {
    const r = await vap("cheap.example.com", [{ expression: twoChecks }, { expression: "object.data.all(k, object.data[k].matches('^[a-z]+$'))" }]);
    expect(r.status, r.text).toBe(201);
  });

  it("refuses a policy whose expressions together exceed the runtime budget of one admission", async () => {
    const r = await vap("many.example.com", Array.from({ length: 15 }, () => ({ expression: twoChecks })));
    expect(r.status, r.text).toBe(422);
    // 15 × (40 + 1 + 2 × (3 + 350,004)) = 10,500,825 against 10,000,000 (cel-go's all: 3 per element, 1 for the result):
    // below 1.5 the factor has six decimals
    expect(r.json<{ message: string }>().message).toContain(`spec: Forbidden: estimated rule cost total for the policy exceeds budget by factor of 1.050083x ${HINT}`);
  });

  it("refuses a MutatingAdmissionPolicy mutation and a webhook match condition over the limit", async () => {
    const map = await api.admin.post(`/apis/${ar}/v1beta1/mutatingadmissionpolicies`, {
      apiVersion: `${ar}/v1beta1`,
      kind: "MutatingAdmissionPolicy",
      metadata: { name: "costly-mutation.example.com" },
      spec: {
        matchConstraints: { resourceRules: rules },
        mutations: [{ patchType: "JSONPatch", jsonPatch: { expression: `${tenChecks} ? [] : []` } }],
      },
    });
    expect(map.status, map.text).toBe(422);
    expect(map.json<{ message: string }>().message).toContain(`spec.mutations[0].jsonPatch.expression: Forbidden: estimated rule cost exceeds budget by factor of 3.5x`);

    const hook = await api.admin.post(`/apis/${ar}/v1/validatingwebhookconfigurations`, {
      apiVersion: `${ar}/v1`,
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "costly-condition" },
      webhooks: [
        {
          name: "costly.example.com",
          clientConfig: { url: "https://127.0.0.1:1/never" },
          rules,
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
          matchConditions: [{ name: "cheap", expression: twoChecks }, { name: "costly", expression: tenChecks }],
        },
      ],
    });
    expect(hook.status, hook.text).toBe(422);
    expect(hook.json<{ message: string }>().message).toContain(`webhooks[0].matchConditions[1].expression: Forbidden: estimated rule cost exceeds budget by factor of 3.5x`);
  });
});
