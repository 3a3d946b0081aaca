/**
 * Declarative validation over HTTPS, for the kinds of the platform's release 1.35 that
 * this server serves (ReplicationController; CertificateSigningRequest's Approved/Denied
 * union) and, added to the replicas' tables, later releases' migrations (the immutable
 * PriorityClass value, binding roleRef and Deployment selector):
 * - with the default gates both validations run, the client gets the hand-written
 *   errors, and a declared rule the hand-written validation does not have is counted in
 *   `apiserver_validation_declarative_validation_mismatch_total` on /metrics; for the
 *   declared kinds as shipped, both sides agree (nothing counted);
 * - with `DeclarativeValidationTakeover=true` the client gets the declarative message.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { FeatureGates } from "../../services/apiserver/server/feature-gates.ts";
import { BUILTIN_DECLARATIONS, LATER_RELEASE_DECLARATIONS } from "../../services/apiserver/registry/declarative-validation-rules.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

type Obj = Record<string, unknown>;
const MISMATCH = "apiserver_validation_declarative_validation_mismatch_total";
const PANIC = "apiserver_validation_declarative_validation_panic_total";
const BASE = "/api/v1/namespaces/default/replicationcontrollers";

function controller(name: string, spec: Obj): Obj {
  return {
    apiVersion: "v1",
    kind: "ReplicationController",
    metadata: { name },
    spec: { selector: { app: name }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "busybox" }] } }, ...spec },
  };
}

async function counter(api: TestApiserver, name: string): Promise<number> {
  const text = (await api.admin.get("/metrics")).text;
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  expect(line, `${name} on /metrics`).toBeDefined();
  return Number(line?.split(" ")[1]);
}

function message(res: { json<T>(): T }): string {
  return res.json<{ message: string }>().message;
}

type Cause = { field?: string; reason?: string; message?: string };
function causes(res: { json<T>(): T }): Cause[] {
  return res.json<{ details?: { causes?: Cause[] } }>().details?.causes ?? [];
}

const csrSample = parse(readFileSync(join(import.meta.dirname, "../../shared/api/samples/certificates-v1/certificatesigningrequest.yaml"), "utf8")) as { spec: Obj };

/** A created CSR given both Approved and Denied through `…/approval`. */
async function approveAndDeny(api: TestApiserver, name: string): Promise<{ status: number; text: string; json<T>(): T }> {
  const certs = api.profile.group("certificates");
  const path = `/apis/${certs}/v1/certificatesigningrequests`;
  const created = await api.admin.post(path, { apiVersion: `${certs}/v1`, kind: "CertificateSigningRequest", metadata: { name }, spec: { ...csrSample.spec, signerName: "example.com/signer" } });
  expect(created.status, created.text).toBe(201);
  const csr = created.json<Obj>();
  const condition = (type: string) => ({ type, status: "True", reason: "ByTest", message: type });
  return api.admin.put(`${path}/${name}/approval`, { ...csr, status: { conditions: [condition("Approved"), condition("Denied")] } });
}

/** An object per kind with an immutable declared field, and the change of that field. */
interface ImmutableCase {
  kind: string;
  field: string;
  path: (api: TestApiserver) => string;
  object: (api: TestApiserver, name: string) => Obj;
  change: (o: Obj) => Obj;
}

const IMMUTABLE_CASES: ImmutableCase[] = [
  {
    kind: "PriorityClass",
    field: "value",
    path: (api) => `/apis/${api.profile.group("scheduling")}/v1/priorityclasses`,
    object: (api, name) => ({ apiVersion: `${api.profile.group("scheduling")}/v1`, kind: "PriorityClass", metadata: { name }, value: 1000 }),
    change: (o) => ({ ...o, value: 2000 }),
  },
  {
    kind: "ClusterRoleBinding",
    field: "roleRef",
    path: (api) => `/apis/${api.profile.group("rbac")}/v1/clusterrolebindings`,
    object: (api, name) => ({ apiVersion: `${api.profile.group("rbac")}/v1`, kind: "ClusterRoleBinding", metadata: { name }, roleRef: { apiGroup: api.profile.group("rbac"), kind: "ClusterRole", name: "view" }, subjects: [] }),
    change: (o) => ({ ...o, roleRef: { ...(o.roleRef as Obj), name: "edit" } }),
  },
  {
    kind: "RoleBinding",
    field: "roleRef",
    path: (api) => `/apis/${api.profile.group("rbac")}/v1/namespaces/default/rolebindings`,
    object: (api, name) => ({ apiVersion: `${api.profile.group("rbac")}/v1`, kind: "RoleBinding", metadata: { name }, roleRef: { apiGroup: api.profile.group("rbac"), kind: "ClusterRole", name: "view" }, subjects: [] }),
    change: (o) => ({ ...o, roleRef: { ...(o.roleRef as Obj), name: "edit" } }),
  },
  {
    kind: "Deployment",
    field: "spec.selector",
    path: () => "/apis/apps/v1/namespaces/default/deployments",
    object: (_api, name) => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name },
      spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name, tier: "web" } }, spec: { containers: [{ name: "c", image: "busybox" }] } } },
    }),
    change: (o) => ({ ...o, spec: { ...(o.spec as Obj), selector: { matchLabels: { app: String((o.metadata as Obj).name), tier: "web" } } } }),
  },
];

/** Creates the case's object and PUTs the change of its immutable field. */
async function changeImmutable(api: TestApiserver, c: ImmutableCase, name: string): Promise<{ status: number; text: string; json<T>(): T }> {
  const created = await api.admin.post(c.path(api), c.object(api, name));
  expect(created.status, created.text).toBe(201);
  return api.admin.put(`${c.path(api)}/${name}`, c.change(created.json<Obj>()));
}

describe("declarative validation with the default gates", () => {
  let api: TestApiserver;
  beforeAll(async () => {
    // A deliberate mismatch: minReadySeconds declared with a minimum of 10, which the hand-written validation does not have.
    const rc = { ...BUILTIN_DECLARATIONS["core/ReplicationController"], "spec.minReadySeconds": ["+k8s:optional", "+k8s:minimum=10"] };
    api = await startTestApiserver({ profileId: "kubernetes", declarativeValidation: { ...BUILTIN_DECLARATIONS, ...LATER_RELEASE_DECLARATIONS, "core/ReplicationController": rc } });
  });
  afterAll(async () => {
    await api?.close();
  });

  it("returns the hand-written errors and counts nothing when both agree", async () => {
    const before = await counter(api, MISMATCH);
    const res = await api.admin.post(BASE, controller("negative", { replicas: -1, minReadySeconds: 12 }));
    expect(res.status, res.text).toBe(422);
    expect(message(res)).toContain("spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0");
    expect(await counter(api, MISMATCH)).toBe(before);
    expect(await counter(api, PANIC)).toBe(0);
  });

  it("counts a rule only the declarative side has, and still answers with the hand-written result", async () => {
    const before = await counter(api, MISMATCH);
    const res = await api.admin.post(BASE, controller("slow", { replicas: 1, minReadySeconds: 5 }));
    expect(res.status, res.text).toBe(201);
    expect(await counter(api, MISMATCH)).toBe(before + 1);
    const updated = await api.admin.put(`${BASE}/slow`, { ...res.json<Obj>(), spec: { ...(res.json<Obj>().spec as Obj), minReadySeconds: 6 } });
    expect(updated.status, updated.text).toBe(200);
    expect(await counter(api, MISMATCH)).toBe(before + 2);
  });

  it("refuses Approved with Denied with the hand-written message, and both sides agree", async () => {
    const before = await counter(api, MISMATCH);
    const res = await approveAndDeny(api, "both-default");
    expect(res.status, res.text).toBe(422);
    expect(message(res)).toContain("Approved and Denied conditions are mutually exclusive");
    expect(causes(res)).toContainEqual(expect.objectContaining({ field: "status.conditions", reason: "FieldValueInvalid" }));
    expect(await counter(api, MISMATCH)).toBe(before);
  });

  it.each(IMMUTABLE_CASES)("refuses a change of $kind $field, and both sides agree", async (c) => {
    const before = await counter(api, MISMATCH);
    const res = await changeImmutable(api, c, `imm-${c.kind.toLowerCase()}`);
    expect(res.status, res.text).toBe(422);
    expect(causes(res)).toContainEqual(expect.objectContaining({ field: c.field, reason: "FieldValueInvalid" }));
    expect(await counter(api, MISMATCH)).toBe(before);
  });
});

describe("declarative validation with DeclarativeValidationTakeover", () => {
  let api: TestApiserver;
  beforeAll(async () => {
    const gates = new FeatureGates();
    gates.set(["DeclarativeValidationTakeover=true"]);
    api = await startTestApiserver({ profileId: "kubernetes", gates, declarativeValidation: { ...BUILTIN_DECLARATIONS, ...LATER_RELEASE_DECLARATIONS } });
  });
  afterAll(async () => {
    await api?.close();
  });

  it("answers with the declarative message on covered fields", async () => {
    const res = await api.admin.post(BASE, controller("negative", { replicas: -1, minReadySeconds: -2 }));
    expect(res.status, res.text).toBe(422);
    const msg = message(res);
    expect(msg).toContain("spec.replicas: Invalid value: -1: must be greater than or equal to 0");
    expect(msg).toContain("spec.minReadySeconds: Invalid value: -2: must be greater than or equal to 0");
    expect(msg).not.toContain("in body should be");
    expect(await counter(api, MISMATCH)).toBe(0);
  });

  it("keeps the hand-written errors of fields without declarations", async () => {
    const res = await api.admin.post(BASE, { ...controller("Bad_Name", { replicas: -1 }) });
    expect(res.status).toBe(422);
    const msg = message(res);
    expect(msg).toContain('metadata.name: Invalid value: "Bad_Name"');
    expect(msg).toContain("spec.replicas: Invalid value: -1: must be greater than or equal to 0");
  });

  it("refuses Approved with Denied with the declarative union message", async () => {
    const res = await approveAndDeny(api, "both-takeover");
    expect(res.status, res.text).toBe(422);
    const msg = message(res);
    expect(msg).toContain('status.conditions: Invalid value: "{conditions[{\\"type\\": \\"Approved\\"}], conditions[{\\"type\\": \\"Denied\\"}]}": must specify at most one of: conditions[{"type": "Approved"}], conditions[{"type": "Denied"}]');
    expect(msg).not.toContain("mutually exclusive");
    expect(causes(res)).toEqual([expect.objectContaining({ field: "status.conditions", reason: "FieldValueInvalid" })]);
  });

  it.each(IMMUTABLE_CASES)("refuses a change of $kind $field with the declarative message", async (c) => {
    const res = await changeImmutable(api, c, `imm-${c.kind.toLowerCase()}`);
    expect(res.status, res.text).toBe(422);
    expect(causes(res)).toContainEqual(expect.objectContaining({ field: c.field, reason: "FieldValueInvalid", message: expect.stringContaining("field is immutable") }));
    expect(causes(res).filter((x) => x.field === c.field)).toHaveLength(1);
  });
});
