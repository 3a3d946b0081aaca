/**
 * CSR approval and signing over HTTPS with token users and RBAC: `PUT …/approval` needs
 * `update` on `certificatesigningrequests/approval` and the `approve` verb on the
 * request's signer (`signers`, by name or `<domain>/*`); `PUT …/status` that sets a
 * certificate needs `sign` likewise. Refusals are 403 with the platform's admission
 * message. The requester recorded in the spec is the token's user, uid and groups.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { defaultAuthenticationOptions } from "../../services/apiserver/authn/options.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { HttpsClient } from "../support/https-client.ts";

const sample = parse(readFileSync(join(import.meta.dirname, "../../shared/api/samples/certificates-v1/certificatesigningrequest.yaml"), "utf8")) as { spec: { request: string } };
const certificate = Buffer.from("-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUeW91LWFyZS1ub3QtYS1yZWFsLWNlcnQ=\n-----END CERTIFICATE-----\n").toString("base64");
type Csr = { metadata: { name: string }; spec: Record<string, unknown>; status?: Record<string, unknown> };
const TOKENS: Record<string, string> = { admin: "admin-token-0123456789", nobody: "nobody-token-0123456789", approver: "approver-token-0123456789", signer: "signer-token-0123456789" };

let api: TestApiserver;
let dir: string;
let rbac: string;
let certs: string;
let csrs: string;
const as = (user: string) => new HttpsClient(api.replica.url, { ca: api.ca, token: TOKENS[user] });

async function clusterGrant(admin: HttpsClient, user: string, rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }>): Promise<void> {
  const role = await admin.post(`/apis/${rbac}/v1/clusterroles`, { apiVersion: `${rbac}/v1`, kind: "ClusterRole", metadata: { name: user }, rules });
  expect(role.status, role.text).toBe(201);
  const binding = await admin.post(`/apis/${rbac}/v1/clusterrolebindings`, {
    apiVersion: `${rbac}/v1`,
    kind: "ClusterRoleBinding",
    metadata: { name: user },
    roleRef: { apiGroup: rbac, kind: "ClusterRole", name: user },
    subjects: [{ apiGroup: rbac, kind: "User", name: user }],
  });
  expect(binding.status, binding.text).toBe(201);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "csr-approval-"));
  const authentication = defaultAuthenticationOptions();
  writeFileSync(
    join(dir, "tokens.csv"),
    `${TOKENS.admin},admin,0,system:masters\n${TOKENS.nobody},nobody,1,csr-users\n${TOKENS.approver},approver,2,"csr-users,approvers"\n${TOKENS.signer},signer,3,csr-users\n`,
  );
  authentication.tokenAuthFile = join(dir, "tokens.csv");
  api = await startTestApiserver({ security: { authentication, authorization: { modes: ["RBAC"] } } });
  rbac = api.profile.group("rbac");
  certs = api.profile.group("certificates");
  csrs = `/apis/${certs}/v1/certificatesigningrequests`;
  const admin = as("admin");
  const csrRules = [{ apiGroups: [certs], resources: ["certificatesigningrequests", "certificatesigningrequests/approval", "certificatesigningrequests/status"], verbs: ["get", "update", "create"] }];
  await clusterGrant(admin, "nobody", csrRules);
  await clusterGrant(admin, "approver", [...csrRules, { apiGroups: [certs], resources: ["signers"], verbs: ["approve"], resourceNames: ["example.com/*"] }]);
  await clusterGrant(admin, "signer", [...csrRules, { apiGroups: [certs], resources: ["signers"], verbs: ["sign"], resourceNames: ["example.com/custom"] }]);
  admin.close();
});
afterAll(async () => {
  await api?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("CSR approval and signing permissions", () => {
  it("records the token user as requester; approval needs approve on the signer; status with a certificate needs sign", async () => {
    const [nobody, approver, signer] = [as("nobody"), as("approver"), as("signer")];
    const created = await approver.post(csrs, {
      apiVersion: `${certs}/v1`,
      kind: "CertificateSigningRequest",
      metadata: { name: "guarded" },
      spec: { request: sample.spec.request, signerName: "example.com/custom", usages: ["client auth"], username: "someone-else" },
    });
    expect(created.status, created.text).toBe(201);
    const current = created.json<Csr>();
    expect(current.spec).toMatchObject({ username: "approver", uid: "2", groups: ["csr-users", "approvers", "system:authenticated"] });
    const approval = { ...current, status: { conditions: [{ type: "Approved", status: "True", reason: "Tested", message: "ok" }] } };

    const refused = await nobody.put(`${csrs}/guarded/approval`, approval);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.json<{ message: string }>().message).toBe(`certificatesigningrequests.${certs} "guarded" is forbidden: user not permitted to approve requests with signerName "example.com/custom"`);

    const approved = await approver.put(`${csrs}/guarded/approval`, approval);
    expect(approved.status, approved.text).toBe(200);
    const afterApproval = approved.json<Csr>();

    const noSign = await approver.put(`${csrs}/guarded/status`, { ...afterApproval, status: { ...afterApproval.status, certificate } });
    expect(noSign.status, noSign.text).toBe(403);
    expect(noSign.json<{ message: string }>().message).toBe(`certificatesigningrequests.${certs} "guarded" is forbidden: user not permitted to sign requests with signerName "example.com/custom"`);

    const signed = await signer.put(`${csrs}/guarded/status`, { ...afterApproval, status: { ...afterApproval.status, certificate } });
    expect(signed.status, signed.text).toBe(200);
    expect(signed.json<Csr>().status?.certificate).toBe(certificate);
    for (const c of [nobody, approver, signer]) c.close();
  });
});
