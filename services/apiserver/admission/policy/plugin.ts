/**
 * The ValidatingAdmissionPolicy plugin (validating phase, between the mutating
 * and the validating webhooks). Policies and bindings are kept current from the
 * watch cache (a change applies on every replica within the cache's delay),
 * each policy compiled once per generation; requests wait for the first lists.
 * Bindings run in name order; each binding whose policy exists and matches
 * (policy matchConstraints, then the binding's matchResources) is evaluated for
 * each of its parameter objects. Denials act per validationActions: Deny
 * rejects (the first one, once all were evaluated), Warn adds a `Warning`
 * header, Audit the `validation_failure` audit annotation; auditAnnotations
 * become `<policy>/<key>` audit annotations. Configuration problems (missing params
 * under Deny, an expression that no longer compiles, an unreadable namespace)
 * follow the policy's failurePolicy. The admission configuration kinds are exempt.
 * The `authorizer` variable asks the replica's authorizer chain as the requester
 * (checks are answered between evaluation rounds: shared/cel's evaluateWithAuthorizer).
 */
import { forbiddenWithReason, statusError, type StatusReason } from "../../../../shared/api/status.ts";
import { AuthzSession, celValue, evaluateWithAuthorizer, newAuthorizer, type CelValue } from "../../../../shared/cel/index.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import { celAuthorizer } from "../cel-authorizer.ts";
import type { AdmissionPlugin, Attributes, PluginContext } from "../interfaces.ts";
import { conditionRequest, isExempt, type Equivalence, type MatchDeps } from "../webhooks/matching.ts";
import { compilePolicy, type CompiledPolicy } from "./compile.ts";
import { evaluatePolicy, type Decision, type PolicyResult } from "./evaluate.ts";
import { matchResources } from "./match.ts";
import { resolveParams } from "./params.ts";
import { bindingBase, watchPolicies, type BindingBase } from "./sources.ts";
import { recordObserved } from "./status.ts";

export const VALIDATING_ADMISSION_POLICY = "ValidatingAdmissionPolicy";

interface Binding extends BindingBase {
  actions: string[];
}

interface Denied extends Decision {
  policy: string;
  binding: string;
}

function bindingOf(o: JsonObject): Binding {
  const spec = isObject(o.spec) ? o.spec : {};
  return { ...bindingBase(o), actions: Array.isArray(spec.validationActions) ? spec.validationActions.filter((x): x is string => typeof x === "string") : [] };
}

const CODES: Record<string, number> = { Forbidden: 403, Unauthorized: 401, RequestEntityTooLarge: 413, Invalid: 422 };

/** The platform's rejection: a Forbidden-shaped message with the decision's reason and code. */
function rejection(a: Attributes, d: Denied): Error {
  const message = `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`;
  const base = forbiddenWithReason(a.resource.resource, a.name, message, a.resource.group).status;
  const reason = d.reason === "" ? "Invalid" : d.reason;
  return statusError({
    code: CODES[reason] ?? 422,
    reason: reason as StatusReason,
    message: base.message,
    details: { ...(base.details ?? {}), causes: [{ message }] },
  });
}

/** `equivalence` serves matchPolicy Equivalent (none: exact matches only). */
export function validatingAdmissionPolicyPlugin(ctx: PluginContext, equivalence?: Equivalence): AdmissionPlugin {
  const group = ctx.profile.group("admissionregistration");
  const sources = watchPolicies(ctx, { policies: "validatingadmissionpolicies", bindings: "validatingadmissionpolicybindings" }, compilePolicy, bindingOf, (items) =>
    recordObserved(ctx, group, items),
  );
  const deps: MatchDeps = { profile: ctx.profile, objects: ctx.objects, equivalence };
  const authorize = celAuthorizer(ctx);

  /**
   * What every binding of one request reads, computed at most once: the
   * namespace, and the CEL values of the request and of the object in each
   * version a policy sees it in.
   */
  function requestInputs(a: Attributes) {
    let namespaceObject: Promise<JsonObject | undefined> | undefined;
    const views = new Map<string, { object: CelValue; oldObject: CelValue }>();
    const request = celValue(conditionRequest(a));
    const readNamespace = (): Promise<JsonObject | undefined> => {
      if (a.namespace === "") return Promise.resolve(undefined);
      namespaceObject ??= ctx.objects.get({ group: ctx.profile.group("core"), resource: "namespaces", name: a.namespace }, { cached: true });
      return namespaceObject;
    };
    return {
      request,
      namespaceObject: readNamespace,
      deps: { ...deps, requestNamespace: readNamespace } satisfies MatchDeps,
      view(version: string | undefined): { object: CelValue; oldObject: CelValue } {
        const key = version ?? "";
        let v = views.get(key);
        if (!v) {
          const convert = (obj: JsonObject | undefined) => (obj && version && equivalence ? equivalence.convert(obj, a.resource.group, a.resource.resource, a.resource.version, version) : obj);
          v = { object: celValue(convert(a.object) ?? null), oldObject: celValue(convert(a.oldObject) ?? null) };
          views.set(key, v);
        }
        return v;
      },
    };
  }

  /** The denials of one binding; configuration errors become denials under failurePolicy Fail. */
  async function evaluateBinding(policy: CompiledPolicy, b: Binding, a: Attributes, inputs: ReturnType<typeof requestInputs>): Promise<PolicyResult> {
    const configError = (err: unknown): PolicyResult => ({
      denials: policy.failurePolicy === "Ignore" ? [] : [{ message: `failed to configure binding: ${err instanceof Error ? err.message : String(err)}`, reason: "" }],
      annotations: {},
    });
    const none: PolicyResult = { denials: [], annotations: {} };
    let version: string | undefined;
    try {
      const matched = await matchResources(policy.match, a, inputs.deps, true);
      if (!matched) return none;
      if (b.match && !(await matchResources(b.match, a, inputs.deps, false))) return none;
      version = matched.version;
    } catch (err) {
      return configError(err);
    }
    if (policy.problem) return configError(new Error(policy.problem));
    let params: Array<JsonObject | undefined>;
    let namespaceObject: JsonObject | undefined;
    try {
      params = await resolveParams(ctx.profile, ctx.objects, policy.paramKind, b.paramRef, a);
      namespaceObject = await inputs.namespaceObject();
    } catch (err) {
      return configError(err);
    }
    const { object, oldObject } = inputs.view(version);
    const request = inputs.request;
    let results: PolicyResult[];
    if (policy.usesAuthorizer) {
      const session = new AuthzSession();
      const r = a.resource;
      const authorizer = newAuthorizer(session, a.userInfo, { group: r.group, version: r.version, resource: r.resource, subresource: a.subresource, namespace: a.namespace, name: a.name });
      const evaluateAll = () => params.map((p) => evaluatePolicy(policy, { object, oldObject, request, params: p, namespaceObject, authorizer }));
      results = await evaluateWithAuthorizer(session, evaluateAll, authorize);
    } else {
      results = params.map((p) => evaluatePolicy(policy, { object, oldObject, request, params: p, namespaceObject }));
    }
    return { denials: results.flatMap((r) => r.denials), annotations: Object.assign({}, ...results.map((r) => r.annotations)) as Record<string, string> };
  }

  return {
    name: VALIDATING_ADMISSION_POLICY,
    handles: () => true,
    close: () => sources.stop(),
    async validate(a) {
      await sources.synced;
      const bindings = sources.bindings();
      const policies = sources.policies();
      if (bindings.length === 0 || isExempt(ctx.profile, a)) return;
      const denied: Denied[] = [];
      const audited: JsonObject[] = [];
      const inputs = requestInputs(a);
      for (const b of bindings) {
        const policy = policies.get(b.policyName);
        if (!policy) continue;
        const result = await evaluateBinding(policy, b, a, inputs);
        for (const [key, value] of Object.entries(result.annotations)) a.addAnnotation(`${policy.name}/${key}`, value);
        for (const d of result.denials) {
          if (b.actions.includes("Deny")) denied.push({ ...d, policy: policy.name, binding: b.name });
          if (b.actions.includes("Warn")) a.addWarning(`Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${b.name}': ${d.message}`);
          if (b.actions.includes("Audit")) audited.push({ message: d.message, policy: policy.name, binding: b.name, expressionIndex: d.index ?? 0, validationActions: b.actions });
        }
      }
      if (audited.length > 0) a.addAnnotation(`validation.policy.admission.${ctx.profile.groupDomain}/validation_failure`, JSON.stringify(audited));
      if (denied.length > 0) throw rejection(a, denied[0]);
    },
  };
}
