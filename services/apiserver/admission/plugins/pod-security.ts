/**
 * PodSecurity: the Pod Security Standards (pod-security-checks.ts) applied through
 * namespace labels `<prefix>enforce|audit|warn` (privileged, baseline, restricted)
 * and `<prefix><mode>-version` (`latest` or `v1.x`), with defaults and exemptions
 * (usernames, runtimeClasses, namespaces) from the plugin's PodSecurityConfiguration.
 * - pods (create; updates that change images or the container count; the
 *   ephemeralcontainers subresource): enforce refuses with 403 `violates PodSecurity
 *   "<level>:<version>": <reasons>`; warn adds a `would violate PodSecurity ...`
 *   warning to an allowed request; audit adds the `audit-violations` annotation;
 * - workload resources with pod templates: warn and audit only;
 * - namespaces: invalid labels are a 422 Invalid; a new enforce level warns about
 *   the existing pods it would refuse.
 */
import { invalid } from "../../../../shared/api/status.ts";
import { fieldErrors } from "../../../../shared/schema/field-errors.ts";
import type { FieldError } from "../../../../shared/schema/types.ts";
import type { JsonObject } from "../../storage/object.ts";
import type { AdmissionPlugin, Attributes, PluginContext, PluginFactory } from "../interfaces.ts";
import { evaluate, forbiddenDetail, LEVELS, type Level } from "./pod-security-checks.ts";
import { admissionForbidden, arr, getFresh, isResource, labelsOf, obj, str } from "./util.ts";

export const POD_SECURITY_PLUGIN = "PodSecurity";
const MODES = ["enforce", "audit", "warn"] as const;
type Mode = (typeof MODES)[number];
const IGNORED_POD_SUBRESOURCES = new Set(["exec", "attach", "binding", "eviction", "log", "portforward", "proxy", "status", "resize"]);
const LEVEL_ERROR = `must be one of ${LEVELS.join(", ")}`;
const VERSION_ERROR = 'must be "latest" or "v1.x"';

export interface PolicyEntry {
  level: Level;
  version: string;
}
export type Policy = Record<Mode, PolicyEntry>;

export interface PodSecurityConfig {
  defaults: Policy;
  exemptUsers: Set<string>;
  exemptRuntimeClasses: Set<string>;
  exemptNamespaces: Set<string>;
}

export const policyString = (e: PolicyEntry) => `${e.level}:${e.version}`;

function parseLevel(v: unknown): Level | undefined {
  return LEVELS.includes(v as Level) ? (v as Level) : undefined;
}

function parseVersion(v: unknown): string | undefined {
  if (v === undefined || v === "" || v === "latest") return "latest";
  return typeof v === "string" && /^v1\.(0|[1-9][0-9]*)$/.test(v) ? v : undefined;
}

/** The configuration from the admission config file (PodSecurityConfiguration); throws on bad values. */
export function parseConfig(raw: JsonObject | undefined): PodSecurityConfig {
  const defaults = obj(raw?.defaults) ?? {};
  const policy = {} as Policy;
  for (const mode of MODES) {
    const level = defaults[mode] === undefined ? "privileged" : parseLevel(defaults[mode]);
    const version = parseVersion(defaults[`${mode}-version`]);
    if (!level) throw new Error(`defaults.${mode}: Invalid value: ${JSON.stringify(defaults[mode])}: ${LEVEL_ERROR}`);
    if (!version) throw new Error(`defaults.${mode}-version: Invalid value: ${JSON.stringify(defaults[`${mode}-version`])}: ${VERSION_ERROR}`);
    policy[mode] = { level, version };
  }
  const ex = obj(raw?.exemptions) ?? {};
  const set = (k: string) => new Set(arr(ex[k]).map(str).filter(Boolean));
  return { defaults: policy, exemptUsers: set("usernames"), exemptRuntimeClasses: set("runtimeClasses"), exemptNamespaces: set("namespaces") };
}

/** The namespace's policy (labels over defaults) and the label errors. */
export function policyOf(labels: Record<string, string>, prefix: string, defaults: Policy): { policy: Policy; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const policy = {} as Policy;
  for (const mode of MODES) {
    const levelKey = `${prefix}${mode}`;
    const versionKey = `${prefix}${mode}-version`;
    let level = defaults[mode].level;
    let version = defaults[mode].version;
    if (levelKey in labels) {
      const l = parseLevel(labels[levelKey]);
      if (l) level = l;
      else {
        errors.push(fieldErrors.invalid(`metadata.labels[${levelKey}]`, labels[levelKey], LEVEL_ERROR));
        level = "restricted";
      }
    }
    if (versionKey in labels) {
      const v = parseVersion(labels[versionKey]);
      if (v) version = v;
      else errors.push(fieldErrors.invalid(`metadata.labels[${versionKey}]`, labels[versionKey], VERSION_ERROR));
    }
    policy[mode] = { level, version };
  }
  return { policy, errors };
}

/** The pod template (metadata, spec) of a workload object, by resource. */
export function templateOf(group: string, resource: string, o: JsonObject, groups: { apps: string; batch: string }): JsonObject | undefined {
  if (group === "" && resource === "podtemplates") return obj(o.template);
  if (group === "" && resource === "replicationcontrollers") return obj(obj(o.spec)?.template);
  if (group === groups.apps && ["deployments", "replicasets", "statefulsets", "daemonsets"].includes(resource)) return obj(obj(o.spec)?.template);
  if (group === groups.batch && resource === "jobs") return obj(obj(o.spec)?.template);
  if (group === groups.batch && resource === "cronjobs") return obj(obj(obj(obj(o.spec)?.jobTemplate)?.spec)?.template);
  return undefined;
}

function significantPodUpdate(pod: JsonObject, old: JsonObject | undefined): boolean {
  if (!old) return true;
  const a = obj(pod.spec) ?? {};
  const b = obj(old.spec) ?? {};
  for (const list of ["containers", "initContainers"]) {
    const x = arr(a[list]);
    const y = arr(b[list]);
    if (x.length !== y.length) return true;
    for (let i = 0; i < x.length; i++) if (str(obj(x[i])?.image) !== str(obj(y[i])?.image)) return true;
  }
  return false;
}

class PodSecurityPlugin implements AdmissionPlugin {
  readonly name = POD_SECURITY_PLUGIN;
  private readonly prefix: string;

  constructor(
    private readonly ctx: PluginContext,
    private readonly config: PodSecurityConfig,
  ) {
    this.prefix = ctx.profile.admission.podSecurityLabelPrefix;
  }

  handles(op: string): boolean {
    return op === "CREATE" || op === "UPDATE";
  }

  private async namespacePolicy(namespace: string): Promise<Policy> {
    const ns = await getFresh(this.ctx.objects, { group: "", resource: "namespaces", name: namespace });
    return policyOf(labelsOf(ns), this.prefix, this.config.defaults).policy;
  }

  /** Synchronous (no promise) for a kind it does not check: no namespace, pod or pod template. */
  validate(a: Attributes): Promise<void> | undefined {
    if (!a.object) return undefined;
    if (isResource(a, "", "namespaces")) return this.validateNamespace(a, a.object);
    if (a.resource.group === "" && a.resource.resource === "pods") {
      if (IGNORED_POD_SUBRESOURCES.has(a.subresource)) return undefined;
      return this.validatePod(a, a.object);
    }
    if (a.subresource) return undefined;
    const groups = { apps: this.ctx.profile.group("apps"), batch: this.ctx.profile.group("batch") };
    const template = templateOf(a.resource.group, a.resource.resource, a.object, groups);
    if (!template) return undefined;
    if (a.operation === "UPDATE" && a.oldObject) {
      const old = templateOf(a.resource.group, a.resource.resource, a.oldObject, groups);
      if (JSON.stringify(old?.spec) === JSON.stringify(template.spec)) return undefined;
    }
    return this.evaluateTemplate(a, obj(template.metadata) ?? {}, obj(template.spec) ?? {});
  }

  private exempt(a: Attributes): boolean {
    const key = `${this.prefix}exempt`;
    if (this.config.exemptNamespaces.has(a.namespace)) {
      a.addAnnotation(key, "namespace");
      return true;
    }
    if (this.config.exemptUsers.has(a.userInfo.username)) {
      a.addAnnotation(key, "user");
      return true;
    }
    return false;
  }

  private async validatePod(a: Attributes, pod: JsonObject): Promise<void> {
    if (this.exempt(a)) return;
    const policy = await this.namespacePolicy(a.namespace);
    a.addAnnotation(`${this.prefix}enforce-policy`, policyString(policy.enforce));
    if (MODES.every((m) => policy[m].level === "privileged")) return;
    if (a.operation === "UPDATE" && !a.subresource && !significantPodUpdate(pod, a.oldObject)) return;
    const runtimeClass = str(obj(pod.spec)?.runtimeClassName);
    if (runtimeClass && this.config.exemptRuntimeClasses.has(runtimeClass)) {
      a.addAnnotation(`${this.prefix}exempt`, "runtimeClass");
      return;
    }
    const meta = obj(pod.metadata) ?? {};
    const spec = obj(pod.spec) ?? {};
    const enforced = evaluate(policy.enforce.level, meta, spec);
    this.audit(a, policy, meta, spec);
    if (enforced.length > 0) {
      throw admissionForbidden(a, `violates PodSecurity ${JSON.stringify(policyString(policy.enforce))}: ${forbiddenDetail(enforced)}`);
    }
    this.warn(a, policy, meta, spec);
  }

  private audit(a: Attributes, policy: Policy, meta: JsonObject, spec: JsonObject): void {
    const audited = evaluate(policy.audit.level, meta, spec);
    if (audited.length > 0) {
      a.addAnnotation(`${this.prefix}audit-violations`, `would violate PodSecurity ${JSON.stringify(policyString(policy.audit))}: ${forbiddenDetail(audited)}`);
    }
  }

  private warn(a: Attributes, policy: Policy, meta: JsonObject, spec: JsonObject): void {
    const warned = evaluate(policy.warn.level, meta, spec);
    if (warned.length > 0) a.addWarning(`would violate PodSecurity ${JSON.stringify(policyString(policy.warn))}: ${forbiddenDetail(warned)}`);
  }

  private async evaluateTemplate(a: Attributes, meta: JsonObject, spec: JsonObject): Promise<void> {
    if (this.exempt(a)) return;
    const policy = await this.namespacePolicy(a.namespace);
    const runtimeClass = str(spec.runtimeClassName);
    if (runtimeClass && this.config.exemptRuntimeClasses.has(runtimeClass)) return;
    this.audit(a, policy, meta, spec);
    this.warn(a, policy, meta, spec);
  }

  private async validateNamespace(a: Attributes, ns: JsonObject): Promise<void> {
    const { policy, errors } = policyOf(labelsOf(ns), this.prefix, this.config.defaults);
    if (errors.length > 0) throw invalid("Namespace", a.name || str(obj(ns.metadata)?.name), errors);
    if (a.operation !== "UPDATE" || this.config.exemptNamespaces.has(a.name)) return;
    const old = policyOf(labelsOf(a.oldObject), this.prefix, this.config.defaults).policy;
    if (policyString(old.enforce) === policyString(policy.enforce) || policy.enforce.level === "privileged") return;
    const pods = await this.ctx.objects.list("", "pods", a.name);
    const byResult = new Map<string, string[]>();
    for (const pod of pods) {
      const spec = obj(pod.spec) ?? {};
      const rc = str(spec.runtimeClassName);
      if (rc && this.config.exemptRuntimeClasses.has(rc)) continue;
      const failures = evaluate(policy.enforce.level, obj(pod.metadata) ?? {}, spec);
      if (failures.length === 0) continue;
      const key = failures.map((f) => f.reason).join(", ");
      byResult.set(key, [...(byResult.get(key) ?? []), str(obj(pod.metadata)?.name)]);
    }
    if (byResult.size === 0) return;
    a.addWarning(`existing pods in namespace ${JSON.stringify(a.name)} violate the new PodSecurity enforce level ${JSON.stringify(policyString(policy.enforce))}`);
    for (const [reasons, names] of byResult) {
      const sorted = [...names].sort();
      const who = sorted.length === 1 ? sorted[0] : `${sorted[0]} (and ${sorted.length - 1} other ${sorted.length === 2 ? "pod" : "pods"})`;
      a.addWarning(`${who}: ${reasons}`);
    }
  }
}

export const podSecurityPlugin: PluginFactory = (ctx) => new PodSecurityPlugin(ctx, parseConfig(ctx.config));

