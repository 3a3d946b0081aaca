/**
 * Authorization options: the command-line flags and the AuthorizationConfiguration
 * file, parsed and validated into one `AuthorizationConfig`.
 *
 * Flags (`AUTHORIZATION_FLAG_SPECS`, completed by `authorizationFlagsFrom`): the mode
 * list (order is priority), the ABAC policy file, the webhook's client configuration,
 * review version and cache TTLs, and `--authorization-config` (an AuthorizationConfiguration
 * file, exclusive with the mode/policy/webhook flags).
 */
import { parse as parseYaml } from "yaml";
import { FlagError, parseGoDuration as parseDuration, parseKnownFlags, type FlagSpec, type ParsedFlags } from "../../../shared/cli/flags.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { compileMatchConditions, MAX_MATCH_CONDITIONS, type CompiledMatchConditions } from "./match-conditions.ts";
import { DEFAULT_AUTHORIZED_TTL_MS, DEFAULT_UNAUTHORIZED_TTL_MS, MAX_TIMEOUT_MS } from "./webhook.ts";

export const AUTHORIZATION_MODES = ["AlwaysAllow", "AlwaysDeny", "ABAC", "RBAC", "Node", "Webhook"] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

/** Types an AuthorizationConfiguration file may list. */
export const FILE_AUTHORIZER_TYPES = ["Webhook", "Node", "RBAC", "AlwaysAllow", "AlwaysDeny"] as const;
export type FileAuthorizerType = (typeof FILE_AUTHORIZER_TYPES)[number];

export interface AuthorizationFlags {
  modes?: AuthorizationMode[];
  policyFile?: string;
  webhookConfigFile?: string;
  webhookVersion?: "v1" | "v1beta1";
  webhookAuthorizedTTLMs?: number;
  webhookUnauthorizedTTLMs?: number;
  configFile?: string;
}

/** The authorization flags, with the help and defaults of the platform's API server. */
export const AUTHORIZATION_FLAG_SPECS: Record<string, FlagSpec> = {
  "authorization-mode": {
    kind: "list",
    default: ["AlwaysAllow"],
    help: `Ordered list of plug-ins to do authorization on secure port. Exclusive with --authorization-config. Comma-delimited list of: ${AUTHORIZATION_MODES.join(",")}.`,
  },
  "authorization-policy-file": { kind: "string", help: "File with authorization policy in json line by line format, used with --authorization-mode=ABAC, on the secure port." },
  "authorization-webhook-config-file": { kind: "string", help: "File with webhook configuration in kubeconfig format, used with --authorization-mode=Webhook." },
  "authorization-webhook-version": { kind: "string", default: "v1beta1", help: "The API version of the SubjectAccessReview to send to and expect from the webhook (v1 or v1beta1)." },
  "authorization-webhook-cache-authorized-ttl": { kind: "duration", default: DEFAULT_AUTHORIZED_TTL_MS, help: "The duration to cache 'authorized' responses from the webhook authorizer." },
  "authorization-webhook-cache-unauthorized-ttl": { kind: "duration", default: DEFAULT_UNAUTHORIZED_TTL_MS, help: "The duration to cache 'unauthorized' responses from the webhook authorizer." },
  "authorization-config": { kind: "string", help: "File with Authorization Configuration to configure the authorizer chain. Exclusive with --authorization-mode, --authorization-policy-file and --authorization-webhook-config-file." },
};

/** Go duration text in milliseconds. */
export { parseGoDuration as parseDuration } from "../../../shared/cli/flags.ts";

/** Completes the flags from parsed values: only flags given on the command line are set (validation tells given from default). */
export function authorizationFlagsFrom({ values, changed }: ParsedFlags): AuthorizationFlags {
  const out: AuthorizationFlags = {};
  if (changed.has("authorization-mode")) out.modes = [...(values["authorization-mode"] as string[])] as AuthorizationMode[];
  if (changed.has("authorization-policy-file")) out.policyFile = String(values["authorization-policy-file"]);
  if (changed.has("authorization-webhook-config-file")) out.webhookConfigFile = String(values["authorization-webhook-config-file"]);
  if (changed.has("authorization-webhook-version")) {
    const v = String(values["authorization-webhook-version"]);
    if (v !== "v1" && v !== "v1beta1") throw new FlagError(`--authorization-webhook-version: unsupported version ${JSON.stringify(v)}; want v1 or v1beta1`);
    out.webhookVersion = v;
  }
  if (changed.has("authorization-webhook-cache-authorized-ttl")) out.webhookAuthorizedTTLMs = Number(values["authorization-webhook-cache-authorized-ttl"]);
  if (changed.has("authorization-webhook-cache-unauthorized-ttl")) out.webhookUnauthorizedTTLMs = Number(values["authorization-webhook-cache-unauthorized-ttl"]);
  if (changed.has("authorization-config")) out.configFile = String(values["authorization-config"]);
  return out;
}

/** Picks the authorization flags out of a command line (flags of other components are skipped). */
export function parseAuthorizationFlags(argv: readonly string[]): AuthorizationFlags {
  return authorizationFlagsFrom(parseKnownFlags(argv, AUTHORIZATION_FLAG_SPECS));
}

/** Start-up validation of the flags; throws the error the server exits with. */
export function validateAuthorizationFlags(f: AuthorizationFlags): void {
  const flagged = f.modes !== undefined || f.policyFile !== undefined || f.webhookConfigFile !== undefined;
  if (f.configFile !== undefined && flagged) {
    throw new Error("--authorization-config can not be specified when --authorization-mode, --authorization-policy-file or --authorization-webhook-config-file is set");
  }
  if (f.configFile !== undefined) return;
  const modes = f.modes ?? [];
  const seen = new Set<string>();
  for (const m of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(m)) throw new Error(`authorization-mode ${JSON.stringify(m)} is not a valid mode; supported: ${AUTHORIZATION_MODES.join(",")}`);
    if (seen.has(m)) throw new Error(`authorization-mode ${JSON.stringify(m)} has mode specified more than once`);
    seen.add(m);
  }
  if (seen.has("ABAC") && !f.policyFile) throw new Error("authorization-mode ABAC's authorization policy file not passed");
  if (!seen.has("ABAC") && f.policyFile) throw new Error("cannot specify --authorization-policy-file without mode ABAC");
  if (seen.has("Webhook") && !f.webhookConfigFile) throw new Error("authorization-mode Webhook's authorization config file not passed");
  if (!seen.has("Webhook") && f.webhookConfigFile) throw new Error("cannot specify --authorization-webhook-config-file without mode Webhook");
}

export interface WebhookAuthorizerConfig {
  authorizedTTLMs: number;
  unauthorizedTTLMs: number;
  timeoutMs: number;
  subjectAccessReviewVersion: "v1" | "v1beta1";
  matchConditionSubjectAccessReviewVersion?: "v1";
  failurePolicy: "NoOpinion" | "Deny";
  connectionInfo: { type: "KubeConfigFile"; kubeConfigFile: string } | { type: "InClusterConfig" };
  matchConditions: CompiledMatchConditions;
  matchConditionExpressions: string[];
}

export interface AuthorizerConfig {
  type: FileAuthorizerType;
  name: string;
  webhook?: WebhookAuthorizerConfig;
}

export interface AuthorizationConfiguration {
  authorizers: AuthorizerConfig[];
}

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined);

function duration(errors: string[], field: string, v: unknown, dflt: number | undefined): number {
  if (v === undefined || v === null || v === "") {
    if (dflt === undefined) errors.push(`${field}: Required value`);
    return dflt ?? 0;
  }
  if (typeof v !== "string") {
    errors.push(`${field}: Invalid value: ${JSON.stringify(v)}: must be a duration string`);
    return 0;
  }
  try {
    return parseDuration(v);
  } catch {
    errors.push(`${field}: Invalid value: ${JSON.stringify(v)}: must be a duration string`);
    return 0;
  }
}

function parseWebhook(errors: string[], field: string, raw: Obj): WebhookAuthorizerConfig | undefined {
  const before = errors.length;
  const authorizedTTLMs = duration(errors, `${field}.authorizedTTL`, raw.authorizedTTL, DEFAULT_AUTHORIZED_TTL_MS);
  const unauthorizedTTLMs = duration(errors, `${field}.unauthorizedTTL`, raw.unauthorizedTTL, DEFAULT_UNAUTHORIZED_TTL_MS);
  const timeoutMs = duration(errors, `${field}.timeout`, raw.timeout, undefined);
  if (raw.timeout !== undefined && (timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT_MS)) errors.push(`${field}.timeout: Invalid value: ${JSON.stringify(raw.timeout)}: must be > 0s and <= 30s`);
  if (authorizedTTLMs < 0) errors.push(`${field}.authorizedTTL: Invalid value: must be > 0s`);
  if (unauthorizedTTLMs < 0) errors.push(`${field}.unauthorizedTTL: Invalid value: must be > 0s`);
  const version = raw.subjectAccessReviewVersion;
  if (version === undefined || version === "") errors.push(`${field}.subjectAccessReviewVersion: Required value`);
  else if (version !== "v1" && version !== "v1beta1") errors.push(`${field}.subjectAccessReviewVersion: Unsupported value: ${JSON.stringify(version)}: supported values: "v1", "v1beta1"`);
  const conditionsRaw = raw.matchConditions === undefined || raw.matchConditions === null ? [] : raw.matchConditions;
  if (!Array.isArray(conditionsRaw)) errors.push(`${field}.matchConditions: Invalid value: must be a list`);
  const conditions = Array.isArray(conditionsRaw) ? conditionsRaw.map((c) => ({ expression: typeof asObj(c)?.expression === "string" ? (asObj(c)?.expression as string) : "" })) : [];
  const mcVersion = raw.matchConditionSubjectAccessReviewVersion;
  if ((mcVersion === undefined || mcVersion === "") && conditions.length > 0) errors.push(`${field}.matchConditionSubjectAccessReviewVersion: Required value`);
  else if (mcVersion !== undefined && mcVersion !== "" && mcVersion !== "v1") errors.push(`${field}.matchConditionSubjectAccessReviewVersion: Unsupported value: ${JSON.stringify(mcVersion)}: supported values: "v1"`);
  const failurePolicy = raw.failurePolicy;
  if (failurePolicy === undefined || failurePolicy === "") errors.push(`${field}.failurePolicy: Required value`);
  else if (failurePolicy !== "NoOpinion" && failurePolicy !== "Deny") errors.push(`${field}.failurePolicy: Unsupported value: ${JSON.stringify(failurePolicy)}: supported values: "Deny", "NoOpinion"`);
  const ci = asObj(raw.connectionInfo);
  let connectionInfo: WebhookAuthorizerConfig["connectionInfo"] | undefined;
  if (!ci || !ci.type) errors.push(`${field}.connectionInfo.type: Required value`);
  else if (ci.type === "KubeConfigFile") {
    if (typeof ci.kubeConfigFile !== "string" || ci.kubeConfigFile === "") errors.push(`${field}.connectionInfo.kubeConfigFile: Required value`);
    else connectionInfo = { type: "KubeConfigFile", kubeConfigFile: ci.kubeConfigFile };
  } else if (ci.type === "InClusterConfig") {
    if (ci.kubeConfigFile !== undefined) errors.push(`${field}.connectionInfo.kubeConfigFile: Invalid value: can only be set when type=KubeConfigFile`);
    connectionInfo = { type: "InClusterConfig" };
  } else errors.push(`${field}.connectionInfo.type: Unsupported value: ${JSON.stringify(ci.type)}: supported values: "InClusterConfig", "KubeConfigFile"`);
  if (conditions.length > MAX_MATCH_CONDITIONS) errors.push(`${field}.matchConditions: Too many: ${conditions.length}: must have at most ${MAX_MATCH_CONDITIONS} items`);
  let matchConditions: CompiledMatchConditions | undefined;
  try {
    matchConditions = compileMatchConditions(conditions, `${field}.matchConditions`);
  } catch (err) {
    errors.push(err instanceof Error ? err.message : String(err));
  }
  if (errors.length > before || !connectionInfo || !matchConditions) return undefined;
  const out: WebhookAuthorizerConfig = {
    authorizedTTLMs,
    unauthorizedTTLMs,
    timeoutMs,
    subjectAccessReviewVersion: version as "v1" | "v1beta1",
    failurePolicy: failurePolicy as "NoOpinion" | "Deny",
    connectionInfo,
    matchConditions,
    matchConditionExpressions: conditions.map((c) => c.expression),
  };
  if (mcVersion === "v1") out.matchConditionSubjectAccessReviewVersion = "v1";
  return out;
}

/** Parses and validates an AuthorizationConfiguration document (YAML or JSON); throws with every error. */
export function parseAuthorizationConfiguration(text: string, profile: PlatformProfile): AuthorizationConfiguration {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new Error(`invalid authorization configuration: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  const root = asObj(doc);
  if (!root) throw new Error("invalid authorization configuration: not an object");
  const group = profile.group("apiserverConfig");
  const versions = ["v1", "v1beta1", "v1alpha1"].map((v) => `${group}/${v}`);
  if (typeof root.apiVersion !== "string" || !versions.includes(root.apiVersion)) {
    throw new Error(`invalid authorization configuration: unsupported apiVersion ${JSON.stringify(root.apiVersion)}; expected ${versions[0]}`);
  }
  if (root.kind !== "AuthorizationConfiguration") throw new Error(`invalid authorization configuration: kind must be "AuthorizationConfiguration"`);
  const errors: string[] = [];
  const list = root.authorizers;
  if (!Array.isArray(list) || list.length === 0) errors.push("authorizers: Required value: at least one authorization mode must be defined");
  const authorizers: AuthorizerConfig[] = [];
  const names = new Set<string>();
  const types = new Set<string>();
  (Array.isArray(list) ? list : []).forEach((item, i) => {
    const field = `authorizers[${i}]`;
    const a = asObj(item);
    if (!a) {
      errors.push(`${field}: Invalid value: must be an object`);
      return;
    }
    const type = a.type;
    if (type === undefined || type === "") {
      errors.push(`${field}.type: Required value`);
      return;
    }
    if (!(FILE_AUTHORIZER_TYPES as readonly unknown[]).includes(type)) {
      errors.push(`${field}.type: Unsupported value: ${JSON.stringify(type)}: supported values: ${FILE_AUTHORIZER_TYPES.map((t) => JSON.stringify(t)).join(", ")}`);
      return;
    }
    const t = type as FileAuthorizerType;
    if (t !== "Webhook") {
      if (types.has(t)) errors.push(`${field}.type: Duplicate value: ${JSON.stringify(t)}`);
      types.add(t);
    }
    const name = typeof a.name === "string" ? a.name : "";
    if (name === "" && t === "Webhook") errors.push(`${field}.name: Required value`);
    else if (name !== "" && !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(name)) {
      errors.push(`${field}.name: Invalid value: ${JSON.stringify(name)}: must be a lowercase DNS-1123 subdomain`);
    }
    if (name !== "") {
      if (names.has(name)) errors.push(`${field}.name: Duplicate value: ${JSON.stringify(name)}`);
      names.add(name);
    }
    const webhookRaw = asObj(a.webhook);
    if (t === "Webhook") {
      if (!webhookRaw) {
        errors.push(`${field}.webhook: Required value`);
        return;
      }
      const webhook = parseWebhook(errors, `${field}.webhook`, webhookRaw);
      if (webhook) authorizers.push({ type: t, name, webhook });
      return;
    }
    if (a.webhook !== undefined && a.webhook !== null) errors.push(`${field}.webhook: Invalid value: non-null webhook config is only allowed for type Webhook`);
    authorizers.push({ type: t, name: name || t.toLowerCase() });
  });
  if (errors.length > 0) throw new Error(`invalid authorization configuration: ${errors.join("; ")}`);
  return { authorizers };
}
