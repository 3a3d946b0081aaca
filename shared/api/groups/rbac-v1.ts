/**
 * rbac/v1: Role, ClusterRole, RoleBinding, ClusterRoleBinding.
 *
 * This module exports a factory, `makeKinds(profile)`, rather than a constant:
 * the RBAC group's own wire name is part of the data (the default `apiGroup`
 * of User and Group subjects and of `roleRef`, and the only value validation
 * accepts there), and only the naming profile may spell it. The schemas
 * themselves do not depend on the profile and are exported as constants.
 *
 * Protobuf field numbers are the platform's (rbac/v1 generated.proto). Names of
 * all four kinds are path-segment names (Part 1, naming rule 3).
 */
import type { PlatformProfile } from "../../platform/index.ts";
import { enumOf, list, named, obj, str, tag, withOpts, format } from "../../schema/build.ts";
import { isDNS1123Subdomain } from "../../schema/formats.ts";
import type { FieldError, KindDefinition, Schema, TableColumn } from "../../schema/types.ts";
import { invalid, isObj, listField, notSupported, objField, required, strField, strList } from "../field-errors.ts";
import { ageColumn, listAt, strAt } from "../table-cells.ts";
import { labelSelector, objectKind } from "./meta-v1.ts";

const R = (name: string, schema: Schema) => named("rbac", "v1", name, schema);
const atomicStrings = (description: string) => list(str(), { listType: "atomic", description });

export const SUBJECT_KINDS = ["User", "Group", "ServiceAccount"] as const;

/** A PolicyRule as code reads it (the authorizer, ClusterRole aggregation); the schema below is its wire form. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export const policyRule = R(
  "PolicyRule",
  obj(
    {
      verbs: tag(1, atomicStrings("Verbs that apply to all listed resources or URLs; `*` means all verbs.")),
      apiGroups: tag(2, atomicStrings('API groups of the resources; "" is the core group and `*` all groups.')),
      resources: tag(3, atomicStrings("Resource types (`pods`, `pods/log`); `*` means all.")),
      resourceNames: tag(4, atomicStrings("Object names the rule is limited to; empty means no restriction.")),
      nonResourceURLs: tag(5, atomicStrings("Non-resource paths (`/healthz`); a final `*` is a suffix wildcard. ClusterRoles only.")),
    },
    { required: ["verbs"], description: "One grant: verbs on resources (or on non-resource URLs). Permissions are purely additive." },
  ),
);

export const aggregationRule = R(
  "AggregationRule",
  obj(
    {
      clusterRoleSelectors: tag(
        1,
        list(labelSelector, { listType: "atomic", description: "ClusterRoles matching any selector contribute their rules." }),
      ),
    },
    { description: "How the control plane fills `rules` of an aggregated ClusterRole." },
  ),
);

export const subject = R(
  "Subject",
  obj(
    {
      kind: tag(1, enumOf([...SUBJECT_KINDS], { description: "User, Group or ServiceAccount." })),
      apiGroup: tag(2, str({ description: 'The RBAC group for User and Group (the default), "" for ServiceAccount.' })),
      name: tag(3, str({ description: "Name of the subject; case-sensitive." })),
      namespace: tag(4, str({ description: "Namespace of a ServiceAccount subject." })),
    },
    { required: ["kind", "name"], mapType: "atomic", description: "A user, group or service account a binding applies to." },
  ),
);

export const roleRef = R(
  "RoleRef",
  obj(
    {
      apiGroup: tag(1, str({ description: "The RBAC group (the default); no other value is accepted." })),
      kind: tag(2, enumOf(["Role", "ClusterRole"], { description: "Role (RoleBinding only) or ClusterRole." })),
      name: tag(3, format("path-segment-name", { description: "Name of the referenced role." })),
    },
    { required: ["kind", "name"], mapType: "atomic", description: "The role a binding grants." },
  ),
);

const rules = tag(2, list(policyRule, { listType: "atomic", description: "The grants of this role." }));

export const roleSchema = objectKind({ rules });

export const clusterRoleSchema = objectKind({
  rules: withOpts(rules, { description: "The grants of this role; controller-managed when aggregationRule is set." }),
  aggregationRule: tag(3, aggregationRule),
});

const bindingFields = {
  subjects: tag(2, list(subject, { listType: "atomic", description: "Who the role is granted to." })),
  roleRef: tag(3, withOpts(roleRef, { immutable: true })),
};

export const roleBindingSchema = objectKind(bindingFields, { required: ["roleRef"] });
export const clusterRoleBindingSchema = objectKind(bindingFields, { required: ["roleRef"] });

/** `Created At` as the platform prints it for roles (RFC 3339, UTC). */
const createdAtColumn: TableColumn = {
  name: "Created At",
  type: "date",
  description: "Time the object was created.",
  path: "metadata.creationTimestamp",
};

/** Users, groups and service accounts of a binding as the CLI prints them (`ns/name` for service accounts). */
export function subjectStrings(binding: Record<string, unknown>): { users: string; groups: string; serviceAccounts: string } {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of listAt(binding, "subjects")) {
    const name = strAt(s, "name");
    switch (strAt(s, "kind")) {
      case "User":
        users.push(name);
        break;
      case "Group":
        groups.push(name);
        break;
      case "ServiceAccount": {
        const ns = strAt(s, "namespace");
        sas.push(ns ? `${ns}/${name}` : name);
        break;
      }
    }
  }
  return { users: users.join(", "), groups: groups.join(", "), serviceAccounts: sas.join(", ") };
}

const bindingColumns: TableColumn[] = [
  { name: "Role", type: "string", description: "The role the binding grants (`Kind/name`).", cell: (o) => `${strAt(o, "roleRef.kind")}/${strAt(o, "roleRef.name")}` },
  ageColumn,
  { name: "Users", type: "string", priority: 1, description: "Users the role is granted to.", cell: (o) => subjectStrings(o).users },
  { name: "Groups", type: "string", priority: 1, description: "Groups the role is granted to.", cell: (o) => subjectStrings(o).groups },
  {
    name: "ServiceAccounts",
    type: "string",
    priority: 1,
    description: "Service accounts the role is granted to.",
    cell: (o) => subjectStrings(o).serviceAccounts,
  },
];

// ---- defaulting ------------------------------------------------------------

/** Fills `apiGroup` of subjects and of `roleRef` (the RBAC group for User, Group and roleRef). */
function bindingDefaulter(rbacGroup: string): (obj: Record<string, unknown>) => void {
  return (obj) => {
    for (const s of listField(obj, "subjects")) {
      if (!isObj(s) || strField(s, "apiGroup") !== "") continue;
      // ServiceAccount subjects default to the core group "", which the wire form omits.
      if (s.kind === "User" || s.kind === "Group") s.apiGroup = rbacGroup;
    }
    const ref = objField(obj, "roleRef");
    if (ref && strField(ref, "apiGroup") === "") ref.apiGroup = rbacGroup;
  };
}

// ---- validation beyond the schema -----------------------------------------

function validatePolicyRules(obj: Record<string, unknown>, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  listField(obj, "rules").forEach((rule, i) => {
    if (!isObj(rule)) return;
    const p = `rules[${i}]`;
    const nonResourceURLs = strList(rule, "nonResourceURLs");
    const apiGroups = listField(rule, "apiGroups");
    const resources = listField(rule, "resources");
    const resourceNames = listField(rule, "resourceNames");
    if (Array.isArray(rule.verbs) && rule.verbs.length === 0) errs.push(required(`${p}.verbs`, "verbs must contain at least one value"));
    if (nonResourceURLs.length > 0) {
      if (namespaced) errs.push(invalid(`${p}.nonResourceURLs`, nonResourceURLs, "namespaced rules cannot apply to non-resource URLs"));
      if (apiGroups.length > 0 || resources.length > 0 || resourceNames.length > 0) {
        errs.push(invalid(`${p}.nonResourceURLs`, nonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"));
      }
      return;
    }
    if (apiGroups.length === 0) errs.push(required(`${p}.apiGroups`, "resource rules must supply at least one api group"));
    if (resources.length === 0) errs.push(required(`${p}.resources`, "resource rules must supply at least one resource"));
    if (resourceNames.length > 0 && resources.length > 1) {
      errs.push(required(`${p}.resourceNames`, "resource names cannot apply to multiple resources"));
    }
  });
  return errs;
}

function validateBinding(obj: Record<string, unknown>, rbacGroup: string, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = objField(obj, "roleRef");
  if (ref) {
    const apiGroup = strField(ref, "apiGroup");
    if (apiGroup !== rbacGroup) errs.push(notSupported("roleRef.apiGroup", apiGroup, [rbacGroup]));
    // The schema's enum accepts Role and ClusterRole; a cluster binding takes ClusterRole only.
    if (!namespaced && typeof ref.kind === "string" && ref.kind === "Role") errs.push(notSupported("roleRef.kind", ref.kind, ["ClusterRole"]));
  }
  listField(obj, "subjects").forEach((s, i) => {
    if (!isObj(s)) return;
    const p = `subjects[${i}]`;
    const name = strField(s, "name");
    const apiGroup = strField(s, "apiGroup");
    switch (s.kind) {
      case "ServiceAccount":
        if (name) for (const m of isDNS1123Subdomain(name)) errs.push(invalid(`${p}.name`, name, m));
        if (apiGroup !== "") errs.push(notSupported(`${p}.apiGroup`, apiGroup, [""]));
        if (!namespaced && strField(s, "namespace") === "") errs.push(required(`${p}.namespace`));
        break;
      case "User":
      case "Group":
        if (typeof s.name === "string" && name === "") {
          errs.push(invalid(`${p}.name`, name, `${s.kind === "User" ? "user" : "group"} name cannot be empty`));
        }
        if (apiGroup !== rbacGroup) errs.push(notSupported(`${p}.apiGroup`, apiGroup, [rbacGroup]));
        break;
    }
  });
  return errs;
}

// ---- kinds -------------------------------------------------------------------

export function makeKinds(profile: PlatformProfile): KindDefinition[] {
  const rbacGroup = profile.group("rbac");
  // The RBAC kinds allow create on update (a PUT of a missing object creates it, still under the escalation checks).
  const base = { group: "rbac" as const, version: "v1", protobuf: true, nameFormat: "path-segment-name" as const, allowCreateOnUpdate: true };
  return [
    {
      ...base,
      kind: "Role",
      plural: "roles",
      singular: "role",
      namespaced: true,
      schema: roleSchema,
      tableColumns: [createdAtColumn],
      validateKind: (obj) => validatePolicyRules(obj, true),
    },
    {
      ...base,
      kind: "ClusterRole",
      plural: "clusterroles",
      singular: "clusterrole",
      namespaced: false,
      schema: clusterRoleSchema,
      tableColumns: [createdAtColumn],
      validateKind: (obj) => validatePolicyRules(obj, false),
    },
    {
      ...base,
      kind: "RoleBinding",
      plural: "rolebindings",
      singular: "rolebinding",
      namespaced: true,
      schema: roleBindingSchema,
      tableColumns: bindingColumns,
      defaulter: bindingDefaulter(rbacGroup),
      validateKind: (obj) => validateBinding(obj, rbacGroup, true),
    },
    {
      ...base,
      kind: "ClusterRoleBinding",
      plural: "clusterrolebindings",
      singular: "clusterrolebinding",
      namespaced: false,
      schema: clusterRoleBindingSchema,
      tableColumns: bindingColumns,
      defaulter: bindingDefaulter(rbacGroup),
      validateKind: (obj) => validateBinding(obj, rbacGroup, false),
    },
  ];
}
