/**
 * ABAC: a policy file with one JSON object per line (blank lines and `#` comments
 * skipped), `apiVersion: <abac group>/v1beta1`, `kind: Policy`, and `spec` with
 * optional `user`, `group`, `apiGroup`, `namespace`, `resource`,
 * `nonResourcePath` and `readonly`. `*` matches any value; unset request
 * attributes are zero values. A policy line with neither user nor group matches
 * nobody. Lines without `apiVersion` are the unversioned form (fields at the top
 * level, an empty field matching everything). Read once: a change needs a restart.
 */
import { readFileSync } from "node:fs";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { isReadOnly } from "./attributes.ts";
import { ALLOW, NO_OPINION, type Attributes, type Authorizer, type Decision, type RuleResolver, type RulesResult, type UserInfo } from "./types.ts";

export interface AbacPolicySpec {
  user?: string;
  group?: string;
  readonly?: boolean;
  apiGroup?: string;
  resource?: string;
  namespace?: string;
  nonResourcePath?: string;
}

export interface AbacPolicy {
  /** "v1beta1" or "v0" (unversioned). */
  version: "v1beta1" | "v0";
  spec: AbacPolicySpec;
}

const SPEC_KEYS = new Set(["user", "group", "readonly", "apiGroup", "resource", "namespace", "nonResourcePath"]);

function specFrom(raw: Record<string, unknown>, line: number): AbacPolicySpec {
  const spec: AbacPolicySpec = {};
  for (const [k, v] of Object.entries(raw)) {
    if (!SPEC_KEYS.has(k)) throw new Error(`line ${line}: unknown field "${k}"`);
    if (k === "readonly") {
      if (typeof v !== "boolean") throw new Error(`line ${line}: readonly must be a boolean`);
      spec.readonly = v;
    } else {
      if (typeof v !== "string") throw new Error(`line ${line}: ${k} must be a string`);
      (spec as Record<string, string>)[k] = v;
    }
  }
  return spec;
}

/** Parses a policy file's text; throws with the line number of the first bad line. */
export function parseAbacPolicies(text: string, profile: PlatformProfile): AbacPolicy[] {
  const apiVersion = `${profile.group("abac")}/v1beta1`;
  const out: AbacPolicy[] = [];
  text.split("\n").forEach((rawLine, i) => {
    const line = rawLine.trim();
    if (line === "" || line.startsWith("#")) return;
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch (err) {
      throw new Error(`line ${i + 1}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    if (!obj || typeof obj !== "object" || Array.isArray(obj)) throw new Error(`line ${i + 1}: a policy must be a JSON object`);
    const o = obj as Record<string, unknown>;
    if (o.apiVersion === undefined) {
      out.push({ version: "v0", spec: specFrom(o, i + 1) });
      return;
    }
    if (o.apiVersion !== apiVersion) throw new Error(`line ${i + 1}: unsupported apiVersion ${JSON.stringify(o.apiVersion)}; expected ${apiVersion}`);
    if (o.kind !== "Policy") throw new Error(`line ${i + 1}: kind must be "Policy"`);
    const spec = o.spec;
    if (!spec || typeof spec !== "object" || Array.isArray(spec)) throw new Error(`line ${i + 1}: spec must be an object`);
    out.push({ version: "v1beta1", spec: specFrom(spec as Record<string, unknown>, i + 1) });
  });
  return out;
}

function subjectMatches(p: AbacPolicy, user: UserInfo): boolean {
  const s = p.spec;
  if (p.version === "v0") {
    if (s.user && s.user !== user.username) return false;
    if (s.group && !user.groups.includes(s.group)) return false;
    return true;
  }
  let matched = false;
  if (s.user) {
    if (s.user !== "*" && s.user !== user.username) return false;
    matched = true;
  }
  if (s.group) {
    if (s.group !== "*" && !user.groups.includes(s.group)) return false;
    matched = true;
  }
  return matched;
}

function valueMatches(pattern: string | undefined, value: string, emptyMatchesAll: boolean): boolean {
  if (pattern === "*") return true;
  if ((pattern === undefined || pattern === "") && emptyMatchesAll) return true;
  return (pattern ?? "") === value;
}

function nonResourcePathMatches(pattern: string | undefined, path: string): boolean {
  if (!pattern) return false;
  if (pattern === "*" || pattern === path) return true;
  return pattern.endsWith("*") && path.startsWith(pattern.replace(/\*+$/, ""));
}

/** Whether one policy allows the request. */
export function abacMatches(p: AbacPolicy, attrs: Attributes): boolean {
  if (!subjectMatches(p, attrs.user)) return false;
  if (p.spec.readonly && !isReadOnly(attrs)) return false;
  if (p.version === "v0") {
    if (!attrs.isResourceRequest) return true;
    return valueMatches(p.spec.namespace, attrs.namespace, true) && valueMatches(p.spec.resource, attrs.resource, true);
  }
  if (!attrs.isResourceRequest) return nonResourcePathMatches(p.spec.nonResourcePath, attrs.path);
  return valueMatches(p.spec.namespace, attrs.namespace, false) && valueMatches(p.spec.resource, attrs.resource, false) && valueMatches(p.spec.apiGroup, attrs.apiGroup, false);
}

export class AbacAuthorizer implements Authorizer, RuleResolver {
  readonly name = "ABAC";

  constructor(readonly policies: readonly AbacPolicy[]) {}

  static fromFile(path: string, profile: PlatformProfile): AbacAuthorizer {
    return new AbacAuthorizer(parseAbacPolicies(readFileSync(path, "utf8"), profile));
  }

  authorize(attrs: Attributes): Decision {
    return this.policies.some((p) => abacMatches(p, attrs)) ? ALLOW() : NO_OPINION("No policy matched.");
  }

  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false, errors: [] };
    for (const p of this.policies) {
      if (!subjectMatches(p, user)) continue;
      const verbs = p.spec.readonly ? ["get", "list", "watch"] : ["*"];
      const ns = p.spec.namespace ?? "";
      if (ns === "*" || ns === namespace || (p.version === "v0" && ns === "")) {
        out.resourceRules.push({ verbs, apiGroups: [p.spec.apiGroup || (p.version === "v0" ? "*" : "")], resources: [p.spec.resource || (p.version === "v0" ? "*" : "")] });
      }
      if (p.spec.nonResourcePath) out.nonResourceRules.push({ verbs, nonResourceURLs: [p.spec.nonResourcePath] });
    }
    return out;
  }
}
