/**
 * Authorization attributes of a request: built from the parsed request info and
 * the authenticated user, and turned back into the 403 Status of a denial.
 * With selector authorization on (the `AuthorizeWithSelectors` gate, default on),
 * the field and label selectors of list, watch and deletecollection requests are
 * parsed into requirements that authorizers (webhooks, the Node authorizer) read.
 */
import { parseFieldSelector, parseLabelSelector, type SelectorRequirement } from "../../../shared/api/selectors.ts";
import { forbidden, type StatusError } from "../../../shared/api/status.ts";
import type { RequestInfo } from "../endpoints/request-info.ts";
import type { Attributes, SelectorAttributes, UserInfo } from "./types.ts";

export interface AttributeOptions {
  /** Parse selectors into requirements (default true). */
  authorizeWithSelectors?: boolean;
}

function selector(raw: string | undefined, parse: (s: string) => SelectorRequirement[]): SelectorAttributes | undefined {
  if (raw === undefined || raw === "") return undefined;
  try {
    return { raw, requirements: parse(raw) };
  } catch (err) {
    return { raw, requirements: [], error: err instanceof Error ? err.message : String(err) };
  }
}

export function fieldSelectorAttributes(raw: string | undefined): SelectorAttributes | undefined {
  return selector(raw, (s) => parseFieldSelector(s).toRequirements());
}

export function labelSelectorAttributes(raw: string | undefined): SelectorAttributes | undefined {
  return selector(raw, (s) => parseLabelSelector(s).toRequirements());
}

type InfoFields = Pick<RequestInfo, "verb" | "isResourceRequest" | "path" | "namespace" | "apiGroup" | "resource" | "subresource" | "name"> &
  Partial<Pick<RequestInfo, "apiVersion" | "fieldSelector" | "labelSelector">>;

/** Attributes of one request. */
export function attributesFor(user: UserInfo, info: InfoFields, opts: AttributeOptions = {}): Attributes {
  const attrs: Attributes = {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    namespace: info.namespace,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion ?? "",
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
  if (opts.authorizeWithSelectors !== false && info.isResourceRequest) {
    const field = fieldSelectorAttributes(info.fieldSelector);
    const label = labelSelectorAttributes(info.labelSelector);
    if (field) attrs.fieldSelector = field;
    if (label) attrs.labelSelector = label;
  }
  return attrs;
}

/** True for get, list and watch (what ABAC's `readonly` and the Node authorizer call reads). */
export function isReadOnly(attrs: Pick<Attributes, "verb">): boolean {
  return attrs.verb === "get" || attrs.verb === "list" || attrs.verb === "watch";
}

/** `pods/log` style resource name used by rules. */
export function resourceWithSubresource(attrs: Pick<Attributes, "resource" | "subresource">): string {
  return attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
}

/** The value an `In` requirement with one value (or an exact `=` selector) fixes for `key`. */
export function requiredSelectorValue(sel: SelectorAttributes | undefined, key: string): string | undefined {
  if (!sel || sel.error) return undefined;
  for (const r of sel.requirements) {
    if (r.key === key && r.operator === "In" && r.values?.length === 1) return r.values[0];
  }
  return undefined;
}

/** The 403 of a request no authorizer allowed, naming user, verb, resource and scope. */
export function forbiddenError(attrs: Attributes, reason: string): StatusError {
  if (!attrs.isResourceRequest) return forbidden({ user: attrs.user.username, verb: attrs.verb, path: attrs.path, reason });
  return forbidden({
    user: attrs.user.username,
    verb: attrs.verb,
    resource: attrs.resource,
    subresource: attrs.subresource,
    group: attrs.apiGroup,
    namespace: attrs.namespace,
    name: attrs.name,
    reason,
  });
}
