import { describe, expect, it } from "vitest";
import { getProfile } from "../../../../shared/platform/index.ts";
import type { JsonObject } from "../../storage/object.ts";
import type { Attributes, Operation } from "../interfaces.ts";
import type { Equivalence } from "../webhooks/matching.ts";
import { PolicyDispatch } from "./dispatch.ts";
import { compiledMatch, type CompiledMatch } from "./match.ts";
import { bindingBase, type BindingBase, type PolicySources } from "./sources.ts";

const profile = getProfile("plat");
const apps = profile.group("apps");

interface Policy {
  name: string;
  match: CompiledMatch;
}

const rule = (resources: string[], extra: JsonObject = {}) => ({ apiGroups: [apps], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources, ...extra });
const policy = (name: string, constraints: JsonObject): Policy => ({ name, match: compiledMatch(constraints) });
const binding = (name: string, policyName: string, matchResources?: JsonObject): BindingBase =>
  bindingBase({ metadata: { name }, spec: { policyName, ...(matchResources ? { matchResources } : {}) } });

/** Sources whose lists can be replaced, as the watch does (a new array or map per change). */
function sources(policies: Policy[], bindings: BindingBase[]) {
  const s = {
    policies: new Map(policies.map((p) => [p.name, p])) as ReadonlyMap<string, Policy>,
    bindings: bindings as readonly BindingBase[],
  };
  const view: PolicySources<Policy, BindingBase> = { policies: () => s.policies, bindings: () => s.bindings, synced: Promise.resolve(), stop: () => {} };
  return { s, view };
}

function request(operation: Operation, resource: string, opts: { version?: string; subresource?: string; name?: string; namespace?: string } = {}): Attributes {
  return {
    operation,
    kind: { group: apps, version: opts.version ?? "v1", kind: "Deployment" },
    resource: { group: apps, version: opts.version ?? "v1", resource },
    subresource: opts.subresource ?? "",
    name: opts.name ?? "web",
    namespace: opts.namespace ?? "ns1",
    object: undefined,
    oldObject: undefined,
    options: undefined,
    userInfo: { username: "u", groups: [] },
    dryRun: false,
    namespaced: true,
    setObject: () => {},
    addWarning: () => {},
    addAnnotation: () => {},
    addAnnotationWithLevel: () => {},
  };
}

const names = (d: PolicyDispatch<Policy, BindingBase>, a: Attributes) => d.byRules(a).map((c) => `${c.binding.name}${c.version ? `@${c.version}` : ""}`);

describe("policy dispatch by request shape", () => {
  const policies = [
    policy("deployments", { resourceRules: [rule(["deployments"])] }),
    policy("all-but-status", { resourceRules: [rule(["*"])], excludeResourceRules: [rule(["deployments/status"])] }),
    policy("scale", { resourceRules: [rule(["deployments/scale"])] }),
    policy("named", { resourceRules: [rule(["deployments"], { resourceNames: ["web"] })] }),
    policy("v1beta1", { resourceRules: [{ ...rule(["deployments"]), apiVersions: ["v1beta1"] }] }),
  ];
  const bindings = [
    binding("b-all-but-status", "all-but-status"),
    binding("b-deployments", "deployments"),
    binding("b-deployments-update", "deployments", { resourceRules: [{ ...rule(["deployments"]), operations: ["UPDATE"] }] }),
    binding("b-missing", "no-such-policy"),
    binding("b-named", "named"),
    binding("b-scale", "scale"),
    binding("b-v1beta1", "v1beta1"),
  ];
  const equivalence: Equivalence = { versions: () => ["v1", "v1beta1"], convert: (o) => o };
  const { view } = sources(policies, bindings);
  const dispatch = new PolicyDispatch(view, profile, equivalence);

  const rows: Array<[string, Attributes, string[]]> = [
    ["create of a deployment", request("CREATE", "deployments"), ["b-all-but-status", "b-deployments", "b-named", "b-v1beta1@v1beta1"]],
    ["update of a deployment", request("UPDATE", "deployments"), ["b-all-but-status", "b-deployments", "b-deployments-update", "b-named", "b-v1beta1@v1beta1"]],
    ["another name", request("CREATE", "deployments", { name: "api" }), ["b-all-but-status", "b-deployments", "b-v1beta1@v1beta1"]],
    ["the status subresource (excluded)", request("UPDATE", "deployments", { subresource: "status" }), []],
    ["the scale subresource", request("UPDATE", "deployments", { subresource: "scale" }), ["b-scale"]],
    ["a delete (no rule)", request("DELETE", "deployments"), []],
    ["another resource", request("CREATE", "statefulsets"), ["b-all-but-status"]],
  ];
  it.each(rows)("%s", (_, a, want) => {
    expect(names(dispatch, a)).toEqual(want);
    // The second request of the same shape is answered from the index, with the same result.
    expect(names(dispatch, a)).toEqual(want);
  });
});

describe("policy dispatch after a change", () => {
  it("forgets its index when a policy or a binding changes", () => {
    const { s, view } = sources([policy("p", { resourceRules: [rule(["deployments"])] })], [binding("b", "p")]);
    const dispatch = new PolicyDispatch(view, profile, undefined);
    const a = request("CREATE", "deployments");
    expect(names(dispatch, a)).toEqual(["b"]);
    s.policies = new Map([["p", policy("p", { resourceRules: [rule(["statefulsets"])] })]]);
    expect(names(dispatch, a)).toEqual([]);
    s.bindings = [binding("b", "p"), binding("c", "q")];
    s.policies = new Map([
      ["p", policy("p", { resourceRules: [rule(["deployments"])] })],
      ["q", policy("q", { resourceRules: [rule(["*"])] })],
    ]);
    expect(names(dispatch, a)).toEqual(["b", "c"]);
    s.bindings = [];
    expect(names(dispatch, a)).toEqual([]);
  });
});
