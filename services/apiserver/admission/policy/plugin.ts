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
import { PolicyDispatch, selectorsMatch, type Candidate } from "./dispatch.ts";
import { evaluatePolicy, type Activation, type Decision, type PolicyResult } from "./evaluate.ts";
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

/** What the bindings of one request decided so far. */
interface Outcome {
  denied: Denied[];
  audited: JsonObject[];
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

/** Parameters of a policy without paramKind: one evaluation, without params. */
const NO_PARAMS: ReadonlyArray<JsonObject | undefined> = [undefined];

const NO_RESULT: PolicyResult = { denials: [], annotations: {} };

/** A configuration problem of a binding: a denial under failurePolicy Fail, nothing under Ignore. */
function configError(policy: CompiledPolicy, err: unknown): PolicyResult {
  if (policy.failurePolicy === "Ignore") return NO_RESULT;
  return { denials: [{ message: `failed to configure binding: ${err instanceof Error ? err.message : String(err)}`, reason: "" }], annotations: {} };
}

/**
 * What the bindings of one request read, each prepared at most once and only
 * when an expression names it: the namespace (watch cache), and the CEL values
 * of the request and of the object in each version a policy sees it in.
 */
class RequestInputs {
  private namespaceRead: Promise<Readonly<JsonObject> | undefined> | undefined;
  private namespaceValue: CelValue | undefined;
  private requestValue: CelValue | undefined;
  private readonly views = new Map<string, { object: CelValue; oldObject: CelValue }>();
  readonly deps: MatchDeps;

  constructor(
    private readonly ctx: PluginContext,
    private readonly a: Attributes,
    private readonly equivalence: Equivalence | undefined,
    deps: MatchDeps,
  ) {
    this.deps = { ...deps, requestNamespace: () => this.namespace() };
  }

  /** The request's namespace from the watch cache (in place when it can: read only), once per request. */
  namespace(): Promise<Readonly<JsonObject> | undefined> {
    if (this.a.namespace === "") return Promise.resolve(undefined);
    if (!this.namespaceRead) {
      const ref = { group: this.ctx.profile.group("core"), resource: "namespaces", name: this.a.namespace };
      const cached = this.ctx.objects.peek?.(ref);
      this.namespaceRead = cached ? Promise.resolve(cached) : this.ctx.objects.get(ref, { cached: true });
    }
    return this.namespaceRead;
  }

  async namespaceObject(): Promise<CelValue> {
    this.namespaceValue ??= celValue((await this.namespace()) ?? null);
    return this.namespaceValue;
  }

  request(): CelValue {
    this.requestValue ??= celValue(conditionRequest(this.a));
    return this.requestValue;
  }

  view(version: string | undefined): { object: CelValue; oldObject: CelValue } {
    const key = version ?? "";
    let v = this.views.get(key);
    if (!v) {
      v = { object: celValue(this.converted(this.a.object, version) ?? null), oldObject: celValue(this.converted(this.a.oldObject, version) ?? null) };
      this.views.set(key, v);
    }
    return v;
  }

  private converted(obj: JsonObject | undefined, version: string | undefined): JsonObject | undefined {
    const r = this.a.resource;
    return obj && version && this.equivalence ? this.equivalence.convert(obj, r.group, r.resource, r.version, version) : obj;
  }
}

/** `equivalence` serves matchPolicy Equivalent (none: exact matches only). */
export function validatingAdmissionPolicyPlugin(ctx: PluginContext, equivalence?: Equivalence): AdmissionPlugin {
  const group = ctx.profile.group("admissionregistration");
  const sources = watchPolicies(ctx, { policies: "validatingadmissionpolicies", bindings: "validatingadmissionpolicybindings" }, compilePolicy, bindingOf, (items) =>
    recordObserved(ctx, group, items),
  );
  let synced = false;
  void sources.synced.then(() => (synced = true));
  const dispatch = new PolicyDispatch(sources, ctx.profile, equivalence);
  const deps: MatchDeps = { profile: ctx.profile, objects: ctx.objects, equivalence };
  const authorize = celAuthorizer(ctx);

  /**
   * The denials of one binding whose rules matched; configuration errors become
   * denials under failurePolicy Fail. Synchronous unless the binding needs a
   * lookup (namespace, params) or the authorizer, so most requests take no extra
   * turn of the event loop per binding.
   */
  function evaluateBinding(c: Candidate<CompiledPolicy, Binding>, a: Attributes, inputs: RequestInputs): PolicyResult | Promise<PolicyResult> {
    const policy = c.policy;
    let selected: boolean | Promise<boolean>;
    try {
      selected = selectorsMatch(c, a, inputs.deps);
    } catch (err) {
      return configError(policy, err);
    }
    if (typeof selected !== "boolean") {
      return selected.then(
        (ok) => (ok ? evaluateSelected(c, a, inputs) : NO_RESULT),
        (err: unknown) => configError(policy, err),
      );
    }
    return selected ? evaluateSelected(c, a, inputs) : NO_RESULT;
  }

  function evaluateSelected(c: Candidate<CompiledPolicy, Binding>, a: Attributes, inputs: RequestInputs): PolicyResult | Promise<PolicyResult> {
    const policy = c.policy;
    if (policy.problem) return configError(policy, new Error(policy.problem));
    if (policy.paramKind || policy.usesAuthorizer || policy.references.has("namespaceObject")) return evaluateWithLookups(c, a, inputs);
    return evaluatePolicy(policy, activation(policy, c.version, inputs, undefined));
  }

  /** The activation of one evaluation: only the variables the policy's expressions name. */
  function activation(policy: CompiledPolicy, version: string | undefined, inputs: RequestInputs, namespaceObject: CelValue | undefined): Activation {
    const refs = policy.references;
    const view = refs.has("object") || refs.has("oldObject") ? inputs.view(version) : undefined;
    return { object: view?.object, oldObject: view?.oldObject, request: refs.has("request") ? inputs.request() : undefined, params: undefined, namespaceObject };
  }

  async function evaluateWithLookups(c: Candidate<CompiledPolicy, Binding>, a: Attributes, inputs: RequestInputs): Promise<PolicyResult> {
    const { policy, binding: b } = c;
    let params = NO_PARAMS;
    let namespaceObject: CelValue | undefined;
    try {
      if (policy.paramKind) params = await resolveParams(ctx.profile, ctx.objects, policy.paramKind, b.paramRef, a);
      if (policy.references.has("namespaceObject")) namespaceObject = await inputs.namespaceObject();
    } catch (err) {
      return configError(policy, err);
    }
    const input = activation(policy, c.version, inputs, namespaceObject);
    let results: PolicyResult[];
    if (policy.usesAuthorizer) {
      const session = new AuthzSession();
      const r = a.resource;
      const authorizer = newAuthorizer(session, a.userInfo, { group: r.group, version: r.version, resource: r.resource, subresource: a.subresource, namespace: a.namespace, name: a.name });
      results = await evaluateWithAuthorizer(session, () => params.map((p) => evaluatePolicy(policy, { ...input, params: p, authorizer })), authorize);
    } else {
      results = params.map((p) => evaluatePolicy(policy, { ...input, params: p }));
    }
    return { denials: results.flatMap((r) => r.denials), annotations: Object.assign({}, ...results.map((r) => r.annotations)) as Record<string, string> };
  }

  /** Acts on one binding's result per its validationActions. */
  function record(c: Candidate<CompiledPolicy, Binding>, result: PolicyResult, a: Attributes, outcome: Outcome): void {
    const { policy, binding: b } = c;
    for (const key in result.annotations) a.addAnnotation(`${policy.name}/${key}`, result.annotations[key]);
    for (const d of result.denials) {
      if (b.actions.includes("Deny")) outcome.denied.push({ ...d, policy: policy.name, binding: b.name });
      if (b.actions.includes("Warn")) a.addWarning(`Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${b.name}': ${d.message}`);
      if (b.actions.includes("Audit")) outcome.audited.push({ message: d.message, policy: policy.name, binding: b.name, expressionIndex: d.index ?? 0, validationActions: b.actions });
    }
  }

  /** After every binding: the audit annotation of Audit failures, then the first Deny rejects. */
  function conclude(a: Attributes, outcome: Outcome): void {
    if (outcome.audited.length > 0) a.addAnnotation(`validation.policy.admission.${ctx.profile.groupDomain}/validation_failure`, JSON.stringify(outcome.audited));
    if (outcome.denied.length > 0) throw rejection(a, outcome.denied[0]);
  }

  /** The bindings from `from` on, after the one whose result is pending. */
  async function finishAsync(candidates: ReadonlyArray<Candidate<CompiledPolicy, Binding>>, from: number, pending: Promise<PolicyResult>, a: Attributes, inputs: RequestInputs, outcome: Outcome): Promise<void> {
    record(candidates[from], await pending, a, outcome);
    for (let i = from + 1; i < candidates.length; i++) record(candidates[i], await evaluateBinding(candidates[i], a, inputs), a, outcome);
    conclude(a, outcome);
  }

  function validate(a: Attributes): void | Promise<void> {
    if (sources.bindings().length === 0 || isExempt(ctx.profile, a)) return;
    const candidates = dispatch.byRules(a);
    if (candidates.length === 0) return;
    const outcome: Outcome = { denied: [], audited: [] };
    const inputs = new RequestInputs(ctx, a, equivalence, deps);
    for (let i = 0; i < candidates.length; i++) {
      const result = evaluateBinding(candidates[i], a, inputs);
      if (result instanceof Promise) return finishAsync(candidates, i, result, a, inputs, outcome);
      record(candidates[i], result, a, outcome);
    }
    conclude(a, outcome);
  }

  return {
    name: VALIDATING_ADMISSION_POLICY,
    handles: () => true,
    close: () => sources.stop(),
    validate: (a) => (synced ? validate(a) : sources.synced.then(() => validate(a))),
  };
}
