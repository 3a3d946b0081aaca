/**
 * Evaluation of one compiled policy for one request and one parameter object:
 * match conditions (any false: nothing to check; an error: failurePolicy),
 * variables (in order, each may read the ones before it), then every
 * validation. A false validation gives a "deny" decision with its message
 * (messageExpression, else message, else `failed expression: <expr>`) and
 * reason (default Invalid); an evaluation error gives "deny" under failurePolicy
 * Fail and nothing under Ignore. Never throws for CEL problems.
 */
import { celValue, type CelProgram } from "../../../../shared/cel/index.ts";
import type { CompiledPolicy } from "./compile.ts";

export interface Decision {
  message: string;
  /** A StatusReason: Invalid, Forbidden, Unauthorized, RequestEntityTooLarge; "" for configuration errors. */
  reason: string;
  /** Index of the failed validation (configuration errors: none). */
  index?: number;
}

export interface PolicyResult {
  denials: Decision[];
  /** auditAnnotations that produced a value: key → value. */
  annotations: Record<string, string>;
}

/** JSON values, or CelValues converted once for several policies. */
export interface Activation {
  object: unknown;
  oldObject: unknown;
  request: unknown;
  params: unknown;
  namespaceObject: unknown;
  /** The `authorizer` value (shared/cel's Authorizer), bound to the requester. */
  authorizer?: unknown;
}

function run(program: CelProgram, activation: Record<string, unknown>): { value?: unknown; error?: string } {
  try {
    return { value: program.evaluate(activation).value };
  } catch (err) {
    return { error: `expression '${program.source}' resulted in error: ${err instanceof Error ? err.message : String(err)}` };
  }
}

function failureMessage(policy: CompiledPolicy["validations"][number], activation: Record<string, unknown>): string {
  if (policy.messageExpression) {
    const r = run(policy.messageExpression, activation);
    if (typeof r.value === "string" && r.value.trim() !== "" && !r.value.includes("\n")) return r.value.trim();
  }
  if (policy.message !== undefined) return policy.message;
  return `failed expression: ${policy.program.source.trim()}`;
}

/** The denials of one policy for one parameter object (empty: allowed) and its audit annotations. */
export function evaluatePolicy(policy: CompiledPolicy, input: Activation): PolicyResult {
  const annotations: Record<string, string> = {};
  const denials = validate(policy, input, annotations);
  return { denials, annotations };
}

/** The CEL value null, for variables an activation leaves out. */
const NULL_VALUE = celValue(null);

/** An input as a CEL value: converted now unless it already is; absent is null. */
function asCel(v: unknown): unknown {
  return v === undefined ? NULL_VALUE : celValue(v);
}

/** Under failurePolicy Ignore an evaluation error decides nothing; under Fail it denies. */
function onError(policy: CompiledPolicy, message: string, index?: number): Decision[] {
  if (policy.failurePolicy === "Ignore") return [];
  return index === undefined ? [{ message, reason: "" }] : [{ message, reason: "", index }];
}

function validate(policy: CompiledPolicy, input: Activation, annotations: Record<string, string>): Decision[] {
  const variables: Record<string, unknown> = {};
  // CelValues are taken as they are; JSON values are converted once for all the policy's expressions.
  const activation: Record<string, unknown> = {
    authorizer: input.authorizer,
    request: asCel(input.request),
    object: asCel(input.object),
    oldObject: asCel(input.oldObject),
    params: asCel(input.params),
    namespaceObject: asCel(input.namespaceObject),
    variables,
  };
  const conditionErrors: string[] = [];
  for (const c of policy.matchConditions) {
    const r = run(c.program, activation);
    if (r.value === false) return [];
    if (r.error !== undefined) conditionErrors.push(r.error);
    else if (r.value !== true) conditionErrors.push(`expression '${c.program.source}' resulted in error: no such overload`);
  }
  if (conditionErrors.length > 0) return onError(policy, conditionErrors.join("; "));
  for (const v of policy.variables) {
    const r = run(v.program, activation);
    // A failed variable stays unset: an expression that reads it fails (no such key).
    if (r.error === undefined) variables[v.name] = r.value;
  }
  const out: Decision[] = [];
  for (let index = 0; index < policy.validations.length; index++) {
    const v = policy.validations[index];
    const r = run(v.program, activation);
    if (r.error !== undefined) out.push(...onError(policy, r.error, index));
    else if (r.value === false) out.push({ message: failureMessage(v, activation), reason: v.reason ?? "Invalid", index });
    else if (r.value !== true) out.push(...onError(policy, `expression '${v.program.source}' resulted in error: no such overload`, index));
  }
  for (const x of policy.auditAnnotations) {
    const r = run(x.program, activation);
    if (r.error !== undefined) out.push(...onError(policy, r.error));
    else if (typeof r.value === "string") annotations[x.key] = r.value;
  }
  return out;
}
