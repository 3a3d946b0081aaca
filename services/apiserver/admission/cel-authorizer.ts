/**
 * The replica's authorizer as CEL's `authorizer` variable asks it, for every
 * admission CEL site (policies' expressions and match conditions, webhooks'
 * match conditions): the full decision with reason and error when the replica
 * has it, else the yes/no check as Allow/NoOpinion (a replica without an
 * authorizer allows everything).
 */
import type { AuthzAnswer, AuthzQuery } from "../../../shared/cel/index.ts";
import type { PluginContext } from "./interfaces.ts";

export type CelAuthorize = (q: AuthzQuery) => Promise<AuthzAnswer>;

export function celAuthorizer(ctx: Pick<PluginContext, "authorize" | "authorizeDecision">): CelAuthorize {
  return async (q) => {
    const { verb, isResourceRequest, path, group, version, resource, subresource, namespace, name } = q;
    if (ctx.authorizeDecision) return ctx.authorizeDecision(q.user, { verb, isResourceRequest, path, group, version, resource, subresource, namespace, name });
    const allowed = await ctx.authorize(q.user, { verb, group, version, resource, subresource, namespace, name });
    return allowed ? { decision: "Allow", reason: "" } : { decision: "NoOpinion", reason: "" };
  };
}
