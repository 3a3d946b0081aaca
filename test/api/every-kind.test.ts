import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinKinds } from "../../shared/api/groups/index.ts";
import { decodeObject } from "../../shared/codec/protobuf/index.ts";
import { getProfile } from "../../shared/platform/index.ts";
import type { KindDefinition } from "../../shared/schema/types.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

/**
 * Every stored built-in kind through HTTPS with its sample manifests: create with
 * Strict validation, get (JSON and protobuf agree), update unchanged (no new
 * version), delete; and an unknown nested field rejected in Strict mode.
 */
const SAMPLES = join(import.meta.dirname, "..", "..", "shared", "api", "samples");
const profile = getProfile("plat");
const NS = "kinds";
type Obj = Record<string, unknown> & { metadata: Record<string, unknown> };

function samplesOf(def: KindDefinition): Obj[] {
  const file = join(SAMPLES, `${def.group === "core" ? "core" : def.group}-${def.version}`, `${def.kind.toLowerCase()}.yaml`);
  if (!existsSync(file)) return [];
  return parseAllDocuments(readFileSync(file, "utf8"))
    .map((d) => d.toJS() as Obj)
    .filter((o) => o && o.kind === def.kind);
}

function collectionPath(def: KindDefinition): string {
  const group = profile.group(def.group);
  const prefix = group === "" ? `/api/${def.version}` : `/apis/${group}/${def.version}`;
  return def.namespaced ? `${prefix}/namespaces/${NS}/${def.plural}` : `${prefix}/${def.plural}`;
}

const kinds = builtinKinds(profile).filter((k) => !k.virtual && samplesOf(k).length > 0 && k.plural !== "namespaces");

let api: TestApiserver;
beforeAll(async () => {
  api = await startTestApiserver();
  await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
  // What the Pod sample refers to must exist (the ServiceAccount and Priority admission plugins check).
  await api.admin.post(`/api/v1/namespaces/${NS}/serviceaccounts`, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "storefront" } });
  const scheduling = profile.group("scheduling");
  await api.admin.post(`/apis/${scheduling}/v1/priorityclasses`, { apiVersion: `${scheduling}/v1`, kind: "PriorityClass", metadata: { name: "business-critical" }, value: 100000 });
});
afterAll(async () => {
  await api?.close();
});

describe("every built-in kind over HTTPS", () => {
  it("has samples for the stored kinds", () => {
    expect(kinds.length).toBeGreaterThanOrEqual(40);
  });

  it.each(kinds.map((k) => [`${profile.apiVersion(k.group, k.version)} ${k.kind}`, k] as const))("%s: create (Strict), get, update, delete", async (_label, def) => {
    const path = collectionPath(def);
    const sample = structuredClone(samplesOf(def)[0]);
    // A CRD's name must be <plural>.<group>, an APIService's <version>.<group>, an IPAddress's its IP: keep the sample's.
    const name = def.kind === "CustomResourceDefinition" || def.kind === "APIService" || def.kind === "IPAddress" ? String(sample.metadata.name) : `${String(sample.metadata.name ?? "x").slice(0, 40)}-e2e`;
    sample.metadata = { ...sample.metadata, name, namespace: def.namespaced ? NS : undefined };
    delete sample.metadata.resourceVersion;
    delete sample.metadata.uid;
    // The samples' owners do not exist here: the garbage collector would delete such dependents.
    delete sample.metadata.ownerReferences;
    if (!def.namespaced) delete sample.metadata.namespace;
    // An Event's object is in the event's namespace here too (the platform checks they agree).
    const involved = (sample.involvedObject ?? sample.regarding) as Record<string, unknown> | undefined;
    if (def.kind === "Event" && involved?.namespace) involved.namespace = NS;
    const created = await api.admin.post(`${path}?fieldValidation=Strict`, sample);
    expect(created.status, created.text).toBe(201);
    let obj = created.json<Obj>();
    expect(obj.metadata.uid).toBeTruthy();
    // The server writes the status of a new CRD (NamesAccepted, Established) and of a new
    // ValidatingAdmissionPolicy (observedGeneration) right after the create: read it once settled.
    // A FlowSchema's Dangling condition is written by every replica's APF configuration.
    const settles = def.kind === "CustomResourceDefinition" || def.kind === "ValidatingAdmissionPolicy" || def.kind === "APIService" || def.kind === "FlowSchema";
    for (let i = 0; settles && i < 200; i++) {
      const cur = (await api.admin.get(`${path}/${name}`)).json<Obj & { status?: { observedGeneration?: number; conditions?: Array<{ type: string; status: string }> } }>();
      obj = cur;
      if (cur.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) break;
      if (def.kind === "ValidatingAdmissionPolicy" && cur.status?.observedGeneration !== undefined) break;
      // An APIService's Available condition is written by the aggregator's check.
      if (def.kind === "APIService" && cur.status?.conditions?.some((c) => c.type === "Available")) break;
      if (def.kind === "FlowSchema" && cur.status?.conditions?.some((c) => c.type === "Dangling")) break;
      await new Promise((r) => setTimeout(r, 25));
    }

    const got = await api.admin.get(`${path}/${name}`);
    expect(got.status).toBe(200);
    expect(got.json<Obj>().metadata.resourceVersion).toBe(obj.metadata.resourceVersion);
    if (def.protobuf) {
      const pb = await api.admin.get(`${path}/${name}`, { accept: profile.protobufMediaType });
      expect(pb.status).toBe(200);
      const decoded = decodeObject(def, pb.body) as Obj;
      expect(decoded.metadata.uid).toBe(obj.metadata.uid);
      expect(decoded.metadata.resourceVersion).toBe(obj.metadata.resourceVersion);
    }

    const same = await api.admin.put(`${path}/${name}?fieldValidation=Strict`, got.json<Obj>());
    expect(same.status, same.text).toBe(200);
    expect(same.json<Obj>().metadata.resourceVersion).toBe(obj.metadata.resourceVersion);

    const unknown = structuredClone(sample);
    unknown.metadata = { ...unknown.metadata, name: `${name}-u` };
    // Nested in spec where the kind has one; top level otherwise (data maps take any key).
    const holder = (def.schema.properties?.spec && unknown.spec ? unknown.spec : unknown) as Record<string, unknown>;
    holder.notAField = 1;
    const strict = await api.admin.post(`${path}?fieldValidation=Strict`, unknown);
    expect(strict.status, strict.text).toBe(400);
    expect(strict.json<{ message: string }>().message).toMatch(/unknown field ".*notAField"/);

    const del = await api.admin.delete(`${path}/${name}`);
    expect([200, 202]).toContain(del.status);
  });
});
