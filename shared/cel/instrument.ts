/**
 * The visitor shown each node before it is evaluated: it charges the node's
 * fixed cost, and the first time it sees a node it prepares it: operators and
 * calls get a wrapper around their evaluator handle that charges the cost of
 * the evaluated operands (and applies the library's overrides), and the step
 * of a comprehension macro is marked so that each iteration is charged.
 */
import { callCost, macroResultCost, macroStepCost, nodeCost, operatorCost, PRICED_BY_RESULT, SELECT_COST } from "./cost-model.ts";
import { OVERRIDES } from "./library.ts";
import type { CostMeter } from "./meter.ts";
import { currentMeter, type EvalNode } from "./metering.ts";

type Handle = (...operands: unknown[]) => unknown;

const BINARY = new Set(["==", "!=", "<", "<=", ">", ">=", "in", "+", "-", "*", "/", "%"]);

/**
 * Cost charged per visit of a prepared node: its fixed cost, plus the iteration
 * cost for the step of a comprehension (one lookup per visit). A comprehension's
 * macro node is always visited, and so prepared, before its step.
 */
const visitCost = new WeakMap<EvalNode, number>();
/** The step of each comprehension macro, with its per-iteration cost. */
const iterationSteps = new WeakMap<EvalNode, number>();

function wrapOperator(node: EvalNode, handle: Handle): Handle {
  const op = node.op;
  // The evaluator calls an operator's handle with (left, right, ast, evaluator): passed on without a rest array.
  return function (this: unknown, left: unknown, right: unknown, third: unknown, fourth: unknown): unknown {
    currentMeter()?.charge(operatorCost(op, left, right));
    return handle.call(this, left, right, third, fourth);
  };
}

function wrapCall(node: EvalNode, handle: Handle): Handle {
  const args = node.args as unknown[];
  const name = String(args[0]);
  const arity = (node.op === "call" ? (args[1] as unknown[]) : (args[2] as unknown[])).length;
  const override = OVERRIDES.get(`${node.op}:${name}:${arity}`);
  const byResult = PRICED_BY_RESULT.has(name);
  // A call's handle gets (operands, ast, evaluator) or (operands, evaluator, ast): passed on without a rest array.
  return function (this: unknown, values: unknown, second: unknown, third: unknown): unknown {
    const operands = Array.isArray(values) ? values : [];
    const meter = currentMeter();
    if (meter && !byResult) meter.charge(callCost(name, operands));
    const result = override ? override(operands, () => handle.call(this, values, second, third)) : handle.call(this, values, second, third);
    if (meter && byResult) meter.charge(callCost(name, operands, result));
    return result;
  };
}

/** `-5`: cel-go parses a negative number as one constant (cost 0), not a negation. */
const isNegativeLiteral = (node: EvalNode): boolean => node.op === "-_" && (node.args as EvalNode | undefined)?.op === "value";

function prepare(node: EvalNode): number {
  let cost = isNegativeLiteral(node) ? 0 : nodeCost(node.op);
  const meta = node.meta;
  if (meta?.alternate?.op === "comprehension") {
    const name = String((node.args as unknown[])[0]);
    const step = (meta.alternate.args as { step?: EvalNode }).step;
    if (step) iterationSteps.set(step, macroStepCost(name));
    cost += macroResultCost(name);
  } else if (meta?.macro && (node.args as unknown[])[0] === "has") {
    cost += SELECT_COST;
  } else if (typeof node.handle === "function") {
    if (BINARY.has(node.op)) node.handle = wrapOperator(node, node.handle);
    else if (node.op === "call" || node.op === "rcall") node.handle = wrapCall(node, node.handle);
  }
  cost += iterationSteps.get(node) ?? 0;
  visitCost.set(node, cost);
  return cost;
}

/** Charges `node` to `meter`, preparing it on first sight. */
export function visit(node: EvalNode, meter: CostMeter): void {
  meter.charge(visitCost.get(node) ?? prepare(node));
}
