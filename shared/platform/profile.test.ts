import { describe, expect, it } from "vitest";
import { GROUP_KEYS, KUBERNETES_NAMES, PLAT_NAMES, type ProfileNames } from "./names.ts";
import { getProfile, profileFromArgs } from "./profile.ts";

/** Flattens a names table to dotted keys → string values for comparison. */
function flatten(value: unknown, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  if (typeof value === "string") out.set(prefix, value);
  else if (Array.isArray(value)) value.forEach((v, i) => flatten(v, `${prefix}[${i}]`).forEach((x, k) => out.set(k, x)));
  else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k).forEach((x, key) => out.set(key, x));
  return out;
}

describe("platform profile tables", () => {
  const tables: Array<[string, ProfileNames]> = [
    ["plat", PLAT_NAMES],
    ["kubernetes", KUBERNETES_NAMES],
  ];

  it("both tables name the same things", () => {
    const plat = [...flatten(PLAT_NAMES).keys()].filter((k) => !k.startsWith("reservedDomains")).sort();
    const kube = [...flatten(KUBERNETES_NAMES).keys()].filter((k) => !k.startsWith("reservedDomains")).sort();
    expect(kube).toEqual(plat);
  });

  it("the plat table never spells the kubernetes names and vice versa", () => {
    for (const [key, value] of flatten(PLAT_NAMES)) {
      expect(value, key).not.toMatch(/k8s|kubernetes|kube-/i);
    }
    for (const [key, value] of flatten(KUBERNETES_NAMES)) {
      expect(value, key).not.toMatch(/plat/i);
    }
  });

  it.each([
    ["plat", "rbac", "v1", "rbac.authorization.plat.io/v1"],
    ["kubernetes", "rbac", "v1", "rbac.authorization.k8s.io/v1"],
    ["plat", "core", "v1", "v1"],
    ["kubernetes", "apps", "v1", "apps/v1"],
    ["kubernetes", "coordination", "v1", "coordination.k8s.io/v1"],
  ] as const)("%s: apiVersion(%s, %s) = %s", (id, group, version, expected) => {
    expect(getProfile(id).apiVersion(group, version)).toBe(expected);
  });

  it.each(tables)("%s: every group key maps back from its wire name", (id) => {
    const p = getProfile(id);
    for (const key of GROUP_KEYS) expect(p.groupKey(p.group(key))).toBe(key);
    expect(p.groupKey("example.com")).toBeUndefined();
  });

  it("derives the spec's names for the default profile", () => {
    const p = getProfile();
    expect(p.ext.listType).toBe("x-plat-list-type");
    expect(p.ext.listMapKeys).toBe("x-plat-list-map-keys");
    expect(p.ext.mapType).toBe("x-plat-map-type");
    expect(p.ext.preserveUnknownFields).toBe("x-plat-preserve-unknown-fields");
    expect(p.protobufMediaType).toBe("application/vnd.plat.protobuf");
    expect(p.defaultNamespaces).toEqual(["default", "plat-system", "plat-public", "plat-node-lease"]);
    expect(p.execInfoEnv).toBe("PLAT_EXEC_INFO");
    expect(p.secretTypes.bootstrapToken).toBe("bootstrap.plat.io/token");
    expect(p.labels.bootstrapping).toBe("plat.io/bootstrapping");
    expect(p.taints.unreachable).toBe("node.plat.io/unreachable");
    expect(p.metaGroup).toBe("meta.plat.io");
  });

  it("derives the public clients' names for the kubernetes profile", () => {
    const p = getProfile("kubernetes");
    expect(p.ext.groupVersionKind).toBe("x-kubernetes-group-version-kind");
    expect(p.protobufMediaType).toBe("application/vnd.kubernetes.protobuf");
    expect(p.defaultNamespaces).toEqual(["default", "kube-system", "kube-public", "kube-node-lease"]);
    expect(p.execInfoEnv).toBe("KUBERNETES_EXEC_INFO");
    expect(p.labels.hostname).toBe("kubernetes.io/hostname");
    expect(p.secretTypes.serviceAccountToken).toBe("kubernetes.io/service-account-token");
    expect(p.definitionName("apps", "v1", "Deployment")).toBe("io.k8s.api.apps.v1.Deployment");
    expect(p.definitionName("meta", "v1", "ObjectMeta")).toBe("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    expect(p.definitionName("apiextensions", "v1", "CustomResourceDefinition")).toBe(
      "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
    );
  });

  it("selects the profile from --profile flags and rejects unknown ones", () => {
    expect(profileFromArgs([]).id).toBe("plat");
    expect(profileFromArgs(["--profile", "kubernetes"]).id).toBe("kubernetes");
    expect(profileFromArgs(["--x", "--profile=plat"]).id).toBe("plat");
    expect(() => profileFromArgs(["--profile", "nope"])).toThrow(/unknown profile "nope"/);
  });
});
