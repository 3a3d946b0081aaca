/**
 * The MutatingAdmissionPolicy plugin (mutating phase, before the mutating
 * webhooks). Policies and bindings (admissionregistration/v1beta1) are kept
 * current from the watch cache; while the kinds are not served (the
 * `MutatingAdmissionPolicy` feature gate is off) there are none and the plugin
 * does nothing. Bindings run in name order; each whose policy exists and
 * matches (policy matchConstraints, then the binding's matchResources) mutates
 * the object once per parameter object, each policy seeing the object as the
 * ones before left it. Policies with `reinvocationPolicy: IfNeeded` run again
 * on the reinvocation pass when a later mutation changed the object. An error
 * (compilation, evaluation, a patch that does not apply, missing params under
 * Deny) follows the policy's failurePolicy: Fail rejects with `policy '<p>'
 * with binding '<b>' denied request: <message>`. The admission configuration
 * kinds are exempt. Under matchPolicy Equivalent (the default) a policy whose
 * rules name another served version of the request's group and resource sees
 * the object (and old object) converted to that version and mutates it there,
 * checked against that version's schema; the result is converted back.
 */
import { builtinKinds } from "../../../../shared/api/groups/index.ts";
import { forbiddenWithReason, statusError } from "../../../../shared/api/status.ts";
import { AuthzSession, evaluateWithAuthorizer, newAuthorizer } from "../../../../shared/cel/index.ts";
import type { JsonObject } from "../../storage/object.ts";
import { celAuthorizer } from "../cel-authorizer.ts";
import type { AdmissionPlugin, Attributes, PluginContext } from "../interfaces.ts";
import { conditionRequest, isExempt, type Equivalence, type MatchDeps } from "../webhooks/matching.ts";
import { compileMutatingPolicy, type CompiledMutatingPolicy } from "./mutating-compile.ts";
import { mutate } from "./mutating-evaluate.ts";
import { PolicyDispatch, selectorsMatch, type Candidate } from "./dispatch.ts";
import { resolveParams } from "./params.ts";
import { bindingBase, watchPolicies, type BindingBase } from "./sources.ts";

export const MUTATING_ADMISSION_POLICY = "MutatingAdmissionPolicy";

function rejection(a: Attributes, policy: string, binding: string, message: string): Error {
  const text = `policy '${policy}' with binding '${binding}' denied request: ${message}`;
  const base = forbiddenWithReason(a.resource.resource, a.name, text, a.resource.group).status;
  return statusError({ code: 422, reason: "Invalid", message: base.message, details: { ...(base.details ?? {}), causes: [{ message: text }] } });
}

/** `equivalence` serves matchPolicy Equivalent (none: exact matches only). */
export function mutatingAdmissionPolicyPlugin(ctx: PluginContext, equivalence?: Equivalence): AdmissionPlugin {
  const sources = watchPolicies(ctx, { policies: "mutatingadmissionpolicies", bindings: "mutatingadmissionpolicybindings" }, compileMutatingPolicy, bindingBase);
  const deps: MatchDeps = { profile: ctx.profile, objects: ctx.objects, equivalence };
  const dispatch = new PolicyDispatch(sources, ctx.profile, equivalence);
  const schemas = new Map(builtinKinds(ctx.profile).map((d) => [`${ctx.profile.group(d.group)}/${d.version}/${d.kind}`, d.schema] as const));
  const authorize = celAuthorizer(ctx);

  /** The object after one binding and the errors met (the failure policy decides about them). */
  async function apply(c: Candidate<CompiledMutatingPolicy, BindingBase>, a: Attributes, object: JsonObject): Promise<{ object: JsonObject; errors: string[] }> {
    const { policy, binding: b } = c;
    const version = equivalence ? c.version : undefined;
    try {
      if (!(await selectorsMatch(c, a, deps))) return { object, errors: [] };
    } catch (err) {
      return { object, errors: [err instanceof Error ? err.message : String(err)] };
    }
    if (policy.problem) return { object, errors: [policy.problem] };
    let params: Array<JsonObject | undefined>;
    let namespaceObject: Readonly<JsonObject> | undefined;
    try {
      params = await resolveParams(ctx.profile, ctx.objects, policy.paramKind, b.paramRef, a);
      const ref = { group: ctx.profile.group("core"), resource: "namespaces", name: a.namespace };
      if (a.namespace !== "") namespaceObject = ctx.objects.peek?.(ref) ?? (await ctx.objects.get(ref, { cached: true }));
    } catch (err) {
      return { object, errors: [`failed to configure binding: ${err instanceof Error ? err.message : String(err)}`] };
    }
    const request = conditionRequest(a);
    const r = a.resource;
    const convert = (obj: JsonObject, from: string, to: string) => (equivalence && from !== to ? equivalence.convert(obj, r.group, r.resource, from, to) : obj);
    const target = version ?? r.version;
    const schema = schemas.get(`${a.kind.group}/${target}/${a.kind.kind}`);
    const oldObject = a.oldObject && convert(a.oldObject, r.version, target);
    let current = convert(object, r.version, target);
    const errors: string[] = [];
    for (const p of params) {
      // Authorizer checks are answered between rounds; a mutation round is pure, so it is simply redone.
      const session = new AuthzSession();
      const authorizer = newAuthorizer(session, a.userInfo, { group: r.group, version: r.version, resource: r.resource, subresource: a.subresource, namespace: a.namespace, name: a.name });
      const input = { object: current, oldObject, request, params: p, namespaceObject, authorizer };
      const result = await evaluateWithAuthorizer(session, () => mutate(policy, input, schema), authorize);
      errors.push(...result.errors);
      current = result.object;
    }
    return { object: target === r.version ? current : convert(current, target, r.version), errors };
  }

  let synced = false;
  sources.synced.then(
    () => (synced = true),
    () => {}, // a request waiting for the lists gets its error
  );
  const admit = async (a: Attributes): Promise<void> => {
    await sources.synced;
    const bindings = sources.bindings();
    const policies = sources.policies();
    if (bindings.length === 0 || !a.object || isExempt(ctx.profile, a)) return;
    const round = a.reinvocation?.round ?? 0;
    let object = a.object;
    let changed = false;
    for (const c of dispatch.byRules(a)) {
      const { policy, binding: b } = c;
      if (round > 0 && policy.reinvocationPolicy !== "IfNeeded") continue;
      const result = await apply(c, a, object);
      if (result.errors.length > 0 && policy.failurePolicy === "Fail") throw rejection(a, policy.name, b.name, result.errors[0]);
      if (result.object !== object) {
        changed = changed || JSON.stringify(result.object) !== JSON.stringify(object);
        object = result.object;
      }
    }
    if (changed) {
      a.setObject(object);
      const reinvocable = bindings.some((b) => policies.get(b.policyName)?.reinvocationPolicy === "IfNeeded");
      if (round === 0 && reinvocable) a.reinvocation?.requestReinvocation();
    }
  };
  return {
    name: MUTATING_ADMISSION_POLICY,
    handles: (op) => op === "CREATE" || op === "UPDATE" || op === "CONNECT",
    close: () => sources.stop(),
    // Synchronous once synced when no binding exists: no turn of the event loop.
    admit: (a) => (synced && sources.bindings().length === 0 ? undefined : admit(a)),
  };
}
