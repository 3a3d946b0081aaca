/**
 * CEL for the authentication configuration: expressions over `claims` (the
 * verified token's claims) and over `user` (the mapped user: username, uid,
 * groups, extra). The evaluator's integers are BigInt, so JSON integers are
 * converted first; its errors are reported without claim values.
 */
import { Environment } from "@marcbachmann/cel-js";

const LIMITS = { maxAstNodes: 2000, maxDepth: 50, maxListElements: 1000, maxMapEntries: 1000, maxCallArguments: 32 };

function environment(variable: "claims" | "user"): Environment {
  return new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false, limits: LIMITS }).registerVariable(variable, "map");
}

const ENVS = { claims: environment("claims"), user: environment("user") };

/** JSON value → CEL value: integers become BigInt, nested arrays and objects are converted. */
export function toCel(v: unknown): unknown {
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(toCel);
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = toCel(x);
    return out;
  }
  return v;
}

export interface CompiledExpression {
  source: string;
  evaluate(input: Record<string, unknown>): unknown;
}

/** Compiles an expression over `claims` or `user`; throws with the parse or type error. */
export function compileExpression(source: string, variable: "claims" | "user"): CompiledExpression {
  if (source.trim() === "") throw new Error("expression must not be empty");
  const env = ENVS[variable];
  const parsed = env.parse(source);
  const check = parsed.check();
  if (!check.valid) throw new Error(`compilation failed: ${check.error?.message.split("\n")[0] ?? "invalid expression"}`);
  return {
    source,
    evaluate(input) {
      return parsed({ [variable]: toCel(input) });
    },
  };
}

/** The first line of an evaluation error: the position, never values from the context. */
export function celErrorText(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.split("\n")[0];
}

/** A string, or a list of strings (null means empty); anything else is an error. */
export function stringOrList(v: unknown, what: string): string[] {
  if (v === null || v === undefined) return [];
  if (typeof v === "string") return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v as string[];
  throw new Error(`${what}: expression must return a string or a list of strings`);
}
