import { describe, expect, it } from "vitest";
import { getProfile } from "../../platform/index.ts";
import { validateImmutable } from "../../schema/index.ts";
import { admit, defaultObject, deleteAt, loadSample, mutate, paths, sampleFile, setAt } from "../testing/sample-harness.ts";
import { csrConditionSummary, kinds, validateSignerName } from "./certificates-v1.ts";

const profile = getProfile();
const def = kinds[0];
const sample = () => loadSample("certificates-v1", sampleFile(def));
const errorPaths = (obj: Record<string, unknown>) => paths(admit(def, obj).errors);

describe("certificates/v1 kinds", () => {
  it("declares CertificateSigningRequest with its subresources, short name and selectable signer", () => {
    expect(kinds.map((k) => k.kind)).toEqual(["CertificateSigningRequest"]);
    expect(def.namespaced).toBe(false);
    expect(def.shortNames).toEqual(["csr"]);
    expect(def.subresources).toEqual(["status", "approval"]);
    expect(def.selectableFields).toEqual(["spec.signerName"]);
  });

  it("uses the platform's protobuf field numbers", () => {
    const spec = def.schema.properties?.spec.properties ?? {};
    expect(Object.fromEntries(Object.entries(spec).map(([k, v]) => [k, v.protoTag]))).toEqual({
      request: 1,
      signerName: 7,
      expirationSeconds: 8,
      usages: 5,
      username: 2,
      uid: 3,
      groups: 4,
      extra: 6,
    });
    const cond = def.schema.properties?.status.properties?.conditions.items?.properties ?? {};
    expect([cond.type.protoTag, cond.status.protoTag, cond.lastUpdateTime.protoTag, cond.lastTransitionTime.protoTag]).toEqual([1, 6, 4, 5]);
  });

  it("prints AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION", () => {
    const cols = def.tableColumns ?? [];
    expect(cols.map((c) => c.name)).toEqual(["Age", "SignerName", "Requestor", "RequestedDuration", "Condition"]);
    const csr = mutate(sample(), (o) => setAt(o, "spec.username", "jane"));
    expect(cols.slice(1).map((c) => c.cell?.(csr))).toEqual(["pki.example.com/internal-client", "jane", "24h", "Approved"]);
    expect(csrConditionSummary({})).toBe("Pending");
    expect(csrConditionSummary({ status: { conditions: [{ type: "Denied" }, { type: "Failed" }] } })).toBe("Denied,Failed");
    expect(csrConditionSummary({ status: { conditions: [{ type: "Approved" }], certificate: "Zm9v" } })).toBe("Approved,Issued");
  });
});

describe("certificates/v1 sample", () => {
  it("decodes with no unknown fields and no errors; defaulting is idempotent", () => {
    const obj = sample();
    expect(obj.apiVersion).toBe(profile.apiVersion("certificates", "v1"));
    const { unknown, defaulted, errors } = admit(def, obj);
    expect(unknown).toEqual([]);
    expect(errors).toEqual([]);
    expect(defaultObject(def, defaulted)).toEqual(defaulted);
  });
});

describe("certificates/v1 rejects bad objects with the platform's field paths", () => {
  it("unknown nested field", () => {
    const bad = mutate(sample(), (o) => setAt(o, "spec.signer", "x"));
    expect(admit(def, bad).unknown).toEqual(["spec.signer"]);
  });

  it("wrong type", () => {
    expect(errorPaths(mutate(sample(), (o) => setAt(o, "spec.usages", "client auth")))).toEqual(["spec.usages"]);
    expect(errorPaths(mutate(sample(), (o) => setAt(o, "spec.request", "not base64!")))).toEqual(["spec.request"]);
  });

  it("missing required fields (v1: signerName and usages)", () => {
    expect(errorPaths(mutate(sample(), (o) => deleteAt(o, "spec.signerName")))).toEqual(["spec.signerName"]);
    expect(errorPaths(mutate(sample(), (o) => deleteAt(o, "spec.usages")))).toEqual(["spec.usages"]);
    expect(errorPaths(mutate(sample(), (o) => deleteAt(o, "spec.request")))).toEqual(["spec.request"]);
    expect(errorPaths(mutate(sample(), (o) => deleteAt(o, "spec")))).toEqual(["spec"]);
  });

  it("bad enum and duplicate usages", () => {
    const e = admit(def, mutate(sample(), (o) => setAt(o, "spec.usages[1]", "key-encipherment"))).errors;
    expect(paths(e)).toEqual(["spec.usages[1]"]);
    expect(e[0].type).toBe("FieldValueNotSupported");
    expect(errorPaths(mutate(sample(), (o) => setAt(o, "spec.usages[2]", "digital signature")))).toEqual(["spec.usages[2]"]);
  });

  it("signer names are qualified `domain/path` names", () => {
    expect(paths(validateSignerName("spec.signerName", "no-slash"))).toEqual(["spec.signerName"]);
    expect(validateSignerName("f", "nodot/x")[0].message).toContain("should be a domain with at least two segments separated by dots");
    expect(validateSignerName("f", "a.b/c.d")).toEqual([]);
    // Exactly one slash, as the platform requires.
    expect(validateSignerName("f", "a.b/c/d")[0].message).toContain("must be a fully qualified domain and path");
    expect(validateSignerName("f", "Example.com/x")[0].message).toContain('validating label "Example"');
    expect(errorPaths(mutate(sample(), (o) => setAt(o, "spec.signerName", "pki.example.com/")))).toEqual(["spec.signerName"]);
  });

  it("request must be a CERTIFICATE REQUEST PEM block; duration at least 10 minutes", () => {
    const notPem = mutate(sample(), (o) => setAt(o, "spec.request", Buffer.from("hello").toString("base64")));
    expect(errorPaths(notPem)).toEqual(["spec.request"]);
    const e = admit(def, mutate(sample(), (o) => setAt(o, "spec.expirationSeconds", 599))).errors;
    expect(paths(e)).toEqual(["spec.expirationSeconds"]);
  });

  it("conditions: known types only True, Approved and Denied exclusive, one per type", () => {
    const denied = { type: "Denied", status: "True", reason: "No", lastUpdateTime: "2026-11-20T10:16:00Z" };
    expect(errorPaths(mutate(sample(), (o) => setAt(o, "status.conditions[1]", denied)))).toEqual(["status.conditions"]);
    expect(errorPaths(mutate(sample(), (o) => setAt(o, "status.conditions[0].status", "False")))).toEqual(["status.conditions[0].status"]);
    const twice = mutate(sample(), (o) => setAt(o, "status.conditions[1]", { type: "Approved", status: "True" }));
    expect(errorPaths(twice)).toEqual(["status.conditions[1]"]);
    const custom = mutate(sample(), (o) => setAt(o, "status.conditions[1]", { type: "example.com/Reviewed", status: "False" }));
    expect(errorPaths(custom)).toEqual([]);
  });

  it("status.certificate holds CERTIFICATE blocks only", () => {
    const key = Buffer.from("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n").toString("base64");
    expect(errorPaths(mutate(sample(), (o) => setAt(o, "status.certificate", key)))).toEqual(["status.certificate"]);
  });

  it("spec is immutable", () => {
    const old = defaultObject(def, sample());
    const changed = mutate(old, (o) => setAt(o, "spec.usages", ["client auth"]));
    expect(paths(validateImmutable(def.schema, old, changed))).toEqual(["spec"]);
    const statusChanged = mutate(old, (o) => setAt(o, "status.certificate", "Zm9v"));
    expect(validateImmutable(def.schema, old, statusChanged)).toEqual([]);
  });
});
