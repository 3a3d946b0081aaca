/**
 * A reference checker for small histories: tries every order of the operations that
 * respects real time (an operation that returned before another was called comes
 * first), per partition, with each pending operation either placed somewhere after its call or
 * left out. Exponential; for cross-checking the real checker in tests.
 */
import type { Operation } from "./history.ts";
import type { Model } from "./model.ts";

export function bruteForceLinearizable<S, I, O>(model: Model<S, I, O>, ops: readonly Operation<I, O>[]): boolean {
  const keys = new Set(ops.map((o) => model.partitionKey(o.input)));
  return [...keys].every((k) => single(model, ops.filter((o) => model.partitionKey(o.input) === k)));
}

function single<S, I, O>(model: Model<S, I, O>, ops: readonly Operation<I, O>[]): boolean {
  const used = new Array<boolean>(ops.length).fill(false);
  const completed = ops.filter((o) => o.returned !== undefined).length;

  const canGoNext = (i: number): boolean => {
    for (let j = 0; j < ops.length; j++) {
      const r = ops[j].returned;
      if (!used[j] && j !== i && r !== undefined && r < ops[i].called) return false;
    }
    return true;
  };

  const go = (states: S[], done: number): boolean => {
    if (done === completed) return true;
    for (let i = 0; i < ops.length; i++) {
      if (used[i] || !canGoNext(i)) continue;
      const next = states.flatMap((s) => model.step(s, ops[i].input, ops[i].output));
      if (next.length === 0) continue;
      used[i] = true;
      const ok = go(next, done + (ops[i].returned !== undefined ? 1 : 0));
      used[i] = false;
      if (ok) return true;
    }
    return false;
  };

  return go([model.init()], 0);
}
