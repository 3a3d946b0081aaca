/**
 * admissionregistration/v1beta1: MutatingAdmissionPolicy and
 * MutatingAdmissionPolicyBinding (cluster-scoped, category `api-extensions`).
 * Served only while the `MutatingAdmissionPolicy` feature gate is on (beta,
 * off by default), so these kinds are not part of `builtinKinds`: the replica
 * adds them when the gate is enabled.
 *
 * A policy mutates the objects it matches with CEL `mutations`: an
 * `ApplyConfiguration` (an `Object{...}` merged like a server-side apply) or a
 * `JSONPatch` (a list of `JSONPatch{...}` operations). Match constraints,
 * match conditions, variables, params and bindings are shaped as in
 * ValidatingAdmissionPolicy (admissionregistration/v1). Defaults:
 * `failurePolicy: Fail`, `reinvocationPolicy: Never`.
 */
import { enumOf, list, named, obj, str, withOpts } from "../../schema/build.ts";
import type { KindDefinition, Schema } from "../../schema/types.ts";
import { ageColumn, listAt, strAt } from "../table-cells.ts";
import { matchCondition, matchResources, paramKind, paramRef, paramRefCell, variable } from "./admissionregistration-v1.ts";
import { objectKind } from "./meta-v1.ts";

const AR = (name: string, schema: Schema) => named("admissionregistration", "v1beta1", name, schema);

export const PATCH_TYPES = ["ApplyConfiguration", "JSONPatch"];

const expressionOf = (name: string, description: string) => AR(name, obj({ expression: str({ description }) }));

export const mutation = AR(
  "Mutation",
  obj(
    {
      patchType: enumOf(PATCH_TYPES, { description: "ApplyConfiguration or JSONPatch." }),
      applyConfiguration: expressionOf("ApplyConfiguration", "A CEL expression yielding an Object{...} merged into the object as a server-side apply would."),
      jsonPatch: expressionOf("JSONPatch", "A CEL expression yielding a list of JSONPatch{op, path, value, from} operations."),
    },
    { required: ["patchType"] },
  ),
);

export const mutatingAdmissionPolicySpec = AR(
  "MutatingAdmissionPolicySpec",
  obj({
    paramKind,
    matchConstraints: withOpts(matchResources, { description: "The requests the policy is meant for; resourceRules are required." }),
    variables: list(variable, { listType: "atomic", description: "Named CEL expressions shared by the others." }),
    mutations: list(mutation, { listType: "atomic", description: "The mutations, applied in order." }),
    failurePolicy: enumOf(["Ignore", "Fail"], { default: "Fail", description: "What an evaluation error does: Ignore or Fail." }),
    matchConditions: list(matchCondition, { listType: "map", mapKeys: ["name"], patchStrategy: "merge", patchMergeKey: "name", description: "CEL conditions; all must be true." }),
    reinvocationPolicy: enumOf(["Never", "IfNeeded"], { default: "Never", description: "Never, or IfNeeded (run again when later mutations changed the object)." }),
  }),
);

export const mutatingAdmissionPolicyBindingSpec = AR(
  "MutatingAdmissionPolicyBindingSpec",
  obj({
    policyName: str({ description: "Name of the bound MutatingAdmissionPolicy." }),
    paramRef,
    matchResources: withOpts(matchResources, { description: "Narrows the policy's matchConstraints; unset means all of them." }),
  }),
);

const base = { group: "admissionregistration" as const, version: "v1beta1", namespaced: false, categories: ["api-extensions"] };

export const mutatingAdmissionPolicyKinds: KindDefinition[] = [
  {
    ...base,
    kind: "MutatingAdmissionPolicy",
    plural: "mutatingadmissionpolicies",
    singular: "mutatingadmissionpolicy",
    schema: objectKind({ spec: mutatingAdmissionPolicySpec }),
    tableColumns: [{ name: "Mutations", type: "integer", description: "Number of mutations.", cell: (o) => listAt(o, "spec.mutations").length }, ageColumn],
  },
  {
    ...base,
    kind: "MutatingAdmissionPolicyBinding",
    plural: "mutatingadmissionpolicybindings",
    singular: "mutatingadmissionpolicybinding",
    schema: objectKind({ spec: mutatingAdmissionPolicyBindingSpec }),
    tableColumns: [
      { name: "PolicyName", type: "string", description: "The bound policy.", cell: (o) => strAt(o, "spec.policyName") },
      { name: "ParamRef", type: "string", description: "The parameter resource.", cell: paramRefCell },
      ageColumn,
    ],
  },
];
