/**
 * kubectl 1.34, unmodified, against the apiserver process (`kubernetes`
 * profile, an audit log at Metadata level) with ValidatingAdmissionPolicies
 * applied from YAML by kubectl itself: a policy with a ConfigMap parameter and
 * a Deny binding refuses `kubectl create deployment` with the platform's
 * message; a Warn binding lets the create through and kubectl prints the
 * warning; an Audit binding lets it through and the request's audit event
 * carries the `validation.policy.admission.<domain>/validation_failure`
 * annotation.
 */
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getProfile } from "../../shared/platform/index.ts";
import { layerClients, runClient, type RunResult } from "../support/clients.ts";
import { startServerProcess, type ServerProcess } from "../support/server-process.ts";

const profile = getProfile("kubernetes");
const AR = profile.group("admissionregistration");
const APPS = profile.group("apps");
const NS = "vap-e2e";

let server: ServerProcess;
let dir: string;
let auditLog: string;
let run: (args: string[]) => Promise<RunResult>;

async function ok(args: string[]): Promise<string> {
  const r = await run(args);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r.stdout;
}

const POLICIES = `
apiVersion: ${AR}/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: max-replicas.example.com
spec:
  failurePolicy: Fail
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    resourceRules:
    - apiGroups: ["${APPS}"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= int(params.data.maxReplicas)"
    messageExpression: "'replicas must be at most ' + params.data.maxReplicas"
    reason: Invalid
---
apiVersion: ${AR}/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: max-replicas-binding
spec:
  policyName: max-replicas.example.com
  validationActions: [Deny]
  paramRef:
    name: replica-limits
    namespace: ${NS}
    parameterNotFoundAction: Deny
  matchResources:
    namespaceSelector:
      matchLabels:
        e2e: vap
---
apiVersion: ${AR}/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: small.example.com
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["${APPS}"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= 2"
    message: "more than 2 replicas is discouraged"
---
apiVersion: ${AR}/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: small-warn
spec:
  policyName: small.example.com
  validationActions: [Warn]
  matchResources:
    namespaceSelector:
      matchLabels:
        e2e: vap
---
apiVersion: ${AR}/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: labelled.example.com
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["${APPS}"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["deployments"]
  validations:
  - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
    message: "deployments should name their team"
---
apiVersion: ${AR}/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: labelled-audit
spec:
  policyName: labelled.example.com
  validationActions: [Audit]
  matchResources:
    namespaceSelector:
      matchLabels:
        e2e: vap
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "e2e-kubectl-vap-"));
  auditLog = join(dir, "audit.log");
  const policyFile = join(dir, "audit-policy.yaml");
  await writeFile(policyFile, [`apiVersion: audit.${profile.groupDomain}/v1`, "kind: Policy", "rules:", "- level: Metadata", ""].join("\n"));
  server = await startServerProcess([`--audit-policy-file=${policyFile}`, `--audit-log-path=${auditLog}`]);
  const kubeconfig = join(dir, "config");
  await copyFile(server.kubeconfig, kubeconfig);
  const env = { HOME: dir, TMPDIR: dir, KUBECONFIG: kubeconfig };
  const kubectl = layerClients().kubectl;
  run = (args) => runClient(kubectl, args, { env });
  await ok(["create", "namespace", NS]);
  await ok(["label", "namespace", NS, "e2e=vap"]);
  await ok(["create", "configmap", "replica-limits", "-n", NS, "--from-literal=maxReplicas=5"]);
  const file = join(dir, "policies.yaml");
  await writeFile(file, POLICIES);
  await ok(["apply", "-f", file]);
  // The policies reach the replica's watch cache within a second: probe with a server-side dry run.
  const deadline = Date.now() + 5000;
  for (;;) {
    const probe = await run(["create", "deployment", "probe", "-n", NS, "--image=nginx", "--replicas=10", "--dry-run=server"]);
    if (probe.code !== 0 && probe.stderr.includes("max-replicas.example.com")) break;
    if (Date.now() > deadline) throw new Error(`policy not effective: ${probe.stdout} ${probe.stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
});

afterAll(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("kubectl 1.34 with ValidatingAdmissionPolicy", () => {
  it("Deny: kubectl create prints the policy's message with the parameter's value", async () => {
    const denied = await run(["create", "deployment", "big", "-n", NS, "--image=nginx", "--replicas=10"]);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain(
      `deployments.${APPS} "big" is forbidden: ValidatingAdmissionPolicy 'max-replicas.example.com' with binding 'max-replicas-binding' denied request: replicas must be at most 5`,
    );
    expect((await run(["get", "deployment", "big", "-n", NS])).code).not.toBe(0);
  });

  it("Warn: the create succeeds and kubectl prints the warning", async () => {
    const r = await run(["create", "deployment", "three", "-n", NS, "--image=nginx", "--replicas=3"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("deployment.apps/three created");
    expect(r.stderr).toContain("Warning: Validation failed for ValidatingAdmissionPolicy 'small.example.com' with binding 'small-warn': more than 2 replicas is discouraged");
  });

  it("Audit: the create succeeds and its audit event carries the validation_failure annotation", async () => {
    type Event = { stage: string; verb: string; requestURI: string; objectRef?: { resource?: string }; annotations?: Record<string, string>; responseStatus?: { code?: number } };
    // The completed, stored creates of Deployments in the log, oldest first.
    const creates = async (): Promise<Event[]> =>
      (await readFile(auditLog, "utf8").catch(() => ""))
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l) as Event)
        .filter((e) => e.stage === "ResponseComplete" && e.verb === "create" && e.objectRef?.resource === "deployments" && e.responseStatus?.code === 201);
    const before = (await creates()).length;
    await ok(["create", "deployment", "unlabelled", "-n", NS, "--image=nginx", "--replicas=1"]);
    const deadline = Date.now() + 5000;
    let after = await creates();
    while (after.length <= before && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      after = await creates();
    }
    expect(after.length, "the create's audit event").toBe(before + 1);
    const event = after[after.length - 1];
    const key = `validation.policy.admission.${profile.groupDomain}/validation_failure`;
    expect(JSON.parse(event.annotations?.[key] ?? "[]")).toEqual([
      { message: "deployments should name their team", policy: "labelled.example.com", binding: "labelled-audit", expressionIndex: 0, validationActions: ["Audit"] },
    ]);
  });
});
