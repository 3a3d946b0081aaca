/**
 * CertificateSigningRequest rows over HTTPS: the server writes spec.username, uid,
 * groups and extra from the requesting user (what the client sent is replaced); the
 * legacy-unknown signer is refused on create through certificates/v1; `approval` is
 * served, changes only the conditions and may not remove a decision; `status` keeps the
 * approval decision and accepts only PEM CERTIFICATE blocks in status.certificate.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
let csrs: string;
let apiVersion: string;
const sample = parse(readFileSync(join(import.meta.dirname, "../../shared/api/samples/certificates-v1/certificatesigningrequest.yaml"), "utf8")) as { spec: { request: string } };
const pem = (label: string) => Buffer.from(`-----BEGIN ${label}-----\nMIIBszCCAVmgAwIBAgIUeW91LWFyZS1ub3QtYS1yZWFsLWNlcnQ=\n-----END ${label}-----\n`).toString("base64");
type Csr = { metadata: { name: string; resourceVersion: string }; spec: Record<string, unknown>; status?: { conditions?: Array<{ type: string; status: string }>; certificate?: string } };

const csr = (name: string, signerName: string, extra: Record<string, unknown> = {}) => ({
  apiVersion,
  kind: "CertificateSigningRequest",
  metadata: { name },
  spec: { request: sample.spec.request, signerName, usages: ["client auth"], ...extra },
});

beforeAll(async () => {
  api = await startTestApiserver({ profileId: "kubernetes" });
  apiVersion = api.profile.apiVersion("certificates", "v1");
  csrs = `/apis/${apiVersion}/certificatesigningrequests`;
});
afterAll(async () => {
  await api?.close();
});

describe("CertificateSigningRequest registry", () => {
  it("fills spec.username, uid, groups and extra from the requesting user", async () => {
    // the test replica's admin client certificate: CN admin, O system:masters
    const user = { username: "admin", groups: ["system:masters", "system:authenticated"] };
    const r = await api.admin.post(csrs, csr("filled", "example.com/custom", { username: "mallory", uid: "forged", groups: ["forged"], extra: { forged: ["yes"] } }));
    expect(r.status, r.text).toBe(201);
    const spec = r.json<Csr>().spec;
    expect(spec.username).toBe(user.username);
    expect(spec.username).not.toBe("mallory");
    expect(spec.groups).toEqual(user.groups);
    expect(spec.uid).toBeUndefined();
    expect(spec.extra).toBeUndefined();
    const stored = await api.admin.get(`${csrs}/filled`);
    expect(stored.json<Csr>().spec).toMatchObject({ username: user.username, groups: user.groups });
  });

  it("refuses the legacy-unknown signer on create", async () => {
    const legacy = `${api.profile.admission.signerPrefix}legacy-unknown`;
    const r = await api.admin.post(csrs, csr("legacy", legacy));
    expect(r.status, r.text).toBe(422);
    const body = r.json<{ reason: string; message: string; details: { causes: Array<{ field: string; message: string }> } }>();
    expect(body.reason).toBe("Invalid");
    expect(body.details.causes).toEqual([{ reason: "FieldValueInvalid", field: "spec.signerName", message: `Invalid value: "${legacy}": the legacy signerName is not allowed via this API version` }]);
    expect((await api.admin.get(`${csrs}/legacy`)).status).toBe(404);
  });

  it("serves approval (conditions only) and status (certificate PEM CERTIFICATE blocks only, approval kept)", async () => {
    expect((await api.admin.post(csrs, csr("approve-me", "example.com/custom"))).status).toBe(201);
    const current = (await api.admin.get(`${csrs}/approve-me`)).json<Csr>();
    const approved = await api.admin.put(`${csrs}/approve-me/approval`, {
      ...current,
      spec: { ...current.spec, signerName: "example.com/changed" },
      status: { conditions: [{ type: "Approved", status: "True", reason: "Tested", message: "approved by test" }], certificate: pem("CERTIFICATE") },
    });
    expect(approved.status, approved.text).toBe(200);
    const afterApproval = approved.json<Csr>();
    expect(afterApproval.spec.signerName).toBe("example.com/custom");
    expect(afterApproval.status?.conditions?.map((c) => c.type)).toEqual(["Approved"]);
    expect(afterApproval.status?.certificate).toBeUndefined();

    const badCert = await api.admin.put(`${csrs}/approve-me/status`, { ...afterApproval, status: { ...afterApproval.status, certificate: pem("RSA PRIVATE KEY") } });
    expect(badCert.status, badCert.text).toBe(422);
    expect(badCert.json<{ details: { causes: Array<{ field: string }> } }>().details.causes.map((c) => c.field)).toEqual(["status.certificate"]);

    const issued = await api.admin.put(`${csrs}/approve-me/status`, { ...afterApproval, status: { ...afterApproval.status, certificate: pem("CERTIFICATE") } });
    expect(issued.status, issued.text).toBe(200);
    const final = issued.json<Csr>();
    expect(final.status?.certificate).toBe(pem("CERTIFICATE"));
    expect(final.status?.conditions?.map((c) => c.type)).toEqual(["Approved"]);

    // the main resource leaves status alone; approval may not take a decision back
    const mainUpdate = await api.admin.put(`${csrs}/approve-me`, { ...final, status: { conditions: [] } });
    expect(mainUpdate.status, mainUpdate.text).toBe(200);
    expect(mainUpdate.json<Csr>().status?.conditions?.map((c) => c.type)).toEqual(["Approved"]);
    const unapprove = await api.admin.put(`${csrs}/approve-me/approval`, { ...mainUpdate.json<Csr>(), status: { conditions: [] } });
    expect(unapprove.status, unapprove.text).toBe(422);
    expect(unapprove.json<{ details: { causes: unknown[] } }>().details.causes).toEqual([
      { reason: "FieldValueForbidden", field: "status.conditions", message: 'Forbidden: updates may not remove a condition of type "Approved"' },
    ]);
  });
});
