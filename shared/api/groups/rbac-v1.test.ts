import { describe, expect, it } from "vitest";
import { getProfile } from "../../platform/index.ts";
import { validateImmutable } from "../../schema/index.ts";
import type { KindDefinition } from "../../schema/types.ts";
import { admit, defaultObject, deleteAt, loadSample, mutate, paths, sampleFile, setAt } from "../testing/sample-harness.ts";
import { makeKinds } from "./rbac-v1.ts";

const profile = getProfile();
const RBAC = profile.group("rbac");
const kinds = makeKinds(profile);
const byKind = (k: string): KindDefinition => {
  const d = kinds.find((x) => x.kind === k);
  if (!d) throw new Error(`no kind ${k}`);
  return d;
};
const sample = (k: string) => loadSample("rbac-v1", sampleFile(byKind(k)));
const errorPaths = (k: string, obj: Record<string, unknown>) => paths(admit(byKind(k), obj).errors);

describe("rbac/v1 kinds", () => {
  it("declares the four kinds with path-segment names, protobuf and scope", () => {
    expect(kinds.map((k) => [k.kind, k.plural, k.namespaced])).toEqual([
      ["Role", "roles", true],
      ["ClusterRole", "clusterroles", false],
      ["RoleBinding", "rolebindings", true],
      ["ClusterRoleBinding", "clusterrolebindings", false],
    ]);
    for (const k of kinds) {
      expect(k.nameFormat).toBe("path-segment-name");
      expect(k.protobuf).toBe(true);
      expect(k.group).toBe("rbac");
    }
  });

  it("prints the platform's table columns", () => {
    expect(byKind("Role").tableColumns?.map((c) => c.name)).toEqual(["Created At"]);
    expect(byKind("ClusterRole").tableColumns?.map((c) => c.name)).toEqual(["Created At"]);
    for (const k of ["RoleBinding", "ClusterRoleBinding"]) {
      const cols = byKind(k).tableColumns ?? [];
      expect(cols.map((c) => [c.name, c.priority ?? 0])).toEqual([
        ["Role", 0],
        ["Age", 0],
        ["Users", 1],
        ["Groups", 1],
        ["ServiceAccounts", 1],
      ]);
    }
    const rb = sample("RoleBinding");
    const cells = (byKind("RoleBinding").tableColumns ?? []).map((c) => c.cell?.(rb));
    expect(cells[0]).toBe("Role/pod-reader");
    expect(cells.slice(2)).toEqual(["jane", "team-a-oncall", "observability/log-shipper"]);
  });

  it("uses the platform's protobuf field numbers", () => {
    const props = byKind("ClusterRoleBinding").schema.properties ?? {};
    expect(props.metadata.protoTag).toBe(1);
    expect(props.subjects.protoTag).toBe(2);
    expect(props.roleRef.protoTag).toBe(3);
    const rule = byKind("Role").schema.properties?.rules.items?.properties ?? {};
    expect(Object.fromEntries(Object.entries(rule).map(([k, v]) => [k, v.protoTag]))).toEqual({
      verbs: 1,
      apiGroups: 2,
      resources: 3,
      resourceNames: 4,
      nonResourceURLs: 5,
    });
    const subj = byKind("RoleBinding").schema.properties?.subjects.items?.properties ?? {};
    expect([subj.kind.protoTag, subj.apiGroup.protoTag, subj.name.protoTag, subj.namespace.protoTag]).toEqual([1, 2, 3, 4]);
  });
});

describe("rbac/v1 samples", () => {
  for (const def of kinds) {
    it(`${def.kind}: decodes with no unknown fields and no errors; defaulting is idempotent`, () => {
      const obj = sample(def.kind);
      expect(obj.apiVersion).toBe(profile.apiVersion("rbac", "v1"));
      expect(obj.kind).toBe(def.kind);
      const { unknown, defaulted, errors } = admit(def, obj);
      expect(unknown).toEqual([]);
      expect(errors).toEqual([]);
      expect(defaultObject(def, defaulted)).toEqual(defaulted);
    });
  }

  it("defaults subject apiGroup by kind and roleRef apiGroup to the RBAC group", () => {
    const d = defaultObject(byKind("RoleBinding"), sample("RoleBinding"));
    const subjects = d.subjects as Array<Record<string, unknown>>;
    expect(subjects[0]).toEqual({ kind: "User", name: "jane", apiGroup: RBAC });
    expect(subjects[1].apiGroup).toBe(RBAC);
    // ServiceAccount subjects belong to the core group "", which the wire form omits.
    expect(subjects[2]).toEqual({ kind: "ServiceAccount", name: "log-shipper", namespace: "observability" });
    expect(d.roleRef).toEqual({ kind: "Role", name: "pod-reader", apiGroup: RBAC });
  });

  it("the kubernetes profile defaults to its own RBAC group", () => {
    const k8s = getProfile("kubernetes");
    const rb = makeKinds(k8s).find((k) => k.kind === "RoleBinding") as KindDefinition;
    const d = defaultObject(rb, sample("RoleBinding"));
    expect((d.roleRef as Record<string, unknown>).apiGroup).toBe(k8s.group("rbac"));
    expect(k8s.group("rbac")).not.toBe(RBAC);
  });
});

describe("rbac/v1 rejects bad objects with the platform's field paths", () => {
  it("unknown nested field", () => {
    const bad = mutate(sample("Role"), (o) => setAt(o, "rules[1].verb", ["get"]));
    expect(admit(byKind("Role"), bad).unknown).toEqual(["rules[1].verb"]);
    const bad2 = mutate(sample("RoleBinding"), (o) => setAt(o, "roleRef.namespace", "team-a"));
    expect(admit(byKind("RoleBinding"), bad2).unknown).toEqual(["roleRef.namespace"]);
  });

  it("wrong type", () => {
    const bad = mutate(sample("Role"), (o) => setAt(o, "rules[0].verbs", "get"));
    expect(errorPaths("Role", bad)).toEqual(["rules[0].verbs"]);
    const bad2 = mutate(sample("ClusterRole"), (o) => setAt(o, "aggregationRule.clusterRoleSelectors", { matchLabels: {} }));
    expect(errorPaths("ClusterRole", bad2)).toEqual(["aggregationRule.clusterRoleSelectors"]);
  });

  it("bad name: not a path segment", () => {
    for (const name of ["a/b", "..", "50%"]) {
      const bad = mutate(sample("ClusterRoleBinding"), (o) => setAt(o, "metadata.name", name));
      expect(errorPaths("ClusterRoleBinding", bad)).toEqual(["metadata.name"]);
    }
    // Colons and upper case are fine for RBAC names (system:basic-user).
    const ok = mutate(sample("ClusterRole"), (o) => setAt(o, "metadata.name", "system:Basic-User"));
    expect(errorPaths("ClusterRole", ok)).toEqual([]);
    const badRef = mutate(sample("RoleBinding"), (o) => setAt(o, "roleRef.name", "x/y"));
    expect(errorPaths("RoleBinding", badRef)).toEqual(["roleRef.name"]);
  });

  it("missing required fields", () => {
    expect(errorPaths("RoleBinding", mutate(sample("RoleBinding"), (o) => deleteAt(o, "roleRef")))).toEqual(["roleRef"]);
    expect(errorPaths("RoleBinding", mutate(sample("RoleBinding"), (o) => deleteAt(o, "roleRef.name")))).toEqual(["roleRef.name"]);
    expect(errorPaths("Role", mutate(sample("Role"), (o) => deleteAt(o, "rules[0].verbs")))).toEqual(["rules[0].verbs"]);
    expect(errorPaths("Role", mutate(sample("Role"), (o) => setAt(o, "rules[0].verbs", [])))).toEqual(["rules[0].verbs"]);
    expect(errorPaths("Role", mutate(sample("Role"), (o) => deleteAt(o, "rules[0].apiGroups")))).toEqual(["rules[0].apiGroups"]);
    expect(errorPaths("RoleBinding", mutate(sample("RoleBinding"), (o) => deleteAt(o, "subjects[0].name")))).toEqual(["subjects[0].name"]);
    // A cluster binding must name the service account's namespace.
    expect(errorPaths("ClusterRoleBinding", mutate(sample("ClusterRoleBinding"), (o) => deleteAt(o, "subjects[1].namespace")))).toEqual([
      "subjects[1].namespace",
    ]);
  });

  it("bad enum values", () => {
    const badSubject = mutate(sample("RoleBinding"), (o) => setAt(o, "subjects[0].kind", "Robot"));
    const r = admit(byKind("RoleBinding"), badSubject);
    expect(paths(r.errors)).toEqual(["subjects[0].kind"]);
    expect(r.errors[0].type).toBe("FieldValueNotSupported");
    expect(errorPaths("RoleBinding", mutate(sample("RoleBinding"), (o) => setAt(o, "roleRef.kind", "Group")))).toEqual(["roleRef.kind"]);
    // A ClusterRoleBinding may not reference a (namespaced) Role.
    const crb = mutate(sample("ClusterRoleBinding"), (o) => setAt(o, "roleRef.kind", "Role"));
    const e = admit(byKind("ClusterRoleBinding"), crb).errors;
    expect(paths(e)).toEqual(["roleRef.kind"]);
    expect(e[0].message).toBe('Unsupported value: "Role": supported values: "ClusterRole"');
  });

  it("apiGroup rules for subjects and roleRef", () => {
    const wrong = mutate(sample("RoleBinding"), (o) => {
      setAt(o, "subjects[0].apiGroup", "example.com");
      setAt(o, "subjects[2].apiGroup", RBAC);
      setAt(o, "roleRef.apiGroup", "example.com");
    });
    expect(errorPaths("RoleBinding", wrong)).toEqual(["roleRef.apiGroup", "subjects[0].apiGroup", "subjects[2].apiGroup"]);
    const badSA = mutate(sample("RoleBinding"), (o) => setAt(o, "subjects[2].name", "Log_Shipper"));
    expect(errorPaths("RoleBinding", badSA)).toEqual(["subjects[2].name"]);
  });

  it("rule shapes: non-resource URLs only in cluster roles and never with resources", () => {
    const nsRole = mutate(sample("Role"), (o) => setAt(o, "rules[0]", { nonResourceURLs: ["/healthz"], verbs: ["get"] }));
    const e = admit(byKind("Role"), nsRole).errors;
    expect(paths(e)).toEqual(["rules[0].nonResourceURLs"]);
    expect(e[0].message).toContain("namespaced rules cannot apply to non-resource URLs");
    const mixed = mutate(sample("ClusterRole"), (o) => setAt(o, "rules[3].resources", ["pods"]));
    expect(errorPaths("ClusterRole", mixed)).toEqual(["rules[3].nonResourceURLs"]);
    const names = mutate(sample("Role"), (o) => setAt(o, "rules[0].resourceNames", ["web"]));
    expect(errorPaths("Role", names)).toEqual(["rules[0].resourceNames"]);
  });

  it("roleRef is immutable", () => {
    for (const k of ["RoleBinding", "ClusterRoleBinding"]) {
      const def = byKind(k);
      const old = defaultObject(def, sample(k));
      const changed = mutate(old, (o) => setAt(o, "roleRef.name", "edit"));
      expect(paths(validateImmutable(def.schema, old, changed))).toEqual(["roleRef"]);
      const subjectsChanged = mutate(old, (o) => setAt(o, "subjects", []));
      expect(validateImmutable(def.schema, old, subjectsChanged)).toEqual([]);
    }
  });
});
