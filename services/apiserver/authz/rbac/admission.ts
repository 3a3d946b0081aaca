/**
 * Escalation prevention for writes of roles and bindings, called from the
 * registry's validating admission hook:
 * - creating or updating a Role/ClusterRole needs every permission it grants at
 *   that scope, or the `escalate` verb on it; an aggregationRule needs
 *   cluster-wide `*` (or `escalate`);
 * - creating or updating a RoleBinding/ClusterRoleBinding needs every permission
 *   of the referenced role at the binding's scope, or the `bind` verb on that role;
 * - `system:masters` and writes without a user (the server's own) pass.
 */
import { forbiddenWithReason, isStatusError } from "../../../../shared/api/status.ts";
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import type { Catalog } from "../../registry/catalog.ts";
import type { AdmissionOperation, WriteContext } from "../../registry/registry.ts";
import type { JsonObject } from "../../storage/object.ts";
import { PRIVILEGED_GROUP, type Authorizer, type UserInfo } from "../types.ts";
import { covers, ruleListsEqual } from "./escalation.ts";
import { roleRefRules, rulesFor, type RbacSource } from "./resolve.ts";
import { ruleString } from "./rules.ts";
import { rulesOf, type PolicyRule, type RoleRef, type Subject } from "./types.ts";

export interface RbacAdmissionDeps {
  profile: PlatformProfile;
  /** The configured authorizer chain (asked for `escalate` and `bind`). */
  authorizer: Authorizer;
  /** Where the user's own rules come from (the RBAC source of the replica). */
  source: RbacSource;
  /** When given, referenced roles are read from storage (fresh) instead of the source snapshot. */
  catalog?: Catalog;
}

export type AdmissionValidate = (op: AdmissionOperation, obj: JsonObject, old: JsonObject | undefined, ctx: WriteContext) => Promise<void>;

async function allowedVerb(deps: RbacAdmissionDeps, user: UserInfo, verb: string, resource: string, namespace: string, name: string): Promise<boolean> {
  const d = await deps.authorizer.authorize({
    user,
    verb,
    isResourceRequest: true,
    path: "",
    namespace,
    apiGroup: deps.profile.group("rbac"),
    apiVersion: "v1",
    resource,
    subresource: "",
    name,
  });
  return d.decision === "Allow";
}

function escalationMessage(user: UserInfo, uncovered: PolicyRule[], errors: string[]): string {
  let msg = `user ${JSON.stringify(user.username)} (groups=${JSON.stringify(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${uncovered.map(ruleString).join("\n")}`;
  if (errors.length > 0) msg += `; resolution errors: [${errors.join(" ")}]`;
  return msg;
}

async function referencedRules(deps: RbacAdmissionDeps, ref: RoleRef, namespace: string): Promise<{ rules: PolicyRule[]; error?: string }> {
  if (deps.catalog && (ref.kind === "Role" || ref.kind === "ClusterRole")) {
    const served = deps.catalog.lookup(deps.profile.group("rbac"), "v1", ref.kind === "Role" ? "roles" : "clusterroles");
    if (served) {
      try {
        const obj = await served.registry.get(ref.kind === "Role" ? namespace : undefined, ref.name);
        return { rules: rulesOf(obj) };
      } catch (err) {
        if (isStatusError(err, "NotFound")) return { rules: [], error: `${ref.kind === "Role" ? "role" : "clusterrole"}.rbac "${ref.name}" not found` };
        throw err;
      }
    }
  }
  return roleRefRules(deps.source, ref, namespace);
}

function subjectsOf(obj: JsonObject | undefined): Subject[] {
  return Array.isArray(obj?.subjects) ? (obj.subjects as Subject[]) : [];
}

/** The validate hook; ignores every resource but the four RBAC kinds, and deletes. */
export function rbacAdmission(deps: RbacAdmissionDeps): AdmissionValidate {
  return async (op, obj, old, ctx) => {
    if (op === "DELETE" || ctx.resource.group !== deps.profile.group("rbac") || ctx.subresource) return;
    const user = ctx.user;
    if (!user || user.groups.includes(PRIVILEGED_GROUP)) return;
    const plural = ctx.resource.plural;
    const namespace = ctx.namespace ?? "";
    const name = ctx.name;
    const scope = plural === "roles" || plural === "rolebindings" ? namespace : "";

    if (plural === "roles" || plural === "clusterroles") {
      const rules = rulesOf(obj);
      const aggregation = plural === "clusterroles" ? obj.aggregationRule : undefined;
      if (op === "UPDATE" && old && ruleListsEqual(rules, rulesOf(old)) && JSON.stringify(aggregation) === JSON.stringify(old.aggregationRule)) return;
      if (await allowedVerb(deps, user, "escalate", plural, scope, name)) return;
      const own = rulesFor(deps.source, user, scope);
      const requested = aggregation !== undefined && aggregation !== null ? [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }, ...rules] : rules;
      const { uncovered } = covers(own.rules, requested);
      if (uncovered.length > 0) {
        throw forbiddenWithReason(plural, name, escalationMessage(user, uncovered, own.errors), ctx.resource.group);
      }
      return;
    }

    if (plural === "rolebindings" || plural === "clusterrolebindings") {
      const ref = obj.roleRef as RoleRef | undefined;
      if (!ref || typeof ref.name !== "string") return;
      if (op === "UPDATE" && old && JSON.stringify(subjectsOf(obj)) === JSON.stringify(subjectsOf(old)) && JSON.stringify(ref) === JSON.stringify(old.roleRef)) return;
      const refResource = ref.kind === "Role" ? "roles" : "clusterroles";
      if (await allowedVerb(deps, user, "bind", refResource, scope, ref.name)) return;
      const target = await referencedRules(deps, ref, scope);
      if (target.error) throw forbiddenWithReason(plural, name, target.error, ctx.resource.group);
      const own = rulesFor(deps.source, user, scope);
      const { uncovered } = covers(own.rules, target.rules);
      if (uncovered.length > 0) throw forbiddenWithReason(plural, name, escalationMessage(user, uncovered, own.errors), ctx.resource.group);
    }
  };
}
