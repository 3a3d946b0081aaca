/**
 * Role and binding resolution, pure over an `RbacSource` snapshot:
 * - a ClusterRoleBinding grants its ClusterRole everywhere;
 * - a RoleBinding grants its Role (same namespace) or ClusterRole only in the
 *   binding's namespace;
 * - subjects are Users (by name), Groups (by membership) and ServiceAccounts
 *   (`system:serviceaccount:<namespace>:<name>`, the namespace defaulting to the binding's).
 */
import { serviceAccountUsername, type UserInfo } from "../types.ts";
import type { ClusterRole, PolicyRule, Role, RoleBinding, RoleRef, Subject } from "./types.ts";

/** The RBAC objects an authorizer reads; implementations keep them in memory (source.ts). */
export interface RbacSource {
  getRole(namespace: string, name: string): Role | undefined;
  getClusterRole(name: string): ClusterRole | undefined;
  listRoleBindings(namespace: string): readonly RoleBinding[];
  listClusterRoleBindings(): readonly RoleBinding[];
}

/** A fixed set of objects (tests, and the static policy of the Node authorizer). */
export class StaticRbacSource implements RbacSource {
  constructor(
    readonly roles: Role[] = [],
    readonly clusterRoles: ClusterRole[] = [],
    readonly roleBindings: RoleBinding[] = [],
    readonly clusterRoleBindings: RoleBinding[] = [],
  ) {}

  getRole(namespace: string, name: string): Role | undefined {
    return this.roles.find((r) => r.metadata.namespace === namespace && r.metadata.name === name);
  }

  getClusterRole(name: string): ClusterRole | undefined {
    return this.clusterRoles.find((r) => r.metadata.name === name);
  }

  listRoleBindings(namespace: string): readonly RoleBinding[] {
    return this.roleBindings.filter((b) => b.metadata.namespace === namespace);
  }

  listClusterRoleBindings(): readonly RoleBinding[] {
    return this.clusterRoleBindings;
  }
}

/** Whether a binding subject names this user; `bindingNamespace` is "" for cluster bindings. */
export function appliesTo(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case "User":
      return user.username === subject.name;
    case "Group":
      return user.groups.includes(subject.name);
    case "ServiceAccount": {
      const ns = subject.namespace || bindingNamespace;
      return ns !== "" && user.username === serviceAccountUsername(ns, subject.name);
    }
    default:
      return false;
  }
}

export function bindingAppliesTo(user: UserInfo, binding: RoleBinding, bindingNamespace: string): Subject | undefined {
  return (binding.subjects ?? []).find((s) => appliesTo(user, s, bindingNamespace));
}

/** The rules a roleRef points at, or an error text when the role does not exist. */
export function roleRefRules(source: RbacSource, ref: RoleRef, bindingNamespace: string): { rules: PolicyRule[]; error?: string } {
  if (ref.kind === "ClusterRole") {
    const role = source.getClusterRole(ref.name);
    return role ? { rules: role.rules ?? [] } : { rules: [], error: `clusterrole.rbac "${ref.name}" not found` };
  }
  if (ref.kind === "Role") {
    if (bindingNamespace === "") return { rules: [], error: `role "${ref.name}" referenced by a cluster binding` };
    const role = source.getRole(bindingNamespace, ref.name);
    return role ? { rules: role.rules ?? [] } : { rules: [], error: `role.rbac "${ref.name}" not found` };
  }
  return { rules: [], error: `unsupported role reference kind: "${ref.kind}"` };
}

export interface RuleOrigin {
  /** `ClusterRoleBinding "x" of ClusterRole "y" to User "u"` style description. */
  describe(): string;
}

/**
 * Calls `visit` with every rule the user holds in `namespace` (cluster bindings
 * first, then the namespace's bindings); errors are missing roles. `visit`
 * returns false to stop early.
 */
export function visitRulesFor(
  source: RbacSource,
  user: UserInfo,
  namespace: string,
  visit: (origin: RuleOrigin | undefined, rule: PolicyRule | undefined, error: string | undefined) => boolean,
): void {
  for (const b of source.listClusterRoleBindings()) {
    const subject = bindingAppliesTo(user, b, "");
    if (!subject) continue;
    const { rules, error } = roleRefRules(source, b.roleRef, "");
    if (error && !visit(undefined, undefined, error)) return;
    const origin = { describe: () => `ClusterRoleBinding "${b.metadata.name}" of ${b.roleRef.kind} "${b.roleRef.name}" to ${subject.kind} "${subject.name}"` };
    for (const r of rules) if (!visit(origin, r, undefined)) return;
  }
  if (namespace === "") return;
  for (const b of source.listRoleBindings(namespace)) {
    const subject = bindingAppliesTo(user, b, namespace);
    if (!subject) continue;
    const { rules, error } = roleRefRules(source, b.roleRef, namespace);
    if (error && !visit(undefined, undefined, error)) return;
    const origin = {
      describe: () => `RoleBinding "${b.metadata.name}/${namespace}" of ${b.roleRef.kind} "${b.roleRef.name}" to ${subject.kind} "${subject.name}"`,
    };
    for (const r of rules) if (!visit(origin, r, undefined)) return;
  }
}

/** Every rule the user holds in a namespace ("" for cluster scope), plus resolution errors. */
export function rulesFor(source: RbacSource, user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
  const rules: PolicyRule[] = [];
  const errors: string[] = [];
  visitRulesFor(source, user, namespace, (_origin, rule, error) => {
    if (rule) rules.push(rule);
    if (error) errors.push(error);
    return true;
  });
  return { rules, errors };
}
