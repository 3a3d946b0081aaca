/**
 * Declarative validation per declared kind beyond ReplicationController (release 1.35's
 * CertificateSigningRequest and the later releases' migrations), and of the Scale
 * written through ReplicationController's scale subresource, over HTTPS: each gets one
 * deliberate declaration the hand-written validation does not have (added to the
 * shipped table), and
 * - with the default gates a create that breaks only that declaration is accepted
 *   (the hand-written result answers) and counted in
 *   `apiserver_validation_declarative_validation_mismatch_total`;
 * - with `DeclarativeValidationTakeover=true` the same create is refused with the
 *   declarative error on that field (the declarative result is authoritative).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { BUILTIN_DECLARATIONS, LATER_RELEASE_DECLARATIONS, SCALE_DECLARATIONS_KEY, type DeclarativeDeclarations } from "../../services/apiserver/registry/declarative-validation-rules.ts";
import { FeatureGates } from "../../services/apiserver/server/feature-gates.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

type Obj = Record<string, unknown>;
const MISMATCH = "apiserver_validation_declarative_validation_mismatch_total";
const csrSpec = (parse(readFileSync(join(import.meta.dirname, "../../shared/api/samples/certificates-v1/certificatesigningrequest.yaml"), "utf8")) as { spec: Obj }).spec;

/** A declared kind, a deliberate extra declaration, and an object that breaks only it. */
interface KindCase {
  kind: string;
  key: string;
  field: string;
  tags: string[];
  reason: string;
  path: (api: TestApiserver) => string;
  object: (api: TestApiserver, name: string) => Obj;
}

const rbac = (api: TestApiserver) => api.profile.group("rbac");
const CASES: KindCase[] = [
  {
    kind: "CertificateSigningRequest",
    key: "certificates/CertificateSigningRequest",
    field: "spec.expirationSeconds",
    tags: ["+k8s:optional", "+k8s:minimum=1000"],
    reason: "FieldValueInvalid",
    path: (api) => `/apis/${api.profile.group("certificates")}/v1/certificatesigningrequests`,
    object: (api, name) => ({ apiVersion: `${api.profile.group("certificates")}/v1`, kind: "CertificateSigningRequest", metadata: { name }, spec: { ...csrSpec, signerName: "example.com/signer", expirationSeconds: 700 } }),
  },
  {
    kind: "PriorityClass",
    key: "scheduling/PriorityClass",
    field: "description",
    tags: ["+k8s:optional", "+k8s:maxLength=3"],
    reason: "FieldValueTooLong",
    path: (api) => `/apis/${api.profile.group("scheduling")}/v1/priorityclasses`,
    object: (api, name) => ({ apiVersion: `${api.profile.group("scheduling")}/v1`, kind: "PriorityClass", metadata: { name }, value: 10, description: "longer than three" }),
  },
  {
    kind: "ClusterRoleBinding",
    key: "rbac/ClusterRoleBinding",
    field: "roleRef.name",
    tags: ["+k8s:maxLength=3"],
    reason: "FieldValueTooLong",
    path: (api) => `/apis/${rbac(api)}/v1/clusterrolebindings`,
    object: (api, name) => ({ apiVersion: `${rbac(api)}/v1`, kind: "ClusterRoleBinding", metadata: { name }, roleRef: { apiGroup: rbac(api), kind: "ClusterRole", name: "view" }, subjects: [] }),
  },
  {
    kind: "RoleBinding",
    key: "rbac/RoleBinding",
    field: "roleRef.name",
    tags: ["+k8s:maxLength=3"],
    reason: "FieldValueTooLong",
    path: (api) => `/apis/${rbac(api)}/v1/namespaces/default/rolebindings`,
    object: (api, name) => ({ apiVersion: `${rbac(api)}/v1`, kind: "RoleBinding", metadata: { name }, roleRef: { apiGroup: rbac(api), kind: "ClusterRole", name: "view" }, subjects: [] }),
  },
  {
    kind: "Deployment",
    key: "apps/Deployment",
    field: "spec.minReadySeconds",
    tags: ["+k8s:optional", "+k8s:minimum=10"],
    reason: "FieldValueInvalid",
    path: () => "/apis/apps/v1/namespaces/default/deployments",
    object: (_api, name) => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name },
      spec: { minReadySeconds: 5, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "busybox" }] } } },
    }),
  },
];

/** The shipped table and the later releases' migrations, with every case's deliberate declaration added. */
function withDeliberateMismatches(): DeclarativeDeclarations {
  const table: Record<string, Record<string, readonly string[]>> = {};
  for (const [key, fields] of Object.entries({ ...BUILTIN_DECLARATIONS, ...LATER_RELEASE_DECLARATIONS })) table[key] = { ...fields };
  for (const c of CASES) {
    expect(table[c.key], `${c.key} is declared as shipped`).toBeDefined();
    table[c.key][c.field] = c.tags;
  }
  expect(table[SCALE_DECLARATIONS_KEY], "the Scale is declared as shipped").toBeDefined();
  table[SCALE_DECLARATIONS_KEY]["spec.replicas"] = ["+k8s:optional", "+k8s:minimum=2"];
  return table;
}

const RC_BASE = "/api/v1/namespaces/default/replicationcontrollers";

/** Creates a ReplicationController of 3 replicas and scales it to 1 through `/scale` (allowed by hand, not by the deliberate Scale rule). */
async function scaleToOne(api: TestApiserver, name: string): Promise<{ status: number; text: string; json<T>(): T }> {
  const rc = { apiVersion: "v1", kind: "ReplicationController", metadata: { name }, spec: { replicas: 3, selector: { app: name }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "busybox" }] } } } };
  const created = await api.admin.post(RC_BASE, rc);
  expect(created.status, created.text).toBe(201);
  const scale = await api.admin.get(`${RC_BASE}/${name}/scale`);
  expect(scale.status, scale.text).toBe(200);
  const body = scale.json<{ spec: Obj }>();
  return api.admin.put(`${RC_BASE}/${name}/scale`, { ...body, spec: { ...body.spec, replicas: 1 } });
}

async function counter(api: TestApiserver, name: string): Promise<number> {
  const line = (await api.admin.get("/metrics")).text.split("\n").find((l) => l.startsWith(`${name} `));
  expect(line, `${name} on /metrics`).toBeDefined();
  return Number(line?.split(" ")[1]);
}

type Cause = { field?: string; reason?: string; message?: string };

describe("declarative validation per kind with the default gates", () => {
  let api: TestApiserver;
  beforeAll(async () => {
    api = await startTestApiserver({ profileId: "kubernetes", declarativeValidation: withDeliberateMismatches() });
  });
  afterAll(async () => {
    await api?.close();
  });

  it.each(CASES)("$kind: a rule only the declarative side has is counted, and the hand-written result answers", async (c) => {
    const before = await counter(api, MISMATCH);
    const res = await api.admin.post(c.path(api), c.object(api, `mismatch-${c.kind.toLowerCase()}`));
    expect(res.status, res.text).toBe(201);
    expect(await counter(api, MISMATCH)).toBe(before + 1);
  });

  it("ReplicationController /scale: a Scale rule only the declarative side has is counted, and the hand-written result answers", async () => {
    const before = await counter(api, MISMATCH);
    const res = await scaleToOne(api, "mismatch-scale");
    expect(res.status, res.text).toBe(200);
    expect(res.json<{ spec: { replicas: number } }>().spec.replicas).toBe(1);
    expect(await counter(api, MISMATCH)).toBe(before + 1);
  });
});

describe("declarative validation per kind with DeclarativeValidationTakeover", () => {
  let api: TestApiserver;
  beforeAll(async () => {
    const gates = new FeatureGates();
    gates.set(["DeclarativeValidationTakeover=true"]);
    api = await startTestApiserver({ profileId: "kubernetes", gates, declarativeValidation: withDeliberateMismatches() });
  });
  afterAll(async () => {
    await api?.close();
  });

  it.each(CASES)("$kind: the declarative error answers", async (c) => {
    const res = await api.admin.post(c.path(api), c.object(api, `takeover-${c.kind.toLowerCase()}`));
    expect(res.status, res.text).toBe(422);
    const causes = res.json<{ details?: { causes?: Cause[] } }>().details?.causes ?? [];
    expect(causes).toEqual([expect.objectContaining({ field: c.field, reason: c.reason })]);
  });

  it("ReplicationController /scale: the declarative error answers", async () => {
    const res = await scaleToOne(api, "takeover-scale");
    expect(res.status, res.text).toBe(422);
    const causes = res.json<{ details?: { causes?: Cause[] } }>().details?.causes ?? [];
    expect(causes).toEqual([expect.objectContaining({ field: "spec.replicas", reason: "FieldValueInvalid", message: expect.stringContaining("must be greater than or equal to 2") })]);
  });
});
