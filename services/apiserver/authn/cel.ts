/**
 * CEL for the authentication configuration: expressions over `claims` (the
 * verified token's claims) and over `user` (the mapped user: username, uid,
 * groups, extra), compiled and evaluated by the shared CEL module (JSON
 * conversion, cost budget, RE2 regular expressions, errors without claim values).
 */
import { createEnvironment, toCel as jsonToCel, type CelEnvironment } from "../../../shared/cel/index.ts";

const LIMITS = { maxAstNodes: 2000, maxDepth: 50, maxListElements: 1000, maxMapEntries: 1000, maxCallArguments: 32 };

function environment(variable: "claims" | "user"): CelEnvironment {
  return createEnvironment({ variables: { [variable]: "map" }, limits: LIMITS, optionalTypes: true, mixedTypeLiterals: true });
}

const ENVS = { claims: environment("claims"), user: environment("user") };

/** JSON value → CEL value: integers become BigInt, nested arrays and objects are converted. */
export const toCel = jsonToCel;

export interface CompiledExpression {
  source: string;
  /** The result as a JSON-shaped value; throws with a one-line error text. */
  evaluate(input: Record<string, unknown>): unknown;
}

/** Compiles an expression over `claims` or `user`; throws with the parse or type error. */
export function compileExpression(source: string, variable: "claims" | "user"): CompiledExpression {
  if (source.trim() === "") throw new Error("expression must not be empty");
  const program = ENVS[variable].compile(source);
  return {
    source,
    evaluate(input) {
      return program.evaluate({ [variable]: input }).value;
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
