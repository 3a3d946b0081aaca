/**
 * The RBAC authorizer: allows a request when any rule the user holds at the
 * request's scope allows it; otherwise no opinion (RBAC never denies, since
 * permissions are purely additive). Missing roles are reported in the reason.
 */
import { NO_OPINION, ALLOW, type Attributes, type Authorizer, type Decision, type RuleResolver, type RulesResult, type UserInfo } from "../types.ts";
import { rulesFor, visitRulesFor, type RbacSource } from "./resolve.ts";
import { ruleAllows } from "./rules.ts";

export class RbacAuthorizer implements Authorizer, RuleResolver {
  readonly name = "RBAC";

  constructor(readonly source: RbacSource) {}

  authorize(attrs: Attributes): Decision {
    let allowedBy: string | undefined;
    const errors: string[] = [];
    visitRulesFor(this.source, attrs.user, attrs.namespace, (origin, rule, error) => {
      if (error) errors.push(error);
      if (rule && origin && ruleAllows(attrs, rule)) {
        allowedBy = origin.describe();
        return false;
      }
      return true;
    });
    if (allowedBy !== undefined) return ALLOW(`RBAC: allowed by ${allowedBy}`);
    return errors.length > 0 ? NO_OPINION(`RBAC: ${errors.join(", ")}`) : NO_OPINION();
  }

  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const { rules, errors } = rulesFor(this.source, user, namespace);
    const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: errors.length > 0, errors };
    for (const r of rules) {
      if ((r.nonResourceURLs ?? []).length > 0) out.nonResourceRules.push({ verbs: [...r.verbs], nonResourceURLs: [...(r.nonResourceURLs ?? [])] });
      else {
        const rr: RulesResult["resourceRules"][number] = { verbs: [...r.verbs], apiGroups: [...(r.apiGroups ?? [])], resources: [...(r.resources ?? [])] };
        if ((r.resourceNames ?? []).length > 0) rr.resourceNames = [...(r.resourceNames ?? [])];
        out.resourceRules.push(rr);
      }
    }
    return out;
  }
}
