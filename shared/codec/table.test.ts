import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { kinds as appsKinds } from "../api/groups/apps-v1.ts";
import { kinds as coreKinds } from "../api/groups/core-v1.ts";
import { SAMPLES_DIR, defaultObject } from "../api/testing/sample-harness.ts";
import { getProfile } from "../platform/index.ts";
import { decodeYamlStrict } from "../schema/index.ts";
import type { KindDefinition } from "../schema/types.ts";
import { tableColumnDefinitions, toTable, watchEventTable } from "./table.ts";

type Obj = Record<string, unknown>;
const profile = getProfile();
const kube = getProfile("kubernetes");
const def = (kind: string): KindDefinition => {
  const d = [...coreKinds, ...appsKinds].find((k) => k.kind === kind);
  if (!d) throw new Error(kind);
  return d;
};
const sample = (dir: string, file: string, kind: KindDefinition): Obj =>
  defaultObject(kind, decodeYamlStrict(readFileSync(join(SAMPLES_DIR, dir, file), "utf8").split(/^---\s*$/m)[0]).value as Obj);

const NOW = Date.parse("2024-05-01T12:00:00Z");
const pod = def("Pod");
const deployment = def("Deployment");
const configMap = def("ConfigMap");
const withMeta = (o: Obj, meta: Obj): Obj => ({ ...o, metadata: { ...(o.metadata as Obj), ...meta } });

describe("toTable", () => {
  const p = withMeta(sample("core-v1", "pod.yaml", pod), { creationTimestamp: "2024-05-01T11:55:00Z", resourceVersion: "41" });
  const d = withMeta(sample("apps-v1", "deployment.yaml", deployment), { creationTimestamp: "2024-04-28T12:00:00Z", resourceVersion: "42" });
  const cm = withMeta(sample("core-v1", "configmap.yaml", configMap), { creationTimestamp: "2024-05-01T11:59:30Z", resourceVersion: "43" });

  it("has the platform's Table shape with the meta group of the profile", () => {
    const t = toTable(configMap, { metadata: { resourceVersion: "100", continue: "next", remainingItemCount: 5 }, items: [cm] }, { profile, now: NOW });
    expect(Object.keys(t)).toEqual(["kind", "apiVersion", "metadata", "columnDefinitions", "rows"]);
    expect(t.kind).toBe("Table");
    expect(t.apiVersion).toBe(`${profile.metaGroup}/v1`);
    expect(toTable(configMap, [cm], { profile: kube, now: NOW }).apiVersion).toBe(`${kube.metaGroup}/v1`);
    expect(t.metadata).toEqual({ resourceVersion: "100", continue: "next", remainingItemCount: 5 });
    for (const c of t.columnDefinitions) expect(Object.keys(c)).toEqual(["name", "type", "format", "description", "priority"]);
    expect(t.columnDefinitions.map((c) => c.name)).toEqual(["Name", "Data", "Age"]);
    expect(t.columnDefinitions[0]).toMatchObject({ name: "Name", type: "string", format: "name", priority: 0 });
    const data = (cm.data && typeof cm.data === "object" ? Object.keys(cm.data).length : 0) + (cm.binaryData && typeof cm.binaryData === "object" ? Object.keys(cm.binaryData).length : 0);
    expect(t.rows).toEqual([{ cells: [(cm.metadata as Obj).name, data, "30s"], object: { kind: "PartialObjectMetadata", apiVersion: `${profile.metaGroup}/v1`, metadata: cm.metadata } }]);
  });

  it("renders pods with Name first and the wide columns at priority 1", () => {
    const t = toTable(pod, p, { profile, now: NOW, includeObject: "None" });
    const names = t.columnDefinitions.map((c) => c.name);
    expect(names.slice(0, 6)).toEqual(["Name", "Ready", "Status", "Restarts", "Age", "IP"]);
    expect(t.columnDefinitions.filter((c) => c.priority === 1).map((c) => c.name)).toContain("Node");
    expect(t.rows[0].cells[0]).toBe((p.metadata as Obj).name);
    expect(t.rows[0].cells[names.indexOf("Age")]).toBe("5m");
    expect(t.rows[0].cells).toHaveLength(names.length);
    expect(t.rows[0].object).toBeNull();
    expect(t.metadata).toEqual({ resourceVersion: "41" });
  });

  it("renders deployments, including the whole object on request", () => {
    const t = toTable(deployment, d, { profile, now: NOW, includeObject: "Object" });
    expect(t.columnDefinitions.map((c) => c.name).slice(0, 5)).toEqual(["Name", "Ready", "Up-to-date", "Available", "Age"]);
    expect(t.rows[0].cells[4]).toBe("3d");
    expect(t.rows[0].object).toEqual({ ...d, apiVersion: profile.apiVersion("apps", "v1"), kind: "Deployment" });
  });

  it("gives a kind without columns Name and Created At", () => {
    const plain: KindDefinition = { ...configMap, tableColumns: undefined };
    const t = toTable(plain, [cm, { metadata: { name: "no-time" } }], { profile, now: NOW });
    expect(t.columnDefinitions.map(({ name, type, format }) => ({ name, type, format }))).toEqual([
      { name: "Name", type: "string", format: "name" },
      { name: "Created At", type: "date", format: "" },
    ]);
    expect(t.rows.map((r) => r.cells)).toEqual([
      [(cm.metadata as Obj).name, "2024-05-01T11:59:30Z"],
      ["no-time", "0001-01-01T00:00:00Z"],
    ]);
    expect(tableColumnDefinitions(plain)).toHaveLength(2);
  });

  it("renders an empty list with headers, and no headers on request", () => {
    const t = toTable(pod, { metadata: { resourceVersion: "7" }, items: [] }, { profile, now: NOW });
    expect(t.rows).toEqual([]);
    expect(t.columnDefinitions.length).toBeGreaterThan(2);
    expect(toTable(pod, [], { profile, noHeaders: true }).columnDefinitions).toEqual([]);
  });

  it("renders watch events as one-row tables; bookmarks as empty tables; errors unchanged", () => {
    const ev = watchEventTable(configMap, { type: "MODIFIED", object: cm }, { profile, now: NOW });
    expect(ev.type).toBe("MODIFIED");
    expect(ev.object).toMatchObject({ kind: "Table", metadata: { resourceVersion: "43" }, rows: [{ cells: [(cm.metadata as Obj).name, expect.anything(), "30s"] }] });
    const bm = watchEventTable(configMap, { type: "BOOKMARK", object: { kind: "ConfigMap", metadata: { resourceVersion: "99" } } }, { profile });
    expect(bm.object).toMatchObject({ kind: "Table", metadata: { resourceVersion: "99" }, rows: [] });
    const err = { type: "ERROR", object: { kind: "Status", apiVersion: "v1", code: 410 } };
    expect(watchEventTable(configMap, err, { profile })).toBe(err);
  });
});
