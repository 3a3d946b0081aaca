/**
 * The environment factory: declared variables with their CEL types, parse
 * limits, the module's function library; `compile` parses and type-checks an
 * expression (and validates literal regular expressions) into a program whose `evaluate` converts the JSON activation,
 * meters the evaluation against a cost budget and converts the result back.
 * Compile errors are CelCompileError, runtime errors CelEvaluationError (a
 * budget overrun CelCostLimitError); neither quotes activation values.
 */
import { Environment } from "@marcbachmann/cel-js";
import { PER_CALL_LIMIT } from "./cost-model.ts";
import { CelCompileError, CelCostLimitError, CelEvaluationError, compileError, evaluationError } from "./errors.ts";
import { referencedVariables } from "./ast-walk.ts";
import { estimateAstCost, type CostSizes } from "./estimate.ts";
import { visit } from "./instrument.ts";
import { registerLibrary } from "./library.ts";
import { CostMeter } from "./meter.ts";
import { runMetered, type EvalNode } from "./metering.ts";
import { checkLiteralRegexes } from "./static-checks.ts";
import { rewriteStructLiterals } from "./struct-literals.ts";
import { celValueOf, fromCel } from "./values.ts";

/** Structural limits enforced while parsing. */
export interface ParseLimits {
  maxAstNodes: number;
  maxDepth: number;
  maxListElements: number;
  maxMapEntries: number;
  maxCallArguments: number;
}

export const DEFAULT_LIMITS: Readonly<ParseLimits> = Object.freeze({ maxAstNodes: 10_000, maxDepth: 100, maxListElements: 1000, maxMapEntries: 1000, maxCallArguments: 32 });

export interface CelEnvironmentOptions {
  /** Declared variables: name → CEL type ("map", "string", "list<string>", "dyn", ...). */
  variables: Readonly<Record<string, string>>;
  limits?: Partial<ParseLimits>;
  /** `.?field`, `[?key]` and the optional library. */
  optionalTypes?: boolean;
  /** Allow list and map literals whose elements have different types. */
  mixedTypeLiterals?: boolean;
  /** Default cost budget per evaluation. */
  costBudget?: number;
  /** `Object{...}` and `JSONPatch{...}` literals (mutating policies), evaluated as maps. */
  structLiterals?: boolean;
}

export interface CelEvaluation {
  /** The result as a JSON-shaped value (see fromCel). */
  value: unknown;
  /** Cost units the evaluation used. */
  cost: number;
}

export interface CelProgram {
  readonly source: string;
  /** The checked result type ("bool", "string", "list", "map", "dyn", ...). */
  readonly resultType: string;
  /** The declared variables the expression names (an activation needs no others). */
  readonly references: ReadonlySet<string>;
  /** The static worst-case cost for inputs of the given sizes (estimate.ts). */
  estimateCost(sizes: CostSizes): number;
  /** Evaluates over JSON values (or CelValues) of the declared variables (others are ignored). */
  evaluate(activation: Readonly<Record<string, unknown>>, opts?: { costBudget?: number }): CelEvaluation;
}

export interface CelEnvironment {
  /** Parses and type-checks; throws CelCompileError. */
  compile(source: string): CelProgram;
}

type Parsed = ReturnType<Environment["parse"]>;

/** One metered evaluation of a parsed expression over a prepared context. */
function evaluateParsed(parsed: Parsed, root: EvalNode, ctx: Record<string, unknown>, meter: CostMeter): unknown {
  visit(root, meter);
  return parsed(ctx) as unknown;
}

function program(parsed: Parsed, source: string, resultType: string, declared: readonly string[], defaultBudget: number): CelProgram {
  const root = parsed.ast as unknown as EvalNode;
  const references = referencedVariables(parsed.ast, declared);
  // Only the variables the expression names are converted and passed.
  const names = declared.filter((n) => references.has(n));
  return {
    source,
    resultType,
    references,
    estimateCost: (sizes) => estimateAstCost(parsed.ast, sizes),
    evaluate(activation, opts) {
      const meter = new CostMeter(opts?.costBudget ?? defaultBudget);
      const ctx: Record<string, unknown> = {};
      for (const name of names) if (activation[name] !== undefined) ctx[name] = celValueOf(activation[name]);
      let value: unknown;
      try {
        value = runMetered(meter, visit, evaluateParsed, parsed, root, ctx, meter);
      } catch (err) {
        throw meter.exceeded ? new CelCostLimitError() : evaluationError(err, source);
      }
      if (meter.exceeded) throw new CelCostLimitError();
      if (value instanceof Promise) throw new CelEvaluationError("evaluation error: asynchronous result");
      return { value: fromCel(value), cost: meter.used };
    },
  };
}

/** Creates an environment; the options are fixed for its lifetime. */
export function createEnvironment(opts: CelEnvironmentOptions): CelEnvironment {
  const env = registerLibrary(
    new Environment({
      enableOptionalTypes: opts.optionalTypes ?? false,
      homogeneousAggregateLiterals: !(opts.mixedTypeLiterals ?? false),
      limits: { ...DEFAULT_LIMITS, ...opts.limits },
    }),
  );
  const names = Object.keys(opts.variables);
  for (const name of names) env.registerVariable(name, opts.variables[name]);
  const budget = opts.costBudget ?? PER_CALL_LIMIT;
  return {
    compile(source) {
      if (typeof source !== "string" || source.trim() === "") throw new CelCompileError("expression is empty");
      let parsed: Parsed;
      try {
        parsed = env.parse(opts.structLiterals ? rewriteStructLiterals(source) : source);
      } catch (err) {
        throw compileError(err, source);
      }
      const checked = parsed.check();
      if (!checked.valid) throw compileError(checked.error, source);
      checkLiteralRegexes(parsed.ast, source);
      return program(parsed, source, checked.type ?? "dyn", names, budget);
    },
  };
}
