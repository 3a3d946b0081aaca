import { describe, expect, it } from "vitest";
import { builtinKinds } from "../../../../shared/api/groups/index.ts";
import { getProfile } from "../../../../shared/platform/index.ts";
import { compileMutatingPolicy } from "./mutating-compile.ts";
import { mutate } from "./mutating-evaluate.ts";

const deploymentSchema = builtinKinds(getProfile("kubernetes")).find((d) => d.kind === "Deployment")?.schema;

const policy = (mutations: Array<[string, string]>, extra: Record<string, unknown> = {}) =>
  compileMutatingPolicy({
    metadata: { name: "p" },
    spec: {
      ...extra,
      mutations: mutations.map(([patchType, expression]) => (patchType === "JSONPatch" ? { patchType, jsonPatch: { expression } } : { patchType, applyConfiguration: { expression } })),
    },
  });

const deployment = () => ({
  metadata: { name: "web", labels: { app: "web" } },
  spec: { replicas: 1, template: { spec: { containers: [{ name: "app", image: "nginx:1" }, { name: "side", image: "busybox" }] } } },
});
const input = (object: Record<string, unknown>) => ({ object, oldObject: undefined, request: {}, params: undefined, namespaceObject: undefined, authorizer: undefined });

describe("mutating policy evaluation", () => {
  it("merges an apply configuration: maps field by field, list-maps by key", async () => {
    const p = policy([["ApplyConfiguration", "Object{spec: Object.spec{replicas: 3, template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: 'app', image: 'nginx:2'}]}}}}"]]);
    const r = await mutate(p, input(deployment()), deploymentSchema);
    expect(r.errors).toEqual([]);
    expect(r.changed).toBe(true);
    expect(r.object.spec).toEqual({ replicas: 3, template: { spec: { containers: [{ name: "app", image: "nginx:2" }, { name: "side", image: "busybox" }] } } });
  });

  const rows: Array<[string, Array<[string, string]>, unknown]> = [
    ["a JSON patch", [["JSONPatch", "[JSONPatch{op: 'replace', path: '/spec/replicas', value: object.spec.replicas + 4}]"]], 5],
    ["mutations in order, each on the result of the one before", [["JSONPatch", "[JSONPatch{op: 'replace', path: '/spec/replicas', value: 2}]"], ["ApplyConfiguration", "Object{spec: Object.spec{replicas: object.spec.replicas * 10}}"]], 20],
  ];
  it.each(rows)("applies %s", async (_name, mutations, replicas) => {
    const r = await mutate(policy(mutations), input(deployment()), deploymentSchema);
    expect(r.errors).toEqual([]);
    expect((r.object.spec as { replicas: number }).replicas).toBe(replicas);
  });

  it("skips a failing mutation, records its error and runs the next", async () => {
    const r = await mutate(policy([["JSONPatch", "[JSONPatch{op: 'remove', path: '/spec/nope'}]"], ["ApplyConfiguration", "Object{spec: Object.spec{replicas: 7}}"]]), input(deployment()), deploymentSchema);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatch(/^JSON Patch: /);
    expect((r.object.spec as { replicas: number }).replicas).toBe(7);
  });

  it("does nothing when a match condition is false, and reports a condition error", async () => {
    const no = await mutate(policy([["ApplyConfiguration", "Object{spec: Object.spec{replicas: 9}}"]], { matchConditions: [{ name: "big", expression: "object.spec.replicas > 5" }] }), input(deployment()), deploymentSchema);
    expect(no).toEqual({ object: deployment(), changed: false, errors: [] });
    const bad = await mutate(policy([["ApplyConfiguration", "Object{}"]], { matchConditions: [{ name: "x", expression: "object.spec.nope > 5" }] }), input(deployment()), deploymentSchema);
    expect(bad.errors[0]).toMatch(/resulted in error: no such key: nope/);
  });

  it("keeps a compile problem for the failure policy", () => {
    expect(policy([["ApplyConfiguration", "Object{spec: "]]).problem).toMatch(/compilation failed/);
    expect(compileMutatingPolicy({ spec: { mutations: [{ patchType: "JSONPatch" }] } }).problem).toBe("spec.mutations[0]: jsonPatch.expression is required");
  });
});
