/**
 * Type checking of ValidatingAdmissionPolicy expressions over HTTPS: a policy
 * whose expressions select fields the matched kinds do not declare (a built-in
 * kind and a custom resource) gets `status.typeChecking.expressionWarnings` in
 * the platform's shape once its generation is observed; a correct policy gets
 * none, and a fixed policy loses its warnings at the next generation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { CRD_GROUP, crdPath, cronTabCrd, waitServed } from "../support/crd-fixtures.ts";

type Obj = Record<string, unknown>;
interface Policy {
  metadata: { generation: number; resourceVersion: string };
  spec: Obj;
  status?: { observedGeneration?: number; typeChecking?: { expressionWarnings?: Array<{ fieldRef: string; warning: string }> } };
}

let api: TestApiserver;
let path: string;
let apps: string;

beforeAll(async () => {
  api = await startTestApiserver();
  apps = api.profile.group("apps");
  path = `/apis/${api.profile.group("admissionregistration")}/v1/validatingadmissionpolicies`;
  const crd = await api.admin.post(crdPath(api.profile), cronTabCrd(api.profile));
  expect(crd.status, crd.text).toBe(201);
  await waitServed(api.admin, `/apis/${CRD_GROUP}/v1/crontabs`);
});

afterAll(async () => {
  await api?.close();
});

async function observed(name: string, generation: number): Promise<Policy> {
  const deadline = Date.now() + 3000;
  for (;;) {
    const r = await api.admin.get(`${path}/${name}`);
    const p = r.json<Policy>();
    if (p.status?.observedGeneration === generation) return p;
    if (Date.now() > deadline) throw new Error(`generation ${generation} not observed: ${r.text}`);
    await new Promise((res) => setTimeout(res, 25));
  }
}

function policy(name: string, validations: Obj[]): Obj {
  return {
    apiVersion: `${api.profile.group("admissionregistration")}/v1`,
    kind: "ValidatingAdmissionPolicy",
    metadata: { name },
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: [apps], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] },
          { apiGroups: [CRD_GROUP], apiVersions: ["v1"], operations: ["CREATE"], resources: ["crontabs"] },
        ],
      },
      validations,
    },
  };
}

describe("ValidatingAdmissionPolicy type checking", () => {
  it("reports fields the matched kinds do not declare, per kind, in status.typeChecking", async () => {
    const created = await api.admin.post(
      path,
      policy("typo.example.com", [
        { expression: "object.spec.replicas > 1 || object.spec.cronSpec != ''" },
        { expression: "object.metadata.name != ''", messageExpression: "'bad: ' + object.spec.replicass" },
      ]),
    );
    expect(created.status, created.text).toBe(201);
    const p = await observed("typo.example.com", 1);
    const cronTab = `${CRD_GROUP}/v1, Kind=CronTab`;
    const deployment = `${apps}/v1, Kind=Deployment`;
    // CronTab declares replicas and cronSpec; Deployment only replicas. Kinds are listed by group, version and kind.
    expect(p.status?.typeChecking?.expressionWarnings).toEqual([
      {
        fieldRef: "spec.validations[0].expression",
        warning: `${deployment}: ERROR: <input>:1:40: undefined field 'cronSpec'\n | object.spec.replicas > 1 || object.spec.cronSpec != ''\n | .......................................^\n`,
      },
      {
        fieldRef: "spec.validations[1].messageExpression",
        warning:
          `${deployment}: ERROR: <input>:1:22: undefined field 'replicass'\n | 'bad: ' + object.spec.replicass\n | .....................^\n` +
          `\n${cronTab}: ERROR: <input>:1:22: undefined field 'replicass'\n | 'bad: ' + object.spec.replicass\n | .....................^\n`,
      },
    ]);

    // The fixed policy's next generation carries no warnings.
    const fixed = { ...p, spec: { ...p.spec, validations: [{ expression: "object.metadata.name != ''" }] } };
    const put = await api.admin.put(`${path}/typo.example.com`, fixed);
    expect(put.status, put.text).toBe(200);
    const again = await observed("typo.example.com", 2);
    expect(again.status?.typeChecking).toEqual({});
  });
});
