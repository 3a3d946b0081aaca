/**
 * Answers to the access review calls, with the configured chain:
 * SubjectAccessReview (any user), LocalSubjectAccessReview (namespace of the
 * path must equal the reviewed one), SelfSubjectAccessReview (the caller) and
 * SelfSubjectRulesReview (the caller's rules in a namespace). Each takes the
 * decoded body and the caller and returns the same object with `status` set;
 * bad input throws a 400/422 StatusError.
 */
import { badRequest, invalid } from "../../../shared/api/status.ts";
import type { SelectorRequirement } from "../../../shared/api/selectors.ts";
import type { FieldError } from "../../../shared/schema/types.ts";
import type { JsonObject } from "../storage/object.ts";
import { fieldSelectorAttributes, labelSelectorAttributes } from "./attributes.ts";
import type { Attributes, Authorizer, RuleResolver, SelectorAttributes, UserInfo } from "./types.ts";

export interface ReviewDeps {
  authorizer: Authorizer & RuleResolver;
  /** The authorization group's wire name (for error messages). */
  group: string;
  authorizeWithSelectors?: boolean;
}

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined);
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

function nameOf(body: JsonObject): string {
  return str(asObj(body.metadata)?.name);
}

function selectorOf(raw: unknown, parse: (s: string) => SelectorAttributes | undefined): SelectorAttributes | undefined {
  const sel = asObj(raw);
  if (!sel) return undefined;
  const reqs = Array.isArray(sel.requirements) ? (sel.requirements as SelectorRequirement[]) : [];
  if (reqs.length > 0) return { raw: str(sel.rawSelector), requirements: structuredClone(reqs) };
  const rawSelector = str(sel.rawSelector);
  return rawSelector ? parse(rawSelector) : undefined;
}

function specAttributes(spec: Obj, user: UserInfo, deps: ReviewDeps): Attributes {
  const ra = asObj(spec.resourceAttributes);
  if (ra) {
    const attrs: Attributes = {
      user,
      verb: str(ra.verb),
      isResourceRequest: true,
      path: "",
      namespace: str(ra.namespace),
      apiGroup: str(ra.group),
      apiVersion: str(ra.version),
      resource: str(ra.resource),
      subresource: str(ra.subresource),
      name: str(ra.name),
    };
    if (deps.authorizeWithSelectors !== false) {
      const field = selectorOf(ra.fieldSelector, fieldSelectorAttributes);
      const label = selectorOf(ra.labelSelector, labelSelectorAttributes);
      if (field) attrs.fieldSelector = field;
      if (label) attrs.labelSelector = label;
    }
    return attrs;
  }
  const nra = asObj(spec.nonResourceAttributes) ?? {};
  return { user, verb: str(nra.verb), isResourceRequest: false, path: str(nra.path), namespace: "", apiGroup: "", apiVersion: "", resource: "", subresource: "", name: "" };
}

function validateAttributes(spec: Obj): FieldError[] {
  const hasRA = asObj(spec.resourceAttributes) !== undefined;
  const hasNRA = asObj(spec.nonResourceAttributes) !== undefined;
  if (!hasRA && !hasNRA) {
    return [{ type: "FieldValueInvalid", field: "spec.resourceAttributes", value: "null", message: "exactly one of nonResourceAttributes or resourceAttributes must be specified" }];
  }
  if (hasRA && hasNRA) {
    return [{ type: "FieldValueInvalid", field: "spec.nonResourceAttributes", value: spec.nonResourceAttributes, message: "cannot be specified in combination with resourceAttributes" }];
  }
  return [];
}

async function decide(body: JsonObject, attrs: Attributes, deps: ReviewDeps): Promise<JsonObject> {
  const d = await deps.authorizer.authorize(attrs);
  const status: Obj = { allowed: d.decision === "Allow" };
  if (d.decision === "Deny") status.denied = true;
  if (d.reason) status.reason = d.reason;
  if (d.error) status.evaluationError = d.error;
  return { ...structuredClone(body), status };
}

/** SubjectAccessReview: the user, groups, uid and extra come from the spec. */
export async function subjectAccessReview(body: JsonObject, _caller: UserInfo, deps: ReviewDeps): Promise<JsonObject> {
  const spec = asObj(body.spec) ?? {};
  const errors = validateAttributes(spec);
  const username = str(spec.user);
  const groups = strs(spec.groups).length > 0 ? strs(spec.groups) : strs(spec.group);
  if (username === "" && groups.length === 0) errors.push({ type: "FieldValueInvalid", field: "spec.user", value: "", message: "at least one of user or group must be specified" });
  if (errors.length > 0) throw invalid("SubjectAccessReview", nameOf(body), errors, deps.group);
  const user: UserInfo = { username, groups };
  if (str(spec.uid)) user.uid = str(spec.uid);
  const extra = asObj(spec.extra);
  if (extra) user.extra = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, strs(v)]));
  return decide(body, specAttributes(spec, user, deps), deps);
}

/** LocalSubjectAccessReview: as SubjectAccessReview, limited to the namespace of the request path. */
export async function localSubjectAccessReview(body: JsonObject, caller: UserInfo, namespace: string, deps: ReviewDeps): Promise<JsonObject> {
  const spec = asObj(body.spec) ?? {};
  if (asObj(spec.nonResourceAttributes)) {
    throw invalid(
      "LocalSubjectAccessReview",
      nameOf(body),
      [{ type: "FieldValueInvalid", field: "spec.nonResourceAttributes", value: spec.nonResourceAttributes, message: "disallowed on this kind of request" }],
      deps.group,
    );
  }
  const ra = asObj(spec.resourceAttributes);
  if (ra && str(ra.namespace) !== namespace) throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${namespace}`);
  const metaNs = str(asObj(body.metadata)?.namespace);
  if (metaNs !== "" && metaNs !== namespace) throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
  return subjectAccessReview(body, caller, deps);
}

/** SelfSubjectAccessReview: the caller's own access. */
export async function selfSubjectAccessReview(body: JsonObject, caller: UserInfo, deps: ReviewDeps): Promise<JsonObject> {
  const spec = asObj(body.spec) ?? {};
  const errors = validateAttributes(spec);
  if (errors.length > 0) throw invalid("SelfSubjectAccessReview", nameOf(body), errors, deps.group);
  return decide(body, specAttributes(spec, caller, deps), deps);
}

/** SelfSubjectRulesReview: what the caller may do in `spec.namespace`, as far as the authorizers can tell. */
export function selfSubjectRulesReview(body: JsonObject, caller: UserInfo, deps: ReviewDeps): JsonObject {
  const spec = asObj(body.spec) ?? {};
  const namespace = str(spec.namespace);
  if (namespace === "") throw badRequest("no namespace on request");
  const rules = deps.authorizer.rulesFor(caller, namespace);
  const status: Obj = { resourceRules: rules.resourceRules, nonResourceRules: rules.nonResourceRules, incomplete: rules.incomplete };
  if (rules.errors.length > 0) status.evaluationError = rules.errors.join(", ");
  return { ...structuredClone(body), status };
}
