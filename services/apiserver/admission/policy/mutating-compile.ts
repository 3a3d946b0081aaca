/**
 * A stored MutatingAdmissionPolicy read into a typed, compiled form: match
 * constraints, match conditions, variables, mutations (ApplyConfiguration or
 * JSONPatch expressions, with `Object{...}` and `JSONPatch{...}` literals) and
 * the failure and reinvocation policies. Expressions are compiled once per
 * policy generation; the first problem is kept for the failure policy.
 * `mutatingPolicyFieldErrors` reports, at write time, the expressions that do
 * not compile and the mutations without the expression their patchType needs.
 * Pure.
 */
import { AUTHORIZER_TYPE, createEnvironment, type CelProgram } from "../../../../shared/cel/index.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import { compiledMatch, type CompiledMatch } from "./match.ts";

const mutationEnv = createEnvironment({
  variables: { object: "dyn", oldObject: "dyn", request: "map", params: "dyn", namespaceObject: "dyn", variables: "dyn", authorizer: AUTHORIZER_TYPE },
  optionalTypes: true,
  mixedTypeLiterals: true,
  structLiterals: true,
});

export interface CompiledMutation {
  patchType: "ApplyConfiguration" | "JSONPatch";
  program: CelProgram;
}

export interface CompiledMutatingPolicy {
  name: string;
  failurePolicy: "Fail" | "Ignore";
  reinvocationPolicy: "Never" | "IfNeeded";
  paramKind?: { apiVersion: string; kind: string };
  match: CompiledMatch;
  matchConditions: Array<{ name: string; program: CelProgram }>;
  variables: Array<{ name: string; program: CelProgram }>;
  mutations: CompiledMutation[];
  problem?: string;
}

const list = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isObject) : []);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

function compileMutation(m: JsonObject, i: number): CompiledMutation {
  const patchType = m.patchType === "JSONPatch" ? "JSONPatch" : "ApplyConfiguration";
  const holder = patchType === "JSONPatch" ? m.jsonPatch : m.applyConfiguration;
  const source = isObject(holder) ? str(holder.expression) : "";
  if (source.trim() === "") throw new Error(`spec.mutations[${i}]: ${patchType === "JSONPatch" ? "jsonPatch" : "applyConfiguration"}.expression is required`);
  return { patchType, program: mutationEnv.compile(source) };
}

/** The compiled form of a stored MutatingAdmissionPolicy. */
export function compileMutatingPolicy(obj: JsonObject): CompiledMutatingPolicy {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const policy: CompiledMutatingPolicy = {
    name: str((obj.metadata as { name?: unknown } | undefined)?.name),
    failurePolicy: spec.failurePolicy === "Ignore" ? "Ignore" : "Fail",
    reinvocationPolicy: spec.reinvocationPolicy === "IfNeeded" ? "IfNeeded" : "Never",
    match: compiledMatch(isObject(spec.matchConstraints) ? spec.matchConstraints : {}),
    matchConditions: [],
    variables: [],
    mutations: [],
  };
  if (isObject(spec.paramKind)) policy.paramKind = { apiVersion: str(spec.paramKind.apiVersion), kind: str(spec.paramKind.kind) };
  try {
    policy.matchConditions = list(spec.matchConditions).map((c) => ({ name: str(c.name), program: mutationEnv.compile(str(c.expression)) }));
    policy.variables = list(spec.variables).map((v) => ({ name: str(v.name), program: mutationEnv.compile(str(v.expression)) }));
    policy.mutations = list(spec.mutations).map(compileMutation);
  } catch (err) {
    policy.problem = err instanceof Error ? err.message : String(err);
  }
  return policy;
}

/**
 * Write-time problems: `{ path, value?, detail }`; `value` absent means a
 * required value is missing. The programs that compile are added to `compiled`.
 */
export function mutatingPolicyFieldErrors(obj: JsonObject, compiled: Array<{ path: string; program: CelProgram }> = []): Array<{ path: string; value?: string; detail: string }> {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const out: Array<{ path: string; value?: string; detail: string }> = [];
  const check = (path: string, source: string): void => {
    if (source.trim() === "") return;
    try {
      compiled.push({ path, program: mutationEnv.compile(source) });
    } catch (err) {
      out.push({ path, value: source, detail: err instanceof Error ? err.message : String(err) });
    }
  };
  list(spec.matchConditions).forEach((c, i) => check(`spec.matchConditions[${i}].expression`, str(c.expression)));
  list(spec.variables).forEach((v, i) => check(`spec.variables[${i}].expression`, str(v.expression)));
  list(spec.mutations).forEach((m, i) => {
    const field = m.patchType === "JSONPatch" ? "jsonPatch" : m.patchType === "ApplyConfiguration" ? "applyConfiguration" : undefined;
    if (!field) return;
    const holder = m[field];
    const source = isObject(holder) ? str(holder.expression) : "";
    if (source.trim() === "") out.push({ path: `spec.mutations[${i}].${field}.expression`, detail: `must be specified when patchType is ${String(m.patchType)}` });
    else check(`spec.mutations[${i}].${field}.expression`, source);
  });
  return out;
}
