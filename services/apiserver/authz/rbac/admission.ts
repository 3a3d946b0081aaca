/**
 * Escalation prevention for writes of roles and bindings, an always-on
 * validating admission plugin (`rbacAdmission`; not named by the admission flags):
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
import { SERVER_USER } from "../../admission/attributes.ts";
import type { AdmissionPlugin, Attributes } from "../../admission/interfaces.ts";
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

export const RBAC_ESCALATION = "RBACEscalation";

/**
 * The validating plugin; ignores every resource but the four RBAC kinds, and deletes. Writes without a user (the server's own) pass.
 * A write outside the RBAC group is answered synchronously (no promise), so the chain's validating phase stays synchronous for it.
 */
export function rbacAdmission(deps: RbacAdmissionDeps): AdmissionPlugin {
  const group = deps.profile.group("rbac");
  return {
    name: RBAC_ESCALATION,
    handles: (op) => op === "CREATE" || op === "UPDATE",
    validate: (a) => (a.resource.group !== group || a.subresource ? undefined : check(deps, group, a)),
  };
}

async function check(deps: RbacAdmissionDeps, group: string, a: Attributes): Promise<void> {
  const op = a.operation;
  const obj = a.object;
  const old = a.oldObject;
  if (!obj) return;
  const user = a.userInfo;
  if (user.username === SERVER_USER.username || user.groups.includes(PRIVILEGED_GROUP)) return;
  const plural = a.resource.resource;
  const namespace = a.namespace;
  const name = a.name;
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
      throw forbiddenWithReason(plural, name, escalationMessage(user, uncovered, own.errors), group);
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
    if (target.error) throw forbiddenWithReason(plural, name, target.error, group);
    const own = rulesFor(deps.source, user, scope);
    const { uncovered } = covers(own.rules, target.rules);
    if (uncovered.length > 0) throw forbiddenWithReason(plural, name, escalationMessage(user, uncovered, own.errors), group);
  }
}
