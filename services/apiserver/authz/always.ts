/** The trivial modes, and the privileged-group bypass that precedes every chain. */
import { ALLOW, DENY, NO_OPINION, PRIVILEGED_GROUP, type Attributes, type Authorizer, type Decision, type RuleResolver, type RulesResult, type UserInfo } from "./types.ts";

export class AlwaysAllowAuthorizer implements Authorizer, RuleResolver {
  readonly name = "AlwaysAllow";

  authorize(): Decision {
    return ALLOW();
  }

  rulesFor(): RulesResult {
    return {
      resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
      nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
      incomplete: false,
      errors: [],
    };
  }
}

export class AlwaysDenyAuthorizer implements Authorizer, RuleResolver {
  readonly name = "AlwaysDeny";

  authorize(): Decision {
    return DENY("Everything is forbidden.");
  }

  rulesFor(): RulesResult {
    return { resourceRules: [], nonResourceRules: [], incomplete: false, errors: [] };
  }
}

/** Allows members of the given groups everything (`system:masters` by default). */
export class PrivilegedGroupsAuthorizer implements Authorizer, RuleResolver {
  readonly name = "PrivilegedGroups";

  constructor(readonly groups: readonly string[] = [PRIVILEGED_GROUP]) {}

  authorize(attrs: Attributes): Decision {
    return attrs.user.groups.some((g) => this.groups.includes(g)) ? ALLOW() : NO_OPINION();
  }

  rulesFor(user: UserInfo): RulesResult {
    if (user.groups.some((g) => this.groups.includes(g))) return new AlwaysAllowAuthorizer().rulesFor();
    return { resourceRules: [], nonResourceRules: [], incomplete: false, errors: [] };
  }
}
