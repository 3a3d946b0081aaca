/**
 * A stored ValidatingAdmissionPolicy read into a typed, compiled form: match
 * constraints, match conditions, variables, validations (expression, message,
 * messageExpression, reason) and the failure policy. Every CEL expression is
 * compiled once per policy change; `compileErrors` reports the expressions that
 * do not compile with their field paths and the programs of those that do
 * (write-time validation). Pure.
 */
import { AUTHORIZER_TYPE, createEnvironment, type CelProgram } from "../../../../shared/cel/index.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import { compiledMatch, type CompiledMatch } from "./match.ts";

/** The CEL variables every policy expression may use. */
const policyEnv = createEnvironment({
  variables: { object: "dyn", oldObject: "dyn", request: "map", params: "dyn", namespaceObject: "dyn", variables: "dyn", authorizer: AUTHORIZER_TYPE },
  optionalTypes: true,
});

export interface CompiledValidation {
  program: CelProgram;
  message?: string;
  messageExpression?: CelProgram;
  reason?: string;
}

export interface CompiledPolicy {
  name: string;
  failurePolicy: "Fail" | "Ignore";
  /** `apiVersion` and `kind` of the parameter kind, when the policy takes parameters. */
  paramKind?: { apiVersion: string; kind: string };
  match: CompiledMatch;
  matchConditions: Array<{ name: string; program: CelProgram }>;
  variables: Array<{ name: string; program: CelProgram }>;
  validations: CompiledValidation[];
  /** auditAnnotations: key and value expression (a string, or null for none). */
  auditAnnotations: Array<{ key: string; program: CelProgram }>;
  /** Whether any expression names the `authorizer` variable (else no checks are prepared). */
  usesAuthorizer: boolean;
  /** The variables the compiled expressions name (an evaluation prepares only those). */
  references: ReadonlySet<string>;
  /** The first compile problem; the failure policy decides what a matched request gets. */
  problem?: string;
}

interface Expr {
  path: string;
  source: string;
  /** The CEL result type the expression must have. */
  want: "bool" | "string" | "any";
}

function list(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** Every CEL expression of a policy object with its field path. */
function expressions(spec: JsonObject): Expr[] {
  const out: Expr[] = [];
  list(spec.matchConditions).forEach((c, i) => out.push({ path: `spec.matchConditions[${i}].expression`, source: str(c.expression), want: "bool" }));
  list(spec.variables).forEach((v, i) => out.push({ path: `spec.variables[${i}].expression`, source: str(v.expression), want: "any" }));
  list(spec.validations).forEach((v, i) => {
    out.push({ path: `spec.validations[${i}].expression`, source: str(v.expression), want: "bool" });
    if (str(v.messageExpression).trim() !== "") out.push({ path: `spec.validations[${i}].messageExpression`, source: str(v.messageExpression), want: "string" });
  });
  list(spec.auditAnnotations).forEach((a, i) => out.push({ path: `spec.auditAnnotations[${i}].valueExpression`, source: str(a.valueExpression), want: "string" }));
  return out;
}

/** Compiles one expression; throws an Error with the platform's field-error detail. */
export function compileExpression(source: string, want: Expr["want"]): CelProgram {
  const program = policyEnv.compile(source);
  const t = program.resultType;
  if (want === "bool" && t !== "bool" && t !== "dyn") throw new Error(`must evaluate to bool`);
  if (want === "string" && t !== "string" && t !== "dyn") throw new Error(`must evaluate to string`);
  return program;
}

/**
 * Field errors (path, expression, detail) of the expressions that do not
 * compile, and the programs (with their paths) of those that do.
 */
export function compileErrors(obj: JsonObject): { errors: Array<{ path: string; source: string; detail: string }>; compiled: Array<{ path: string; program: CelProgram }> } {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const errors: Array<{ path: string; source: string; detail: string }> = [];
  const compiled: Array<{ path: string; program: CelProgram }> = [];
  for (const e of expressions(spec)) {
    if (e.source.trim() === "") continue;
    try {
      compiled.push({ path: e.path, program: compileExpression(e.source, e.want) });
    } catch (err) {
      errors.push({ path: e.path, source: e.source, detail: err instanceof Error ? err.message : String(err) });
    }
  }
  return { errors, compiled };
}

/** The compiled form of a stored policy. */
export function compilePolicy(obj: JsonObject): CompiledPolicy {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const name = str((obj.metadata as { name?: unknown } | undefined)?.name);
  const policy: CompiledPolicy = {
    name,
    failurePolicy: spec.failurePolicy === "Ignore" ? "Ignore" : "Fail",
    match: compiledMatch(isObject(spec.matchConstraints) ? spec.matchConstraints : {}),
    matchConditions: [],
    variables: [],
    validations: [],
    auditAnnotations: [],
    usesAuthorizer: expressions(spec).some((e) => /\bauthorizer\b/.test(e.source)),
    references: new Set(),
  };
  if (isObject(spec.paramKind)) policy.paramKind = { apiVersion: str(spec.paramKind.apiVersion), kind: str(spec.paramKind.kind) };
  try {
    policy.matchConditions = list(spec.matchConditions).map((c) => ({ name: str(c.name), program: compileExpression(str(c.expression), "bool") }));
    policy.variables = list(spec.variables).map((v) => ({ name: str(v.name), program: compileExpression(str(v.expression), "any") }));
    policy.validations = list(spec.validations).map((v) => {
      const out: CompiledValidation = { program: compileExpression(str(v.expression), "bool") };
      if (typeof v.message === "string" && v.message !== "") out.message = v.message;
      if (str(v.messageExpression).trim() !== "") out.messageExpression = compileExpression(str(v.messageExpression), "string");
      if (typeof v.reason === "string" && v.reason !== "") out.reason = v.reason;
      return out;
    });
    policy.auditAnnotations = list(spec.auditAnnotations).map((x) => ({ key: str(x.key), program: compileExpression(str(x.valueExpression), "string") }));
  } catch (err) {
    policy.problem = err instanceof Error ? err.message : String(err);
  }
  const programs = [
    ...policy.matchConditions.map((c) => c.program),
    ...policy.variables.map((v) => v.program),
    ...policy.validations.flatMap((v) => (v.messageExpression ? [v.program, v.messageExpression] : [v.program])),
    ...policy.auditAnnotations.map((x) => x.program),
  ];
  policy.references = new Set(programs.flatMap((p) => [...p.references]));
  return policy;
}
