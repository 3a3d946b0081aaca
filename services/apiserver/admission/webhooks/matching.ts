/**
 * Which webhooks a request calls: never for the admission configuration kinds
 * themselves; the rules (exact, else under matchPolicy Equivalent another served
 * version of the same group and resource, whose object form the webhook then
 * gets); namespaceSelector (the labels of the request's namespace, or of the
 * Namespace itself; cluster-scoped objects always match); objectSelector (the
 * new or the old object's labels); and the CEL match conditions (all true: call;
 * any false: skip; an error: the failure policy decides; `authorizer` asks the
 * replica's authorizer as the requester).
 */
import { internalError, statusError, type StatusDetails, type StatusError, type StatusReason } from "../../../../shared/api/status.ts";
import { AuthzSession, celValue, evaluateWithAuthorizer, newAuthorizer } from "../../../../shared/cel/index.ts";
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import type { JsonObject } from "../../storage/object.ts";
import type { CelAuthorize } from "../cel-authorizer.ts";
import type { Attributes, ObjectAccess } from "../interfaces.ts";
import type { Hook } from "./hook.ts";
import { anyRuleMatches, type RuleTarget } from "./rules.ts";

/** Served versions of a group/resource other than the request's, and the object converted to one of them. */
export interface Equivalence {
  versions(group: string, resource: string): string[];
  convert(obj: JsonObject, group: string, resource: string, from: string, to: string): JsonObject;
}

export interface MatchDeps {
  profile: PlatformProfile;
  objects: ObjectAccess;
  equivalence?: Equivalence;
  /** The replica's authorizer for the match conditions' `authorizer` variable. */
  authorize?: CelAuthorize;
  /** The request's namespace when it is already known (read once per request); else it is read from `objects`. */
  requestNamespace?: () => Promise<Readonly<JsonObject> | undefined>;
}

/** A matched webhook: the version it gets the object in (undefined: the request's). */
export interface Invocation {
  hook: Hook;
  version?: string;
}

const EXEMPT = new Set(["mutatingwebhookconfigurations", "validatingwebhookconfigurations", "validatingadmissionpolicies", "validatingadmissionpolicybindings", "mutatingadmissionpolicies", "mutatingadmissionpolicybindings"]);

export function isExempt(profile: PlatformProfile, a: Attributes): boolean {
  return a.resource.group === profile.group("admissionregistration") && EXEMPT.has(a.resource.resource);
}

function labels(obj: JsonObject | undefined): Record<string, string> | undefined {
  return (obj?.metadata as { labels?: Record<string, string> } | undefined)?.labels;
}

/** A failure that is subject to the webhook's failure policy. */
export class MatchError extends Error {}

/** Rules only (cheap; no lookups). */
export function matchRules(hook: Hook, a: Attributes, deps: MatchDeps): Invocation | undefined {
  const core = deps.profile.group("core");
  const target: RuleTarget = {
    operation: a.operation,
    group: a.resource.group,
    version: a.resource.version,
    resource: a.resource.resource,
    subresource: a.subresource,
    namespace: a.namespace,
    isNamespace: a.resource.group === core && a.resource.resource === "namespaces",
  };
  if (anyRuleMatches(hook.rules, target)) return { hook };
  if (hook.matchPolicy !== "Equivalent" || !deps.equivalence) return undefined;
  for (const v of deps.equivalence.versions(a.resource.group, a.resource.resource)) {
    if (v !== a.resource.version && anyRuleMatches(hook.rules, { ...target, version: v })) return { hook, version: v };
  }
  return undefined;
}

type Selectors = Pick<Hook, "objectSelector" | "namespaceSelector">;

/** Whether the request's object (or old object) carries the labels the object selector asks for. */
export function objectSelectorMatches(sel: Selectors, a: Attributes): boolean {
  return sel.objectSelector.empty() || sel.objectSelector.matches(labels(a.object) ?? {}) || sel.objectSelector.matches(labels(a.oldObject) ?? {});
}

function isNamespaceObject(profile: PlatformProfile, a: Attributes): boolean {
  return a.resource.group === profile.group("core") && a.resource.resource === "namespaces";
}

/** Whether the namespace selector needs the request's Namespace object (read with readNamespace). */
export function namespaceNeeded(sel: Selectors, a: Attributes, profile: PlatformProfile): boolean {
  return !sel.namespaceSelector.empty() && a.namespaced && a.namespace !== "" && !isNamespaceObject(profile, a);
}

/** The namespace selector over the request's namespace (`namespace`: read when namespaceNeeded says so). */
export function namespaceSelectorMatches(sel: Selectors, a: Attributes, profile: PlatformProfile, namespace: Readonly<JsonObject> | undefined): boolean {
  if (sel.namespaceSelector.empty()) return true;
  if (isNamespaceObject(profile, a)) return sel.namespaceSelector.matches(labels(a.object ?? a.oldObject) ?? {});
  if (!a.namespaced || a.namespace === "") return true;
  return sel.namespaceSelector.matches(labels(namespace) ?? {});
}

/**
 * The request's Namespace (read only): the watch cache's, in place when it can (`peek`),
 * else the store's; a MatchError when it cannot be read or is absent.
 */
export async function readNamespace(a: Attributes, deps: MatchDeps): Promise<Readonly<JsonObject>> {
  let ns: Readonly<JsonObject> | undefined;
  try {
    const ref = { group: deps.profile.group("core"), resource: "namespaces", name: a.namespace };
    ns = (deps.requestNamespace ? await deps.requestNamespace() : (deps.objects.peek?.(ref) ?? (await deps.objects.get(ref, { cached: true })))) ?? (await deps.objects.get(ref));
  } catch (err) {
    throw new MatchError(`failed to get namespace ${JSON.stringify(a.namespace)}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!ns) throw new MatchError(`namespace ${JSON.stringify(a.namespace)} not found`);
  return ns;
}

/** The selectors; throws MatchError when the namespace cannot be read. */
export async function matchSelectors(sel: Selectors, a: Attributes, deps: MatchDeps): Promise<boolean> {
  if (!objectSelectorMatches(sel, a)) return false;
  const namespace = namespaceNeeded(sel, a, deps.profile) ? await readNamespace(a, deps) : undefined;
  return namespaceSelectorMatches(sel, a, deps.profile, namespace);
}

/** The CEL variables of the match conditions. */
export function conditionRequest(a: Attributes): Record<string, unknown> {
  return {
    kind: a.kind,
    resource: a.resource,
    subResource: a.subresource,
    requestKind: a.kind,
    requestResource: a.resource,
    name: a.name,
    namespace: a.namespace,
    operation: a.operation,
    userInfo: { username: a.userInfo.username, uid: a.userInfo.uid ?? "", groups: a.userInfo.groups, extra: a.userInfo.extra ?? {} },
    dryRun: a.dryRun,
  };
}

/** One evaluation of every condition: false when one is false, else the errors. */
function evaluateConditions(hook: Hook, activation: Record<string, unknown>): { skip: boolean; errors: string[] } {
  const errors: string[] = [];
  for (const c of hook.matchConditions) {
    try {
      const { value } = c.program.evaluate(activation);
      if (value === false) return { skip: true, errors: [] };
      if (value !== true) errors.push(`expression '${c.program.source}' resulted in error: no such overload`);
    } catch (err) {
      errors.push(`expression '${c.program.source}' resulted in error: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { skip: false, errors };
}

/**
 * true: call; false: skip; a MatchError: the failure policy decides. The
 * `authorizer` variable asks `deps.authorize` as the requester (none: every
 * check is "no opinion"), its `requestResource` being the request's resource.
 */
export async function matchConditions(hook: Hook, a: Attributes, object: JsonObject | undefined, oldObject: JsonObject | undefined, authorize?: CelAuthorize): Promise<boolean> {
  if (hook.matchConditions.length === 0) return true;
  const named = (v: string) => hook.matchConditions.some((c) => c.program.references.has(v));
  const session = new AuthzSession();
  const r = a.resource;
  const authorizer = named("authorizer") ? newAuthorizer(session, a.userInfo, { group: r.group, version: r.version, resource: r.resource, subresource: a.subresource, namespace: a.namespace, name: a.name }) : undefined;
  // Converted to CEL values once for all the conditions, and only those the conditions name.
  const activation = {
    object: named("object") ? celValue(object ?? null) : undefined,
    oldObject: named("oldObject") ? celValue(oldObject ?? null) : undefined,
    request: named("request") ? celValue(conditionRequest(a)) : undefined,
    authorizer,
  };
  const evaluate = () => evaluateConditions(hook, activation);
  const { skip, errors } = authorize && authorizer ? await evaluateWithAuthorizer(session, evaluate, authorize) : evaluate();
  if (skip) return false;
  if (errors.length > 0) throw new MatchError(errors.join("; "));
  return true;
}

/** The error of a webhook whose call failed under failurePolicy Fail. */
export function callFailure(hook: Hook, reason: string): StatusError {
  return internalError(new Error(`failed calling webhook ${JSON.stringify(hook.name)}: ${reason}`));
}

/** The error of a denial, as the platform shapes it (`admission webhook "x" denied the request: ...`). */
export function denial(hook: Hook, status: JsonObject | undefined): StatusError {
  const deniedBy = `admission webhook ${JSON.stringify(hook.name)} denied the request`;
  const s = status ?? {};
  const code = typeof s.code === "number" && s.code >= 400 ? s.code : 400;
  const message = typeof s.message === "string" && s.message !== "" ? `${deniedBy}: ${s.message}` : typeof s.reason === "string" && s.reason !== "" ? `${deniedBy}: ${s.reason}` : `${deniedBy} without explanation`;
  return statusError({
    code,
    reason: (typeof s.reason === "string" ? s.reason : "") as StatusReason,
    message,
    ...(s.details && typeof s.details === "object" ? { details: s.details as StatusDetails } : {}),
  });
}
