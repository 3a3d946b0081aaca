/**
 * Declarative validation over HTTPS (ReplicationController, the kind the platform's
 * release 1.35 validates declaratively that this server serves):
 * - with the default gates both validations run, the client gets the hand-written
 *   errors, and a declared rule the hand-written validation does not have is counted in
 *   `apiserver_validation_declarative_validation_mismatch_total` on /metrics;
 * - with `DeclarativeValidationTakeover=true` the client gets the declarative message.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeatureGates } from "../../services/apiserver/server/feature-gates.ts";
import { BUILTIN_DECLARATIONS } from "../../services/apiserver/registry/declarative-validation-rules.ts";
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

describe("declarative validation with the default gates", () => {
  let api: TestApiserver;
  beforeAll(async () => {
    // A deliberate mismatch: minReadySeconds declared with a minimum of 10, which the hand-written validation does not have.
    const rc = { ...BUILTIN_DECLARATIONS["core/ReplicationController"], "spec.minReadySeconds": ["+k8s:optional", "+k8s:minimum=10"] };
    api = await startTestApiserver({ profileId: "kubernetes", declarativeValidation: { "core/ReplicationController": rc } });
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
});

describe("declarative validation with DeclarativeValidationTakeover", () => {
  let api: TestApiserver;
  beforeAll(async () => {
    const gates = new FeatureGates();
    gates.set(["DeclarativeValidationTakeover=true"]);
    api = await startTestApiserver({ profileId: "kubernetes", gates });
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
});
