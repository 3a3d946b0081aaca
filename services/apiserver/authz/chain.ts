/**
 * The authorizer chain of a replica. `buildAuthorizer(config, deps)` turns the
 * flags (or an AuthorizationConfiguration file) into one `authorize` function for
 * the request filter: the privileged group (`system:masters`) first, then the
 * configured authorizers in order; the first allow or deny wins; no opinion from
 * all is a 403 naming user, verb, resource and scope. Each mode's authorizer comes
 * from its factory (modes.ts); a configuration file is kept current by
 * config-reloader.ts.
 */
import type { LogFn } from "../../../shared/observability/logger.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { RequestInfo } from "../endpoints/request-info.ts";
import type { Catalog } from "../registry/catalog.ts";
import { PrivilegedGroupsAuthorizer } from "./always.ts";
import { attributesFor, forbiddenError } from "./attributes.ts";
import { AuthorizationConfigReloader, type ReloadStatus } from "./config-reloader.ts";
import { authorizersFromFlags, ModeState } from "./modes.ts";
import type { NodeGraph } from "./node-graph.ts";
import { validateAuthorizationFlags, type AuthorizationFlags } from "./options.ts";
import type { RbacAuthorizer } from "./rbac/authorizer.ts";
import type { RbacSource } from "./rbac/resolve.ts";
import { NO_OPINION, isRuleResolver, type Attributes, type Authorizer, type Decision, type RuleResolver, type RulesResult, type UserInfo } from "./types.ts";
import { withAuthorizationReason } from "../audit/authorization-reason.ts";

export { CONFIG_RELOAD_INTERVAL_MS, type ReloadStatus } from "./config-reloader.ts";


/** Runs authorizers in order: the first Allow or Deny decides; reasons of the others are kept. */
export class UnionAuthorizer implements Authorizer, RuleResolver {
  readonly name = "Union";

  constructor(readonly authorizers: readonly Authorizer[]) {}

  /** Synchronous while each authorizer asked answers synchronously (no promise, no turn); a promise from the first that does not. */
  authorize(attrs: Attributes): Promise<Decision> | Decision {
    return this.askFrom(0, attrs, [], []);
  }

  private askFrom(first: number, attrs: Attributes, reasons: string[], errors: string[]): Promise<Decision> | Decision {
    for (let i = first; i < this.authorizers.length; i++) {
      const d = this.authorizers[i].authorize(attrs);
      if (d instanceof Promise) return d.then((r) => (this.settled(r, reasons, errors) ? r : this.askFrom(i + 1, attrs, reasons, errors)));
      if (this.settled(d, reasons, errors)) return d;
    }
    return NO_OPINION(reasons.join("\n"), errors.length > 0 ? errors.join("; ") : undefined);
  }

  /** True for a decision that ends the walk; a NoOpinion's reason and error are kept. */
  private settled(d: Decision, reasons: string[], errors: string[]): boolean {
    if (d.decision !== "NoOpinion") return true;
    if (d.reason) reasons.push(d.reason);
    if (d.error) errors.push(d.error);
    return false;
  }

  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false, errors: [] };
    for (const a of this.authorizers) {
      if (!isRuleResolver(a)) {
        // Webhooks and the Node authorizer cannot enumerate what they allow.
        if (!(a instanceof PrivilegedGroupsAuthorizer)) out.incomplete = true;
        continue;
      }
      const r = a.rulesFor(user, namespace);
      out.resourceRules.push(...r.resourceRules);
      out.nonResourceRules.push(...r.nonResourceRules);
      out.incomplete ||= r.incomplete;
      out.errors.push(...r.errors);
    }
    return out;
  }
}

export interface AuthorizerDeps {
  profile: PlatformProfile;
  /** The replica's catalog: RBAC and Node state is watched through it. */
  catalog?: Catalog;
  /** An RBAC source to use instead of watching the catalog. */
  rbacSource?: RbacSource;
  /** A node graph to use instead of watching the catalog. */
  nodeGraph?: NodeGraph;
  /** `AuthorizeWithSelectors` gate (default true). */
  authorizeWithSelectors?: boolean;
  reloadIntervalMs?: number;
  now?: () => number;
  log?: LogFn;
}

export interface AuthorizationHandle {
  /**
   * For `startReplica({ authorize })`: allows (with the authorizer's reason) or throws a 403
   * StatusError to deny; synchronously when every authorizer asked answered synchronously,
   * else as a promise (which rejects to deny).
   */
  authorize(user: UserInfo, info: RequestInfo, req?: Request): string | Promise<string>;
  /** The current chain (privileged groups first), for reviews and admission. */
  readonly authorizer: Authorizer & RuleResolver;
  /** RBAC state when RBAC is configured (admission uses it for escalation checks). */
  readonly rbacSource?: RbacSource;
  readonly rbac?: RbacAuthorizer;
  /** Authorization attributes as this chain builds them. */
  attributes(user: UserInfo, info: RequestInfo): Attributes;
  reloadStatus(): ReloadStatus;
  /** Re-reads the configuration file now; false when it was rejected. */
  reload(): Promise<boolean>;
  close(): void;
}

/** Builds the chain (validating flags: throws the start-up error) and starts what it needs. */
/** The reason of an allowing decision; any other decision is thrown as the 403 Status. */
function allowedOrThrow(attrs: Attributes, d: Decision): string {
  if (d.decision === "Allow") return d.reason;
  throw withAuthorizationReason(forbiddenError(attrs, d.reason), d.reason);
}

export async function buildAuthorizer(config: AuthorizationFlags, deps: AuthorizerDeps): Promise<AuthorizationHandle> {
  validateAuthorizationFlags(config);
  const log: LogFn = deps.log ?? (() => {});
  const state = new ModeState({ profile: deps.profile, catalog: deps.catalog, rbacSource: deps.rbacSource, nodeGraph: deps.nodeGraph, now: deps.now, log });
  const privileged = new PrivilegedGroupsAuthorizer();
  let chain = new UnionAuthorizer([]);
  let reloader: AuthorizationConfigReloader | undefined;
  try {
    if (config.configFile !== undefined) {
      reloader = new AuthorizationConfigReloader({
        path: config.configFile,
        profile: deps.profile,
        state,
        onLoad: (authorizers) => (chain = new UnionAuthorizer([privileged, ...authorizers])),
        intervalMs: deps.reloadIntervalMs,
        now: deps.now,
        log,
      });
      await reloader.start();
    } else {
      chain = new UnionAuthorizer([privileged, ...(await authorizersFromFlags(state, config))]);
    }
  } catch (err) {
    reloader?.stop();
    state.close();
    throw err;
  }

  const current: Authorizer & RuleResolver = {
    name: "Chain",
    authorize: (attrs) => chain.authorize(attrs),
    rulesFor: (user, namespace) => chain.rulesFor(user, namespace),
  };
  const attributes = (user: UserInfo, info: RequestInfo) => attributesFor(user, info, { authorizeWithSelectors: deps.authorizeWithSelectors });

  return {
    authorizer: current,
    get rbacSource() {
      return state.rbacSource;
    },
    get rbac() {
      return state.rbac;
    },
    attributes,
    authorize(user, info) {
      const attrs = attributes(user, info);
      const d = chain.authorize(attrs);
      return d instanceof Promise ? d.then((r) => allowedOrThrow(attrs, r)) : allowedOrThrow(attrs, d);
    },
    reloadStatus: () => reloader?.status() ?? { loads: 0, failures: 0 },
    reload: async () => (reloader ? reloader.reload(true) : true),
    close() {
      reloader?.stop();
      state.close();
    },
  };
}
