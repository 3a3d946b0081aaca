/**
 * One webhook of a stored Mutating/ValidatingWebhookConfiguration, read once per
 * configuration change into a typed form: rules, selectors parsed, CEL match
 * conditions compiled. Stored objects are already defaulted and validated
 * (admissionregistration-v1.ts); a selector or condition that still fails to
 * parse is kept as `problem` and handled by the failure policy when matched.
 */
import { labelSelectorFromObject, type ParsedLabelSelector } from "../../../../shared/api/label-selector.ts";
import type { LabelSelector } from "../../../../shared/api/selector-types.ts";
import { AUTHORIZER_TYPE, createEnvironment, type CelProgram } from "../../../../shared/cel/index.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";

export type HookType = "mutating" | "validating";

export interface HookRule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  scope: string;
}

export interface ClientConfig {
  url?: string;
  service?: { namespace: string; name: string; path?: string; port: number };
  /** PEM text of `caBundle` (base64 in the object). */
  caPem?: string;
}

export interface Hook {
  /** `<configuration>/<webhook>`: unique across configurations. */
  key: string;
  configuration: string;
  name: string;
  type: HookType;
  clientConfig: ClientConfig;
  rules: HookRule[];
  failurePolicy: "Fail" | "Ignore";
  matchPolicy: "Exact" | "Equivalent";
  namespaceSelector: ParsedLabelSelector;
  objectSelector: ParsedLabelSelector;
  sideEffects: string;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  reinvocationPolicy: "Never" | "IfNeeded";
  matchConditions: Array<{ name: string; program: CelProgram }>;
  /** A selector or match condition that could not be compiled. */
  problem?: string;
}

export const MAX_MATCH_CONDITIONS = 64;

const conditionEnv = createEnvironment({ variables: { object: "dyn", oldObject: "dyn", request: "map", authorizer: AUTHORIZER_TYPE, params: "dyn", namespaceObject: "dyn" } });

/** Compiles one match condition; throws with the compiler's message, or when the result cannot be a bool. */
export function compileCondition(expression: string): CelProgram {
  const program = conditionEnv.compile(expression);
  if (program.resultType !== "bool" && program.resultType !== "dyn") throw new Error(`must evaluate to bool`);
  return program;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [];
}

function selector(v: unknown): ParsedLabelSelector {
  return labelSelectorFromObject(isObject(v) ? (v as LabelSelector) : ({} as LabelSelector));
}

function decodeCa(v: unknown): string | undefined {
  if (typeof v !== "string" || v === "") return undefined;
  return Buffer.from(v, "base64").toString("utf8");
}

function clientConfig(v: unknown): ClientConfig {
  const c = isObject(v) ? v : {};
  const out: ClientConfig = { caPem: decodeCa(c.caBundle) };
  if (typeof c.url === "string") out.url = c.url;
  if (isObject(c.service)) {
    const s = c.service;
    out.service = { namespace: String(s.namespace ?? ""), name: String(s.name ?? ""), path: typeof s.path === "string" ? s.path : undefined, port: typeof s.port === "number" ? s.port : 443 };
  }
  return out;
}

/** The webhooks of one configuration object, in their order. */
export function hooksOf(config: JsonObject, type: HookType): Hook[] {
  const name = String((config.metadata as { name?: string } | undefined)?.name ?? "");
  const list = Array.isArray(config.webhooks) ? config.webhooks : [];
  return list.filter(isObject).map((w, i) => {
    const hook: Hook = {
      key: `${name}/${i}/${String(w.name)}`,
      configuration: name,
      name: String(w.name ?? ""),
      type,
      clientConfig: clientConfig(w.clientConfig),
      rules: (Array.isArray(w.rules) ? w.rules : []).filter(isObject).map((r) => ({
        operations: strings(r.operations),
        apiGroups: strings(r.apiGroups),
        apiVersions: strings(r.apiVersions),
        resources: strings(r.resources),
        scope: typeof r.scope === "string" ? r.scope : "*",
      })),
      failurePolicy: w.failurePolicy === "Ignore" ? "Ignore" : "Fail",
      matchPolicy: w.matchPolicy === "Exact" ? "Exact" : "Equivalent",
      namespaceSelector: selector({}),
      objectSelector: selector({}),
      sideEffects: typeof w.sideEffects === "string" ? w.sideEffects : "Unknown",
      timeoutSeconds: typeof w.timeoutSeconds === "number" ? w.timeoutSeconds : 10,
      admissionReviewVersions: strings(w.admissionReviewVersions),
      reinvocationPolicy: w.reinvocationPolicy === "IfNeeded" ? "IfNeeded" : "Never",
      matchConditions: [],
    };
    try {
      hook.namespaceSelector = selector(w.namespaceSelector);
      hook.objectSelector = selector(w.objectSelector);
      const conditions = (Array.isArray(w.matchConditions) ? w.matchConditions : []).filter(isObject);
      if (conditions.length > MAX_MATCH_CONDITIONS) throw new Error(`matchConditions: Too many: ${conditions.length}: must have at most ${MAX_MATCH_CONDITIONS} items`);
      hook.matchConditions = conditions.map((c) => ({ name: String(c.name ?? ""), program: compileCondition(String(c.expression ?? "")) }));
    } catch (err) {
      hook.problem = err instanceof Error ? err.message : String(err);
    }
    return hook;
  });
}
