/**
 * The one hook into the evaluator. @marcbachmann/cel-js has no cost API, but
 * it evaluates every sub-expression through `Evaluator#run` (macros are
 * documented to do the same). This file finds the evaluator class once, by a
 * private probe environment whose function receives the evaluator as `this`,
 * and wraps `run` so that, while `runMetered` is active, each node is shown to
 * a visitor before it is evaluated. Outside `runMetered` the wrapper only
 * forwards. Evaluation is synchronous (no async functions are registered), so
 * one active slot suffices; nested calls save and restore it.
 */
import { Environment } from "@marcbachmann/cel-js";
import type { CostMeter } from "./meter.ts";

/** The parts of a checked cel-js 8 AST node this module relies on. */
export interface EvalNode {
  readonly op: string;
  readonly args: unknown;
  /** Set by the type checker on operators and calls; called with the evaluated operands. */
  handle?: (...operands: unknown[]) => unknown;
  /** Macro expansion: `alternate` (all/exists/map/filter) or `macro` (has, cel.bind). */
  readonly meta?: { readonly alternate?: EvalNode; readonly macro?: unknown };
}

export type Visitor = (node: EvalNode, meter: CostMeter) => void;

type Run = (this: unknown, node: EvalNode, ctx: unknown) => unknown;

/** The evaluation in progress: its meter and visitor (both set, or neither). */
let activeMeter: CostMeter | undefined;
let activeVisit: Visitor | undefined;

function evaluatorPrototype(): { run: Run } {
  const seen: unknown[] = [];
  new Environment()
    .registerFunction(
      "probe(): bool",
      function (this: unknown) {
        seen.push(this);
        return true;
      },
      { async: false },
    )
    .evaluate("probe()");
  const proto: unknown = seen[0] && Object.getPrototypeOf(seen[0]);
  if (!proto || typeof (proto as { run?: unknown }).run !== "function") throw new Error("cel: evaluator without run(); unsupported @marcbachmann/cel-js version");
  return proto as { run: Run };
}

/** Wraps `run`; a second copy of this module wraps the first copy's wrapper, so each sees its own evaluations. */
function install(): void {
  const proto = evaluatorPrototype();
  const run = proto.run;
  proto.run = function meteredRun(this: unknown, node: EvalNode, ctx: unknown): unknown {
    if (activeMeter) (activeVisit as Visitor)(node, activeMeter);
    return run.call(this, node, ctx);
  };
}

install();

/** Runs `fn(...args)` with every evaluated node shown to `visit` (with `meter`); arguments spare a closure per run. */
export function runMetered<A extends unknown[], T>(meter: CostMeter, visit: Visitor, fn: (...args: A) => T, ...args: A): T {
  const savedMeter = activeMeter;
  const savedVisit = activeVisit;
  activeMeter = meter;
  activeVisit = visit;
  try {
    return fn(...args);
  } finally {
    activeMeter = savedMeter;
    activeVisit = savedVisit;
  }
}

/** The meter of the evaluation in progress, if any. */
export function currentMeter(): CostMeter | undefined {
  return activeMeter;
}
